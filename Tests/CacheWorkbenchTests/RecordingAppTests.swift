import Foundation
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

/// Issue 42 §5: Examples/RecordingApp stands in for an iOS app recorded with
/// CacheTraceRecorder. It is built here against the workbench by path, fetches real PNG and
/// JPEG images from its own loopback image-server and records every lookup.
@Suite("Examples/RecordingApp: a recorded app", .serialized, .onTestWorkers)
struct RecordingAppTests {
    static let example = CustomBackendTests.root.appendingPathComponent("Examples/RecordingApp").path
    static var products: String { example + "/.build/debug" }

    /// Builds the example once per test (incremental after the first).
    static func build() throws -> Bool {
        let build = try runBounded(1800, "/usr/bin/env", ["swift", "build", "--package-path", example])
        #expect(build.status == 0, "\(build.out.suffix(2000))\(build.err.suffix(2000))")
        return build.status == 0
    }

    /// The parsed lines of a recording; a line that is not a JSON object fails the test.
    static func lines(_ path: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.last == UInt8(ascii: "\n"))
        return try data.split(separator: UInt8(ascii: "\n")).map {
            try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any], "\(String(decoding: $0, as: UTF8.self))")
        }
    }

    /// Starts image-server, logging what it sent to `log`; returns it and its port.
    static func startServer(log: String) throws -> (Process, Int) {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: products + "/image-server")
        server.arguments = ["--log", log]
        let output = Pipe()
        server.standardOutput = output
        // Not the test runner's stderr: a server outliving a failed test must not hold its pipe.
        server.standardError = FileHandle.nullDevice
        try server.run()
        var first = Data()
        while !first.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            first += chunk
        }
        let port = Int(String(decoding: first, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        return (server, port)
    }

    @Test("the app's recording: lines parse, events by kind, sources as a hand-run LRU at 1 MiB says, response headers as the server sent them, no credentials; the build compiled no Crypto, SQLite or jemalloc")
    func recordedApp() throws {
        guard try Self.build() else { return }
        let folder = TemporaryFolder()
        let (server, port) = try Self.startServer(log: folder.path + "/server.jsonl")
        // SIGKILL: a child started from a test thread inherits its blocked signals (SIGTERM too).
        defer { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() }
        #expect(port > 0)
        try FileManager.default.createDirectory(atPath: folder.path + "/out", withIntermediateDirectories: false)
        let run = try runBounded(120, Self.products + "/recording-app", ["--server", "http://127.0.0.1:\(port)", "--out", folder.path + "/out"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.hasPrefix("RecordingApp: 60 lookups (memory 17, network 43)"), "\(run.out)")
        let recording = folder.path + "/out/recording-0.jsonl"
        let lines = try Self.lines(recording)
        let header = try #require(lines.first)
        #expect(header["format"] as? String == "cache-trace-recording" && header["version"] as? Int == 1)
        let app = header["app"] as? [String: Any] ?? [:]
        #expect(app["memory_cost_limit"] as? Int == 1_048_576 && app["cost_rule"] as? String == "bytes_per_row*height")
        let events = lines.dropFirst()
        var kinds: [String: Int] = [:]
        for event in events { kinds[event["kind"] as? String ?? "?", default: 0] += 1 }
        #expect(kinds == ["image": 60, "http": 43, "lifecycle": 3], "\(kinds)")
        let times = events.map { $0["t"] as? Int ?? -1 }
        #expect(times == times.sorted() && times.first ?? -1 >= 0)

        // Sources: the app's LRU at 1 MiB charged width × 4 × height, replayed by hand (a Python
        // OrderedDict) over the 60 lookups, emptied before lookup 31 (the memory warning).
        let images = events.filter { $0["kind"] as? String == "image" }
        let sources = images.map { ($0["source"] as? String)?.prefix(1) ?? "?" }.joined()
        #expect(sources == "nnnnmmnmnmmnmnmmnnnmmmnnnnnnnnnnnnnmnmnmnnnnmnnnmnnmnnnnnnnn", "\(sources)")
        // Lifecycle: the warning before image 31, background and foreground before image 45.
        let order = events.compactMap { $0["kind"] as? String == "http" ? nil : ($0["event"] as? String ?? "i") }
        let imagesBefore = { (event: String) in order.prefix { $0 != event }.filter { $0 == "i" }.count }
        #expect(imagesBefore("memory_warning") == 30 && imagesBefore("background") == 44 && imagesBefore("foreground") == 44)
        #expect(order.firstIndex(of: "foreground") == order.firstIndex(of: "background").map { $0 + 1 })
        // Decoded facts read from the bytes: poster.jpg is 640 × 480, charged 640 × 4 × 480.
        let poster = try #require(images.first { ($0["key"] as? String)?.hasSuffix("/poster.jpg") == true })
        #expect(poster["width"] as? Int == 640 && poster["height"] as? Int == 480 && poster["bytes_per_row"] as? Int == 2560)
        #expect(poster["decoded_cost"] as? Int == 1_228_800 && poster["content_type"] as? String == "image/jpeg")
        #expect(poster["display_width"] as? Double == 320 && poster["scale"] as? Double == 2)

        // Every http event's response headers are what the server sent for that request (names
        // compared case-insensitively: Foundation normalises them, "ETag" arrives as "Etag"),
        // except Set-Cookie, which a recording never keeps.
        let sent = try Self.lines(folder.path + "/server.jsonl")
        let http = events.filter { $0["kind"] as? String == "http" }
        #expect(http.count == sent.count, "every transaction reached the server (corelibs' URLCache stores nothing)")
        for (recorded, served) in zip(http, sent) {
            let url = recorded["url"] as? String ?? ""
            #expect(url == "http://127.0.0.1:\(port)" + (served["path"] as? String ?? ""))
            #expect(recorded["status"] as? Int == served["status"] as? Int && recorded["source"] as? String == "network")
            func lowered(_ fields: Any?) -> [String: String] {
                Dictionary((fields as? [String: String] ?? [:]).map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
            }
            var expected = lowered(served["headers"])
            expected["set-cookie"] = nil
            #expect(lowered(recorded["response_headers"]) == expected, "\(url)")
            #expect(recorded["body_bytes"] as? Int == Int(expected["content-length"] ?? ""))
        }
        // The app sent Authorization and Cookie, the server Set-Cookie: none is in the file.
        let raw = try String(contentsOfFile: recording, encoding: .utf8)
        for secret in ["app-token-123", "app-cookie-456", "server-secret", "authorization", "cookie"] {
            #expect(!raw.lowercased().contains(secret), "\(secret)")
        }

        // The loop closed (issue 42 §3, §5): the workbench's model of the app's cache (a dictionary
        // + LRU purged back to its limit after each add, emptied on a warning: AF's cache with
        // purge-target 1) at the app's recorded limit, its recorded costs and its recorded
        // warning, gets the app's outcome on every request; the policy-only lru, which ignores
        // warnings, charged encoded bytes, does not (a counterfactual: the check can fail).
        let replay = try bench([
            "run", "--trace", recording, "--backend", "autopurge,lru", "--purge-target", "1", "--capacity", "recorded",
            "--memory-warning", "recorded", "--no-timing", "--csv", folder.path + "/r.csv", "--disagreements", folder.path + "/d.csv",
        ])
        #expect(replay.status == 0, "\(replay.err)")
        let rows = Dictionary(uniqueKeysWithValues: try RunOutputTests.rows(folder.path + "/r.csv").map { ($0["backend"]!, $0) })
        let model = try #require(rows["autopurge"])
        #expect(model["capacity_bytes"] == "1048576" && model["cost_model"] == "pixels" && model["cost_from_recorded"] == "60")
        #expect(model["app_compared"] == "60" && model["app_agreeing"] == "60" && model["hits"] == "17", "\(model)")
        #expect(Double(model["app_hit_ratio"] ?? "") == 17.0 / 60, "\(model["app_hit_ratio"] ?? "")")
        #expect(replay.out.contains("autopurge at 1MiB: app recorded 28.33% memory hits; autopurge agrees on 60 of 60 requests"), "\(replay.out)")
        let counterfactual = try #require(rows["lru"])
        #expect(counterfactual["app_compared"] == "60" && Int(counterfactual["app_agreeing"] ?? "") ?? 60 < 60)
        let listed = try String(contentsOfFile: folder.path + "/d.csv", encoding: .utf8).split(separator: "\n").dropFirst()
        #expect(listed.count == 60 - (Int(counterfactual["app_agreeing"] ?? "") ?? 0) && listed.allSatisfy { CSVRowText.fields(of: String($0))[1] == "lru" })

        // The app links the recorder alone: nothing of SQLite, jemalloc or the
        // workbench was compiled (SwiftPM plans their folders, with no object in them) or linked.
        let buildFolder = Self.products
        let compiled = try FileManager.default.contentsOfDirectory(atPath: buildFolder).filter { $0.hasSuffix(".build") }.filter { name in
            let objects = FileManager.default.enumerator(atPath: buildFolder + "/" + name)?.contains { ($0 as? String)?.hasSuffix(".o") == true }
            return objects == true
        }
        #expect(Set(compiled) == ["CacheTraceRecorder.build", "image_server.build", "recording_app.build"], "\(compiled.sorted())")
        // (libssl and libcrypto do appear: through FoundationNetworking's libcurl, so the
        // workbench's own targets, which would link it for SHA-256, are absent from the build above.)
        let linked = try runBounded(60, "/usr/bin/ldd", [buildFolder + "/recording-app"])
        #expect(linked.status == 0 && linked.out.contains("libFoundationNetworking"))
        for library in ["jemalloc", "sqlite"] { #expect(!linked.out.lowercased().contains(library), "\(library)") }
    }

    @Test("a recording process killed with SIGKILL mid-write: every whole line parses, in order; at most the last is torn")
    func killedMidWrite() throws {
        guard try Self.build() else { return }
        let folder = TemporaryFolder()
        let events = 20_000
        let run = try runBounded(120, Self.products + "/recording-app", ["--out", folder.path, "--crash-after", String(events)])
        // timeout passes the child's death on: status 9 (its own SIGKILL) or 137 (128 + 9).
        #expect(run.status == 9 || run.status == 137, "killed by SIGKILL: \(run.status) \(run.err)")
        let data = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/recording-0.jsonl"))
        var pieces = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let tail = pieces.removeLast()  // after the last "\n": empty unless the last line is torn
        let whole = try pieces.map { try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) }
        #expect(whole.first?["format"] as? String == "cache-trace-recording")
        let kept = whole.dropFirst()
        #expect(kept.count < events, "killed before the writer finished")
        #expect(kept.allSatisfy { $0["kind"] as? String == "image" })
        let times = kept.map { $0["t"] as? Int ?? -1 }
        #expect(times == times.sorted())
        let torn = !tail.isEmpty
        if torn { #expect((try? JSONSerialization.jsonObject(with: Data(tail))) == nil, "a torn line is not a JSON object") }
        // The workbench reads it back: the whole lines kept, the torn one dropped and counted.
        let stats = try bench(["stats", "--trace", folder.path + "/recording-0.jsonl"])
        #expect(stats.status == 0, "\(stats.err)")
        #expect(stats.out.contains("requests            \(kept.count)\n"), "\(stats.out)")
        #expect(stats.out.contains("torn last line      " + (torn ? "yes" : "no")), "\(stats.out)")
        print("RecordingAppTests.killedMidWrite: \(kept.count) rows kept of \(events) recorded; last line torn: \(torn ? "yes (\(tail.count) bytes)" : "no")")
    }
}
