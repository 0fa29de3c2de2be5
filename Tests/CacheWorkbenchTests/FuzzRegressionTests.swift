import Foundation
import Testing
@testable import CacheWorkbench

/// Every seed in `Fuzz/corpus/` and every input `scripts/fuzz` ever found crashing (kept
/// in `Fuzz/crashes/`) goes through its parser on each test run: each must end in
/// requests or a clean error, never a crash.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func inputs(_ parser: String) -> [String] {
        ["Fuzz/corpus/\(parser)", "Fuzz/crashes/\(parser)"].flatMap { folder -> [String] in
            let path = root.appendingPathComponent(folder).path
            return ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 }
        }
    }

    @Test("CSV inputs read or fail cleanly")
    func csv() throws {
        let inputs = Self.inputs("csv")
        #expect(inputs.count >= 3)
        for path in inputs {
            for skipBad in [false, true] {
                do {
                    let reader = try CSVTraceReader(path: path, options: ReadOptions(skipBadRows: skipBad))
                    while let chunk = try reader.nextChunk() { #expect(chunk.allSatisfy { $0.size >= 0 }) }
                } catch is TraceError {}
            }
        }
    }

    @Test("HAR inputs read or fail cleanly")
    func har() throws {
        let inputs = Self.inputs("har")
        #expect(inputs.count >= 1)
        for path in inputs {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            do {
                let (requests, _) = try HARTraceReader.parse(data, path: path, filter: try HARFilter([:]), keepKeyNames: true, skipBad: true)
                #expect(zip(requests, requests.dropFirst()).allSatisfy { $0.time <= $1.time })
            } catch is TraceError {}
        }
    }

    @Test("image inputs give positive dimensions or nil; the seeds all read")
    func images() throws {
        let inputs = Self.inputs("image")
        #expect(inputs.count >= 6)
        for path in inputs {
            let found = ImageDimensions.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
            if path.contains("/corpus/") { #expect(found != nil, "\(path)") }
            if let found { #expect(found.width > 0 && found.height > 0) }
        }
    }
}
