import Testing
@testable import CacheWorkbench
@testable import WorkbenchReports
@testable import WorkbenchCommands
@testable import WorkbenchCore
@testable import WorkbenchMetrics
@testable import WorkbenchTraces
@testable import WorkbenchHTTP
@testable import WorkbenchBackends
@testable import WorkbenchSimulation
@testable import WorkbenchExperiments

/// Tiny image headers built byte by byte, as the encoders write them.
enum TinyImages {
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le24(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }

    static func png(_ w: UInt32, _ h: UInt32) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(w) + be32(h) + [8, 6, 0, 0, 0] + [0, 0, 0, 0]
    }

    static func gif(_ w: Int, _ h: Int) -> [UInt8] { Array("GIF89a".utf8) + le16(w) + le16(h) + [0xF7, 0, 0] }

    /// SOI, APP0 (JFIF), a DQT, fill bytes, then a start-of-frame `sof` (C0 baseline, C2 progressive).
    static func jpeg(_ w: Int, _ h: Int, sof: UInt8 = 0xC0) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        bytes += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        bytes += [0xFF, 0xFF]  // fill
        bytes += [0xFF, 0xC4, 0x00, 0x04, 0x00, 0x00]  // a DHT is not a frame
        bytes += [0xFF, sof, 0x00, 0x11, 0x08] + [UInt8(h >> 8), UInt8(h & 0xFF), UInt8(w >> 8), UInt8(w & 0xFF)] + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        return bytes
    }

    static func riff(_ chunk: String, _ payload: [UInt8]) -> [UInt8] {
        Array("RIFF".utf8) + le32(4 + 8 + payload.count) + Array("WEBP".utf8) + Array(chunk.utf8) + le32(payload.count) + payload
    }

    static func webpLossy(_ w: Int, _ h: Int) -> [UInt8] { riff("VP8 ", [0x30, 0x01, 0x00, 0x9D, 0x01, 0x2A] + le16(w) + le16(h) + [0, 0]) }

    static func webpLossless(_ w: Int, _ h: Int) -> [UInt8] {
        let bits = (w - 1) | (h - 1) << 14
        return riff("VP8L", [0x2F] + le32(bits) + [0, 0, 0, 0, 0])
    }

    static func webpExtended(_ w: Int, _ h: Int) -> [UInt8] { riff("VP8X", [0x10, 0, 0, 0] + le24(w - 1) + le24(h - 1)) }
}

@Suite("Image dimensions from headers", .onTestWorkers)
struct ImageDimensionsTests {
    @Test("PNG, GIF, JPEG (baseline and progressive), WebP VP8, VP8L and VP8X")
    func formats() {
        let cases: [([UInt8], UInt32, UInt32)] = [
            (TinyImages.png(1170, 1463), 1170, 1463), (TinyImages.gif(450, 300), 450, 300),
            (TinyImages.jpeg(1290, 1720), 1290, 1720), (TinyImages.jpeg(64, 48, sof: 0xC2), 64, 48),
            (TinyImages.webpLossy(800, 600), 800, 600), (TinyImages.webpLossless(16383, 1), 16383, 1),
            (TinyImages.webpExtended(4000, 3000), 4000, 3000),
        ]
        for (bytes, width, height) in cases {
            let found = ImageDimensions.read(bytes)
            #expect(found?.width == width && found?.height == height, "\(bytes.prefix(16))")
        }
    }

    @Test("truncated or malformed headers give nil, never a crash")
    func malformed() {
        let images = [TinyImages.png(10, 10), TinyImages.gif(10, 10), TinyImages.jpeg(10, 10), TinyImages.webpLossy(10, 10),
                      TinyImages.webpLossless(10, 10), TinyImages.webpExtended(10, 10)]
        for image in images {
            for cut in 0..<image.count where ImageDimensions.read(Array(image.prefix(cut))) != nil {
                // Only a cut after the dimensions may still read them.
                #expect(cut >= 10)
            }
        }
        #expect(ImageDimensions.read([]) == nil)
        #expect(ImageDimensions.read(Array("not an image".utf8)) == nil)
        #expect(ImageDimensions.read([0xFF, 0xD8, 0xFF, 0xDA, 0, 2]) == nil)  // scan before any frame
        #expect(ImageDimensions.read([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01]) == nil)  // segment length below 2
        #expect(ImageDimensions.read(TinyImages.png(0, 5)) == nil)  // zero width
    }
}
