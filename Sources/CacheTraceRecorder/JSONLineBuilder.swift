// One JSON object built by hand into bytes: the recorder writes many small flat objects and
// JSONSerialization would cost a dictionary and boxed values per event. Runs on the writer's
// queue, never on the app's thread.

/// Builds `{"name":value,…}` followed by "\n". Appending a field is O(its length).
struct JSONLineBuilder {
    private(set) var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var empty = true

    /// The finished line: the object closed and a newline.
    var line: [UInt8] { bytes + [UInt8(ascii: "}"), UInt8(ascii: "\n")] }

    mutating func field(_ name: String, _ value: String) {
        key(name)
        Self.appendString(value, to: &bytes)
    }

    mutating func field(_ name: String, _ value: String?) {
        if let value { field(name, value) }
    }

    mutating func field(_ name: String, _ value: Int) {
        key(name)
        bytes += Array(String(value).utf8)
    }

    mutating func field(_ name: String, _ value: Int?) {
        if let value { field(name, value) }
    }

    mutating func field(_ name: String, _ value: UInt64) {
        key(name)
        bytes += Array(String(value).utf8)
    }

    /// A finite number as Swift prints it (shortest round-trip form, valid JSON); a
    /// non-finite one has no JSON form and is left out.
    mutating func field(_ name: String, _ value: Double?) {
        guard let value, value.isFinite else { return }
        key(name)
        // Integral values print as "2.0", which JSON accepts; keep the shortest form.
        bytes += Array(value.description.utf8)
    }

    /// A nested object from name/value pairs, in the given order.
    mutating func field(_ name: String, object pairs: [(String, String)]) {
        key(name)
        var nested = JSONLineBuilder()
        for (n, v) in pairs { nested.field(n, v) }
        bytes += nested.bytes
        bytes.append(UInt8(ascii: "}"))
    }

    /// A nested object already built.
    mutating func field(_ name: String, object nested: JSONLineBuilder) {
        key(name)
        bytes += nested.bytes
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func key(_ name: String) {
        if !empty { bytes.append(UInt8(ascii: ",")) }
        empty = false
        Self.appendString(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// A JSON string: quote and backslash escaped, control characters (below 0x20) as
    /// \u00XX; everything else is UTF-8 as is (Swift strings are valid Unicode). O(n).
    static func appendString(_ text: String, to bytes: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes += [UInt8(ascii: "\\"), byte]
            case 0..<0x20:
                bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xf)]]
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
