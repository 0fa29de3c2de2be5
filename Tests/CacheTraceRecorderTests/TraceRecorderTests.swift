import Foundation
import Testing
@testable import CacheTraceRecorder

/// A fresh folder per test, removed afterwards.
final class RecordingFolder {
    let url: URL
    init() {
        url = URL(fileURLWithPath: NSTemporaryDirectory() + "ctr-test-" + UUID().uuidString)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    /// Every line of a part, each parsed back with JSONSerialization (a line that does not
    /// parse fails the test).
    func lines(_ file: String = "recording-0.jsonl", sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        let data = try Data(contentsOf: url.appendingPathComponent(file))
        #expect(data.last == UInt8(ascii: "\n"), "every line ends with a newline", sourceLocation: sourceLocation)
        return try data.split(separator: UInt8(ascii: "\n")).map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any], sourceLocation: sourceLocation)
        }
    }

    var files: [String] { (try? FileManager.default.contentsOfDirectory(atPath: url.path).sorted()) ?? [] }
}

@Suite("CacheTraceRecorder: format v1, buffer, files, privacy")
struct TraceRecorderTests {
    @Test("the header and one event of each kind are written as format v1 says, field by field")
    func eventsOfEachKind() throws {
        let folder = RecordingFolder()
        let app = CacheConfiguration(name: "Probe", imageCache: "own LRU", memoryCostLimit: 4_194_304, costRule: "bytes_per_row*height")
        let recorder = try TraceRecorder(configuration: .init(folder: folder.url, app: app))
        recorder.image(
            key: "https://x.test/a.png", source: .network, encodedBytes: 1234, width: 100, height: 50, bytesPerRow: 400,
            decodedCost: 20000, displaySize: CGSize(width: 50, height: 25), scale: 2, contentType: "image/png")
        recorder.lifecycle(.memoryWarning)
        recorder.image(key: "thumb:7", source: .memory, url: "https://x.test/7.jpg")
        recorder.lifecycle(.background)
        recorder.lifecycle(.foreground)
        recorder.cacheConfiguration(CacheConfiguration(memoryCostLimit: 1_000_000))
        recorder.close()
        let lines = try folder.lines()
        #expect(lines.count == 7)
        let header = lines[0]
        #expect(header["format"] as? String == "cache-trace-recording" && header["version"] as? Int == 1)
        #expect(header["session"] as? String == recorder.session.uuidString && header["part"] as? Int == 0)
        #expect(header["recorder"] as? String == "CacheTraceRecorder 1.0")
        #expect(header["clock"] as? String == "monotonic" && header["time_unit"] as? String == "ns")
        #expect((header["started"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) } != nil)
        let appObject = try #require(header["app"] as? [String: Any])
        #expect(appObject["name"] as? String == "Probe" && appObject["image_cache"] as? String == "own LRU")
        #expect(appObject["memory_cost_limit"] as? Int == 4_194_304 && appObject["cost_rule"] as? String == "bytes_per_row*height")
        #expect(appObject["disk_cost_limit"] == nil && appObject.count == 4)
        #expect(header["privacy"] as? [String: String] == ["query": "kept", "keys": "plain"])

        let image = lines[1]
        #expect(image["kind"] as? String == "image" && image["key"] as? String == "https://x.test/a.png")
        #expect(image["source"] as? String == "network" && image["encoded_bytes"] as? Int == 1234)
        #expect(image["width"] as? Int == 100 && image["height"] as? Int == 50 && image["bytes_per_row"] as? Int == 400)
        #expect(image["decoded_cost"] as? Int == 20000 && image["display_width"] as? Double == 50 && image["display_height"] as? Double == 25)
        #expect(image["scale"] as? Double == 2 && image["content_type"] as? String == "image/png" && image["url"] == nil)
        #expect(lines[2]["kind"] as? String == "lifecycle" && lines[2]["event"] as? String == "memory_warning")
        #expect(lines[3]["key"] as? String == "thumb:7" && lines[3]["source"] as? String == "memory")
        #expect(lines[3]["url"] as? String == "https://x.test/7.jpg" && lines[3]["width"] == nil && lines[3].count == 5)
        #expect(lines[4]["event"] as? String == "background" && lines[5]["event"] as? String == "foreground")
        #expect(lines[6]["kind"] as? String == "config" && lines[6]["memory_cost_limit"] as? Int == 1_000_000 && lines[6].count == 3)
        // t: integers, non-decreasing.
        let times = lines.dropFirst().map { $0["t"] as? Int ?? -1 }
        #expect(times.allSatisfy { $0 >= 0 } && times == times.sorted(), "\(times)")
    }

