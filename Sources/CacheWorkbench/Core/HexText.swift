/// Lowercase hexadecimal text for bytes (digests as file names and keys, the trace
/// checksum, the `files` manifest), and back.
public enum HexText {
    public static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            let digits: StaticString = "0123456789abcdef"
            var at = 0
            for byte in bytes {
                text[at] = digits.utf8Start[Int(byte >> 4)]
                text[at + 1] = digits.utf8Start[Int(byte & 15)]
                at += 2
            }
            return at
        }
    }

    /// The bytes `text` spells, or nil when it is not an even run of hex digits.
    public static func decode(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for at in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[at]), let low = value(digits[at + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
