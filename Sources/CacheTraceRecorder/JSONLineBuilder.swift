// One JSON object built by hand into bytes: the recorder writes many small flat objects and
// JSONSerialization would cost a dictionary and boxed values per event. Runs on the writer's
// queue, never on the app's thread.

/// Builds `{"name":value,…}` followed by "\n". Appending a field is O(its length). Field
/// names are the format's own ASCII identifiers and are written without escaping.
struct JSONLineBuilder {
    private(set) var bytes: [UInt8]
    private var empty = true
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    init() {
        bytes = []
        bytes.reserveCapacity(320)
        bytes.append(UInt8(ascii: "{"))
    }

    /// The finished line: the object closed and a newline.
    var line: [UInt8] {
        var finished = bytes
        finished.append(UInt8(ascii: "}"))
        finished.append(UInt8(ascii: "\n"))
        return finished
    }

    mutating func field(_ name: String, _ value: String) {
        key(name)
        Self.appendString(value, to: &bytes)
    }

    mutating func field(_ name: String, _ value: String?) {
        if let value { field(name, value) }
    }

    mutating func field(_ name: String, _ value: Int) {
        key(name)
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude)
    }

    mutating func field(_ name: String, _ value: Int?) {
        if let value { field(name, value) }
    }

    mutating func field(_ name: String, _ value: UInt64) {
        key(name)
        appendDigits(UInt(value))
    }

    /// Decimal digits without a String in between. O(digits).
    private mutating func appendDigits(_ value: UInt) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            bytes.append(contentsOf: buffer[(20 - count)...])
        }
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
        for (n, v) in pairs {
            // Names here are data (header field names), so escaped like any string.
            nested.separate()
            Self.appendString(n, to: &nested.bytes)
            nested.bytes.append(UInt8(ascii: ":"))
            Self.appendString(v, to: &nested.bytes)
        }
        bytes += nested.bytes
        bytes.append(UInt8(ascii: "}"))
    }

    /// A nested object already built.
    mutating func field(_ name: String, object nested: JSONLineBuilder) {
        key(name)
        bytes += nested.bytes
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func separate() {
        if !empty { bytes.append(UInt8(ascii: ",")) }
        empty = false
    }

    /// A field name of the format (an ASCII identifier): written as is.
    private mutating func key(_ name: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: name.utf8)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// A JSON string: quote and backslash escaped, control characters (below 0x20) as
    /// \u00XX; everything else is UTF-8 as is (Swift strings are valid Unicode). O(n).
    static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Most keys, URLs and types need no escape: one copy.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: text.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xf)]])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
