// The app reads an image's dimensions from its bytes, as a decoder would: PNG's IHDR, JPEG's
// SOF marker. O(bytes before the SOF) for a JPEG, O(1) for a PNG.

struct ImageHeader {
    let width: Int
    let height: Int
    let contentType: String

    init?(_ bytes: [UInt8]) {
        if bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), bytes[12..<16].elementsEqual("IHDR".utf8) {
            width = Self.bigEndian(bytes, 16, 4)
            height = Self.bigEndian(bytes, 20, 4)
            contentType = "image/png"
        } else if bytes.count >= 4, bytes[0] == 0xff, bytes[1] == 0xd8, let size = Self.jpegFrameSize(bytes) {
            (width, height) = size
            contentType = "image/jpeg"
        } else {
            return nil
        }
        guard width > 0, height > 0 else { return nil }
    }

    /// Walks the marker segments to the first SOFn (not DHT C4, JPG C8, DAC CC).
    private static func jpegFrameSize(_ bytes: [UInt8]) -> (Int, Int)? {
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xff else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xff { offset += 1; continue }
            let length = bigEndian(bytes, offset + 2, 2)
            if (0xc0...0xcf).contains(marker), ![0xc4, 0xc8, 0xcc].contains(marker) {
                guard offset + 9 <= bytes.count else { return nil }
                return (bigEndian(bytes, offset + 7, 2), bigEndian(bytes, offset + 5, 2))
            }
            guard length >= 2 else { return nil }
            offset += 2 + length
        }
        return nil
    }

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
    }
}