    @Test("strings with quotes, backslashes, control characters and non-ASCII text parse back to themselves")
    func escaping() throws {
        let folder = RecordingFolder()
        let recorder = try TraceRecorder(configuration: .init(folder: folder.url))
        let keys = [
            "plain", "quote\"inside", "back\\slash", "tab\there", "new\nline", "cr\rnul\u{0}bell\u{7}", "\u{1f}unit", "del\u{7f}",
            "é ü 中文 🦊", "\u{2028}line separator", "\"\\\"\\", "",
        ]
        for key in keys { recorder.image(key: key, source: .unknown, contentType: key) }
        recorder.close()
        let lines = try folder.lines()
        #expect(lines.dropFirst().map { $0["key"] as? String } == keys)
        #expect(lines.dropFirst().map { $0["content_type"] as? String } == keys)
        // Header names are data too (scripts/fuzz recorder found them written unescaped).
        var line = JSONLineBuilder()
        line.field("response_headers", object: keys.map { ($0, $0) })
        let headers = try JSONSerialization.jsonObject(with: Data(line.line)) as? [String: [String: String]]
        #expect(headers?["response_headers"] == Dictionary(uniqueKeysWithValues: keys.map { ($0, $0) }))
        // Control characters are \u00XX escapes: the raw file has no byte below 0x20 but "\n".
        let raw = try Data(contentsOf: folder.url.appendingPathComponent("recording-0.jsonl"))
        #expect(!raw.contains { $0 < 0x20 && $0 != UInt8(ascii: "\n") })
        #expect(String(decoding: raw, as: UTF8.self).contains(#""cr\rnul\u0000bell\u0007""#) == false)
        #expect(String(decoding: raw, as: UTF8.self).contains(#""cr\u000dnul\u0000bell\u0007""#))
    }

    @Test("a full buffer drops and counts, without blocking: capacity 4, 10 events → 4 written, a dropped line of 6")
    func fullBufferDrops() throws {
        let folder = RecordingFolder()
        // The writer only wakes on flush: batch larger than the buffer, an hour's interval.
        let recorder = try TraceRecorder(configuration: .init(folder: folder.url, bufferCapacity: 4, batchSize: 100, flushInterval: .seconds(3600)))
        for i in 0..<10 { recorder.image(key: "k\(i)", source: .network) }
        #expect(recorder.droppedEvents == 6)
        recorder.flush()
        recorder.image(key: "after", source: .memory)
        recorder.close()
        let lines = try folder.lines()
        #expect(lines.dropFirst().compactMap { $0["key"] as? String } == ["k0", "k1", "k2", "k3", "after"])
        let dropped = lines.filter { $0["kind"] as? String == "dropped" }
        #expect(dropped.count == 1 && dropped[0]["count"] as? Int == 6)
        #expect(lines[5]["kind"] as? String == "dropped", "written after the four it kept, before what came later")
        #expect(recorder.droppedEvents == 6)
    }

