import WorkbenchCore
import WorkbenchMetrics
/// Width and height of an encoded image read from its header, without decoding: PNG
/// (IHDR), GIF (logical screen), JPEG (the first SOF marker; SOF0–SOF15 except DHT, JPG
/// and DAC) and WebP (VP8 lossy, VP8L lossless, VP8X extended). Used for pixel cost when a
/// HAR carries image bodies. Any input is safe: truncated or malformed headers give nil,
/// and so do dimensions whose decoded size (width × height × 4) would exceed the largest
/// object accepted (`SizeLimits`): a header claiming 0xFFFFFFFF × 0xFFFFFFFF is not an image.
public enum ImageDimensions {
    public static func read(_ bytes: UnsafeRawBufferPointer) -> (width: UInt32, height: UInt32)? {
        let found: (UInt32, UInt32)?
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            found = png(bytes)
        } else if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
            found = bytes.count >= 10 ? (UInt32(le16(bytes, 6)), UInt32(le16(bytes, 8))) : nil
        } else if bytes.starts(with: [0xFF, 0xD8]) {
            found = jpeg(bytes)
        } else if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            found = webp(bytes)
        } else {
            found = nil
        }
        guard let found, found.0 > 0, found.1 > 0, SizeLimits.pixelCost(width: found.0, height: found.1) != nil else { return nil }
        return found
    }

    public static func read(_ bytes: [UInt8]) -> (width: UInt32, height: UInt32)? {
        bytes.withUnsafeBytes { read($0) }
    }

    private static func be16(_ b: UnsafeRawBufferPointer, _ at: Int) -> Int { Int(b[at]) << 8 | Int(b[at + 1]) }
    private static func le16(_ b: UnsafeRawBufferPointer, _ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
    private static func be32(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }
    private static func le24(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16
    }

    /// The IHDR chunk is first: length, "IHDR", width, height (big-endian).
    private static func png(_ b: UnsafeRawBufferPointer) -> (UInt32, UInt32)? {
        guard b.count >= 24, Array(b[12..<16]) == Array("IHDR".utf8) else { return nil }
        return (be32(b, 16), be32(b, 20))
    }

    /// Walks the marker segments to the first start-of-frame.
    private static func jpeg(_ b: UnsafeRawBufferPointer) -> (UInt32, UInt32)? {
        var at = 2
        while at + 1 < b.count {
            guard b[at] == 0xFF else { return nil }
            var marker = b[at + 1]
            at += 2
            while marker == 0xFF {  // fill bytes
                guard at < b.count else { return nil }
                marker = b[at]
                at += 1
            }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }  // no length
            if marker == 0xD9 || marker == 0xDA { return nil }  // end of image, or scan data before any frame
            guard at + 2 <= b.count else { return nil }
            let length = be16(b, at)
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
                guard length >= 7, at + 7 <= b.count else { return nil }
                return (UInt32(be16(b, at + 5)), UInt32(be16(b, at + 3)))  // precision, height, width
            }
            at += length
        }
        return nil
    }

    private static func webp(_ b: UnsafeRawBufferPointer) -> (UInt32, UInt32)? {
        guard b.count >= 30 else { return nil }
        switch String(decoding: b[12..<16], as: UTF8.self) {
        case "VP8 ":
            // Frame tag (3 bytes), start code 9D 01 2A, then 14-bit width and height.
            guard b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A else { return nil }
            return (UInt32(le16(b, 26) & 0x3FFF), UInt32(le16(b, 28) & 0x3FFF))
        case "VP8L":
            // Signature 0x2F, then width − 1 and height − 1 in 14 bits each.
            guard b[20] == 0x2F else { return nil }
            let bits = UInt32(b[21]) | UInt32(b[22]) << 8 | UInt32(b[23]) << 16 | UInt32(b[24]) << 24
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            // Flags and reserved (4 bytes), then canvas width − 1 and height − 1, 24 bits each.
            return (le24(b, 24) + 1, le24(b, 27) + 1)
        default:
            return nil
        }
    }
}
