/// Text from the input, made safe to put in a one-line error message: control bytes and
/// invalid UTF-8 are escaped (`\x00`, `\n`), and long text is cut with its length said, so a
/// 10 MB field or a terminal escape sequence never reaches the user's terminal raw.
public enum ErrorText {
    /// At most `limit` characters of `bytes`, escaped, in single quotes.
    public static func quote<Bytes: Collection<UInt8>>(_ bytes: Bytes, limit: Int = 60) -> String {
        var shown = ""
        var characters = 0
        var iterator = bytes.makeIterator()
        var pending: [UInt8] = []
        var truncated = false
        while let byte = iterator.next() {
            if characters >= limit {
                truncated = true
                break
            }
            pending.append(byte)
            // Decode one scalar at a time: printable ones as they are, the rest escaped.
            let first = pending[0]
            let needed = first < 0x80 ? 1 : first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : 2
            guard pending.count == needed else { continue }
            // The limit counts what is shown: an escaped byte (`\x00`) counts 4.
            if let text = String(validating: pending, as: UTF8.self), let scalar = text.unicodeScalars.first {
                let shownScalar = escaped(scalar)
                shown += shownScalar
                characters += shownScalar.count
            } else {
                for byte in pending { shown += "\\x" + hex(byte) }
                characters += 4 * pending.count
            }
            pending.removeAll()
        }
        for byte in pending { shown += "\\x" + hex(byte) }
        return "'\(shown)'" + (truncated ? "… (\(bytes.count) bytes)" : "")
    }

    public static func quote(_ text: String, limit: Int = 60) -> String { quote(Array(text.utf8), limit: limit) }

    /// A whole message with its control characters escaped (already-quoted fields stay
    /// as they are; a raw newline or escape byte from anywhere becomes `\n`, `\x1b`).
    public static func escapingControls(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) {
                out += scalar == "\n" ? "\\n" : scalar == "\t" ? "\\t" : scalar == "\r" ? "\\r" : "\\x" + hex(UInt8(scalar.value))
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Multi-line text (a table) with the control characters of each line escaped, its
    /// line breaks kept: a trace named with terminal escapes never reaches the terminal raw.
    public static func escapingControls(lines text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { escapingControls(String($0)) }.joined(separator: "\n")
    }

    /// A name (a path) as it is when it is short and printable, else quoted and escaped.
    public static func name(_ text: String) -> String {
        let quoted = quote(text, limit: 200)
        return quoted == "'\(text)'" && !text.contains("'") ? text : quoted
    }

    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        case "\\": return "\\\\"
        case "'": return "\\'"
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) {
                return "\\x" + hex(UInt8(truncatingIfNeeded: scalar.value))
            }
            if scalar.properties.generalCategory == .format || scalar.properties.generalCategory == .control
                || scalar.value == 0x2028 || scalar.value == 0x2029 {
                return "\\u{" + String(scalar.value, radix: 16) + "}"
            }
            return String(scalar)
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
    }
}