    @Test("rotation: parts of at most maxFileBytes, each with its header; beyond maxFiles the oldest is deleted")
    func rotation() throws {
        let folder = RecordingFolder()
        let recorder = try TraceRecorder(configuration: .init(
            folder: folder.url, maxFileBytes: 1000, maxFiles: 2, app: CacheConfiguration(memoryCostLimit: 100)))
        recorder.cacheConfiguration(CacheConfiguration(memoryCostLimit: 200))
        for i in 0..<100 { recorder.image(key: String(format: "key-%03d", i), source: .network) }
        recorder.close()
        let files = folder.files
        #expect(files.count == 2, "\(files)")
        let parts = files.compactMap { Int($0.dropFirst("recording-".count).dropLast(".jsonl".count)) }.sorted()
        #expect(parts.count == 2 && parts[1] == parts[0] + 1 && parts[0] >= 1, "\(files)")
        var keys: [String] = []
        for part in parts {
            let name = "recording-\(part).jsonl"
            let size = try FileManager.default.attributesOfItem(atPath: folder.url.appendingPathComponent(name).path)[.size] as? Int ?? 0
            #expect(size <= 1000, "\(name): \(size) bytes")
            let lines = try folder.lines(name)
            #expect(lines[0]["format"] as? String == "cache-trace-recording" && lines[0]["part"] as? Int == part)
            #expect(lines[0]["session"] as? String == recorder.session.uuidString)
            // A later part's header states the configuration in force: the latest recorded.
            #expect((lines[0]["app"] as? [String: Any])?["memory_cost_limit"] as? Int == 200)
            #expect(lines.dropFirst().allSatisfy { $0["kind"] as? String == "image" })
            keys += lines.dropFirst().compactMap { $0["key"] as? String }
        }
        // The two newest parts hold the last events, contiguous, ending with the last one.
        let expected = (100 - keys.count..<100).map { String(format: "key-%03d", $0) }
        #expect(keys == expected && keys.count > 0)
    }

    @Test("files are created exclusively: an existing file, a link in its place or a linked folder is refused and left alone")
    func exclusiveCreation() throws {
        let folder = RecordingFolder()
        let existing = folder.url.appendingPathComponent("recording-0.jsonl")
        try Data("mine".utf8).write(to: existing)
        #expect(throws: RecorderError.fileExists(path: existing.path)) { try TraceRecorder(configuration: .init(folder: folder.url)) }
        #expect(try Data(contentsOf: existing) == Data("mine".utf8))

        let target = folder.url.appendingPathComponent("target")
        try Data("target".utf8).write(to: target)
        try FileManager.default.createSymbolicLink(atPath: folder.url.appendingPathComponent("linked-0.jsonl").path, withDestinationPath: target.path)
        #expect(throws: RecorderError.self) { try TraceRecorder(configuration: .init(folder: folder.url, name: "linked")) }
        #expect(try Data(contentsOf: target) == Data("target".utf8))

        let linkedFolder = folder.url.appendingPathComponent("linked-folder")
        let realFolder = folder.url.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: realFolder, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: linkedFolder.path, withDestinationPath: realFolder.path)
        #expect(throws: RecorderError.self) { try TraceRecorder(configuration: .init(folder: linkedFolder)) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: realFolder.path).isEmpty)
        #expect(throws: RecorderError.self) { try TraceRecorder(configuration: .init(folder: folder.url, name: "a/b")) }
    }

    @Test("privacy: query strings dropped from keys and URLs; hashed keys are h: + the first 16 bytes of HMAC-SHA256(salt, text)")
    func privacy() throws {
        let folder = RecordingFolder()
        let recorder = try TraceRecorder(configuration: .init(folder: folder.url, privacy: RecorderPrivacy(dropsQueryStrings: true)))
        recorder.image(key: "https://x.test/a.png?token=secret&w=100", source: .network, url: "https://x.test/b.png?sig=1")
        recorder.close()
        let lines = try folder.lines()
        #expect(lines[0]["privacy"] as? [String: String] == ["query": "dropped", "keys": "plain"])
        #expect(lines[1]["key"] as? String == "https://x.test/a.png" && lines[1]["url"] as? String == "https://x.test/b.png")

        // RFC 4231 test case 1 as salt and text: HMAC = b0344c61d8db38535ca8afceaf0bf12b 881dc200….
        let hashedFolder = RecordingFolder()
        let salt = [UInt8](repeating: 0x0b, count: 20)
        let hashed = try TraceRecorder(configuration: .init(folder: hashedFolder.url, privacy: RecorderPrivacy(hashSalt: salt)))
        hashed.image(key: "Hi There", source: .memory, url: "Hi There")
        hashed.image(key: "Hi There", source: .memory)
        hashed.image(key: "Hi There!", source: .memory)
        hashed.close()
        let hashedLines = try hashedFolder.lines()
        #expect(hashedLines[0]["privacy"] as? [String: String] == ["query": "kept", "keys": "hashed"])
        #expect(hashedLines[1]["key"] as? String == "h:b0344c61d8db38535ca8afceaf0bf12b")
        #expect(hashedLines[1]["url"] as? String == "h:b0344c61d8db38535ca8afceaf0bf12b")
        #expect(hashedLines[2]["key"] as? String == "h:b0344c61d8db38535ca8afceaf0bf12b", "equal texts stay equal")
        let other = try #require(hashedLines[3]["key"] as? String)
        #expect(other != "h:b0344c61d8db38535ca8afceaf0bf12b" && other.count == 34 && other.hasPrefix("h:"))
    }

    @Test("events from many threads: every one written once, t non-decreasing in the file")
    func concurrentCallers() throws {
        let folder = RecordingFolder()
        let recorder = try TraceRecorder(configuration: .init(folder: folder.url, bufferCapacity: 100_000, batchSize: 64))
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<500 { recorder.image(key: "\(thread)-\(i)", source: .memory) }
        }
        recorder.close()
        let lines = try folder.lines().dropFirst()
        #expect(lines.count == 4000 && Set(lines.compactMap { $0["key"] as? String }).count == 4000)
        let times = lines.map { $0["t"] as? Int ?? -1 }
        #expect(times == times.sorted())
        #expect(recorder.droppedEvents == 0)
    }
}

