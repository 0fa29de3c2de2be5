// Real image files generated in memory: a PNG (zlib stored blocks, CRC-32, Adler-32) and a
// baseline JPEG of one flat colour (SOI, DQT, SOF0 with the real width and height, DHT, SOS,
// EOI). Small encoders, not general ones: enough for an app to read the dimensions from the
// bytes and for any decoder to open them.

enum GeneratedImages {
    /// An RGBA PNG, width × height, a gradient. O(width × height).
    static func png(width: Int, height: Int) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (1 + width * 4))
        for y in 0..<height {
            raw.append(0)  // filter: none
            for x in 0..<width {
                raw += [UInt8(truncatingIfNeeded: x * 255 / max(width - 1, 1)), UInt8(truncatingIfNeeded: y * 255 / max(height - 1, 1)), 128, 255]
            }
        }
        var header: [UInt8] = bigEndian32(width) + bigEndian32(height)
        header += [8, 6, 0, 0, 0]  // 8 bits, RGBA, deflate, adaptive filtering, no interlace
        return [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
            + chunk("IHDR", header) + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }

    /// A baseline greyscale JPEG, width × height, every pixel 160. Each 8×8 block's DC
    /// coefficient is 8 × (160 − 128) = 256 with a quantiser of 1 and no AC coefficient: the
    /// first block codes a difference of 256 (category 9), the others 0. O(blocks).
    static func jpeg(width: Int, height: Int) -> [UInt8] {
        var out: [UInt8] = [0xff, 0xd8]
        out += segment(0xdb, [0x00] + [UInt8](repeating: 1, count: 64))  // DQT: table 0, all ones
        out += segment(0xc0, [8] + bigEndian16(height) + bigEndian16(width) + [1, 1, 0x11, 0])  // SOF0: 1 component
        // DHT DC 0: codes of length 2 for categories 0 ("00") and 9 ("01").
        out += segment(0xc4, [0x00, 0, 2] + [UInt8](repeating: 0, count: 14) + [0, 9])
        // DHT AC 0: codes of length 2 for EOB ("00") and 0x01 ("01", unused).
        out += segment(0xc4, [0x10, 0, 2] + [UInt8](repeating: 0, count: 14) + [0x00, 0x01])
        out += segment(0xda, [1, 1, 0x00, 0, 63, 0])  // SOS: component 1, tables 0/0, Ss 0, Se 63
        var bits = BitWriter()
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        for block in 0..<blocks {
            if block == 0 {
                bits.write(0b01, count: 2)
                bits.write(256, count: 9)
            } else {
                bits.write(0b00, count: 2)
            }
            bits.write(0b00, count: 2)  // EOB
        }
        out += bits.finished()
        out += [0xff, 0xd9]
        return out
    }

    private static func bigEndian32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    private static func bigEndian16(_ value: Int) -> [UInt8] { [8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian32(data.count) + typed + bigEndian32(Int(crc32(typed)))
    }

    private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xff, marker] + bigEndian16(payload.count + 2) + payload
    }

    /// zlib with stored (uncompressed) deflate blocks of at most 65,535 bytes.
    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let final: UInt8 = offset + count == data.count ? 1 : 0
            out += [final, UInt8(count & 0xff), UInt8(count >> 8), UInt8(~count & 0xff), UInt8((~count >> 8) & 0xff)]
            out += data[offset..<offset + count]
            offset += count
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian32(Int(b << 16 | a))
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xedb8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    private static func crc32(_ data: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xffff_ffff
        for byte in data { c = crcTable[Int((c ^ UInt32(byte)) & 0xff)] ^ (c >> 8) }
        return c ^ 0xffff_ffff
    }
}

/// Entropy-coded bits, most significant first, 0xFF bytes stuffed with 0x00, the last byte
/// padded with ones.
private struct BitWriter {
    private var bytes: [UInt8] = []
    private var current: UInt32 = 0
    private var used = 0

    mutating func write(_ value: Int, count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) {
            current = current << 1 | UInt32((value >> shift) & 1)
            used += 1
            if used == 8 { emit() }
        }
    }

    mutating func finished() -> [UInt8] {
        while used != 0 { current = current << 1 | 1; used += 1; if used == 8 { emit() } }
        return bytes
    }

    private mutating func emit() {
        let byte = UInt8(current & 0xff)
        bytes.append(byte)
        if byte == 0xff { bytes.append(0) }
        current = 0
        used = 0
    }
}