@Suite("CacheTraceRecorder: SHA-256 and HMAC-SHA256 against FIPS 180-4 and RFC 4231")
struct HashVectorTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    @Test("SHA-256: FIPS 180-4 examples (abc, the 448-bit message, empty, a million a's)")
    func sha256() {
        #expect(Self.hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(Self.hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // 55, 56 and 64 bytes: the padding's boundary cases (checked with sha256sum).
        #expect(Self.hex(SHA256.hash([UInt8](repeating: 0x61, count: 55))) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        #expect(Self.hex(SHA256.hash([UInt8](repeating: 0x61, count: 56))) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        #expect(Self.hex(SHA256.hash([UInt8](repeating: 0x61, count: 64))) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
    }

    @Test("HMAC-SHA256: RFC 4231 test cases 1, 2, 3, 4, 6, 7")
    func hmac() {
        let cases: [(key: [UInt8], data: [UInt8], mac: String)] = [
            ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50), "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
            (Self.bytes("0102030405060708090a0b0c0d0e0f10111213141516171819"), [UInt8](repeating: 0xcd, count: 50),
             "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
            ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
             "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
            ([UInt8](repeating: 0xaa, count: 131),
             Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
             "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
        ]
        for (index, vector) in cases.enumerated() {
            #expect(Self.hex(HMACSHA256.authenticationCode(key: vector.key, message: vector.data)) == vector.mac, "case \(index)")
        }
    }
}

/// Every seed of Fuzz/corpus/recorder and every input scripts/fuzz found crashing
/// (Fuzz/crashes/recorder) goes through the fuzzer's property: as a value and as a header
/// name, the text comes back unchanged through JSONSerialization.
@Suite("CacheTraceRecorder: fuzz regressions")
struct RecorderFuzzRegressionTests {
    @Test("the recorder's fuzz inputs round-trip as values and header names")
    func fuzzInputs() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let inputs = ["Fuzz/corpus/recorder", "Fuzz/crashes/recorder"].flatMap { folder -> [URL] in
            let url = root.appendingPathComponent(folder)
            return ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted().map { url.appendingPathComponent($0) }
        }
        #expect(inputs.count >= 3)
        for input in inputs {
            let text = String(decoding: try Data(contentsOf: input), as: UTF8.self)
            var line = JSONLineBuilder()
            line.field("key", text)
            line.field("response_headers", object: [(text, text)])
            let object = try JSONSerialization.jsonObject(with: Data(line.line)) as? [String: Any]
            #expect(object?["key"] as? String == text, "\(input.lastPathComponent)")
            #expect((object?["response_headers"] as? [String: String])?[text] == text, "\(input.lastPathComponent)")
        }
    }
}
