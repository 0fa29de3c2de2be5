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

/// Every seed in `Fuzz/corpus/` and every input `scripts/fuzz` ever found crashing (kept
/// in `Fuzz/crashes/`) goes through its parser on each test run: each must end in
/// requests or a clean error, never a crash.
@Suite("Fuzz regressions", .onTestWorkers)
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

    @Test("app-recording inputs read or fail cleanly, in both streams; the seeds all read")
    func appRecording() throws {
        let inputs = Self.inputs("app-recording")
        #expect(inputs.count >= 3)
        for path in inputs {
            for stream in ["image", "http"] {
                for skipBad in [false, true] {
                    let options = ReadOptions(skipBadRows: skipBad, formatOptions: [AppRecordingReader.streamOption: stream])
                    do {
                        let source = try AppRecordingReader.open(path: path, options: options)
                        var requests: [Request] = []
                        while try source.append(to: &requests, limit: 1000) > 0 {}
                        #expect(zip(requests, requests.dropFirst()).allSatisfy { $0.time <= $1.time })
                        if path.contains("/corpus/") && stream == "image" { #expect(!requests.isEmpty, "\(path)") }
                    } catch is TraceError {
                        #expect(!path.contains("/corpus/"), "\(path)")
                    }
                }
            }
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

    @Test("line-format inputs read or fail cleanly", arguments: ["wikimedia", "webcachesim", "twitter", "cachelib", "tencent", "libcachesim-csv", "oracle-general", "arc-lis", "lirs", "vscsi", "lcs", "libcachesim-txt"])
    func lineFormats(format: String) throws {
        let inputs = Self.inputs(format)
        #expect(inputs.count >= 1)
        let folder = TemporaryFolder()
        for path in inputs {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            var options: [String: String] = [:]
            if format == "libcachesim-csv", let newline = bytes.firstIndex(of: 0x0A) {  // the harness's option line
                let parts = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: ";", omittingEmptySubsequences: false)
                for (name, value) in zip(["columns", "header", "delimiter"], parts) where !value.isEmpty { options[name] = String(value) }
                bytes = Array(bytes[(newline + 1)...])
            }
            let file = folder.bytes("input", bytes)
            for skipBad in [false, true] {
                do {
                    let trace = try TraceFile(path: file, format: TraceFormat.named(format), skipBadRows: skipBad, formatOptions: options)
                    let requests = try InMemoryTrace.load(trace, keepKeyNames: true).requests
                    #expect(requests.allSatisfy { $0.size >= 0 && $0.size <= SizeLimits.largestObject })
                    if path.contains("/corpus/") { #expect(!requests.isEmpty, "\(path)") }
                } catch is TraceError {} catch is WorkbenchError {}
            }
            // `--preload` (binary records kept packed) reads the same or fails the same.
            let trace = try TraceFile(path: file, format: TraceFormat.named(format), formatOptions: options)
            let loaded = try? InMemoryTrace.load(trace, keepKeyNames: false).requests
            var preloaded: [Request]?
            if let packed = try? InMemoryTrace.preload(trace, keepKeyNames: false), let cursor = try? packed.open(keepKeyNames: false) {
                var all: [Request] = []
                while let chunk = try? cursor.nextChunk() { all += chunk }
                preloaded = all
            }
            #expect(preloaded == loaded, "\(path)")
        }
    }

    @Test("URL inputs give plausible dimensions or nil; the seeds all do")
    func urls() throws {
        let inputs = Self.inputs("url")
        #expect(inputs.count >= 4)
        for path in inputs {
            let found = ImageURLDimensions.infer(String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self))
            if path.contains("/corpus/") { #expect(found != nil, "\(path)") }
            if let found { #expect(SizeLimits.pixelCost(width: found.width, height: found.height) != nil) }
        }
    }

    @Test("option inputs parse or fail cleanly")
    func options() throws {
        // 16 seeds and 1 crash; each of the 6 parsers below is reached by at least one.
        let inputs = Self.inputs("options")
        #expect(inputs.count >= 17)
        var reached = Set<UInt8>()
        for path in inputs {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let kind = try #require(bytes.first, "\(path) is empty: the harness reads its first byte")
            reached.insert(kind % 6)
            let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
            switch kind % 6 {
            case 0: for capacity in (try? Capacity.list(parsing: text)) ?? [] { #expect(capacity.resolve(workingSetBytes: 1 << 80) <= SizeLimits.largestCapacity) }
            case 1: _ = Capacity.bytes(parsing: text)
            case 2: _ = try? MemoryWarningSchedule(parsing: text)
            case 3: _ = try? LibCacheSimCSVFormat(options: ["columns": text])
            case 4:
                for capacity in (try? CapacitySweep.capacities(parsing: text, points: 2 + Int(kind / 6) % 49, spacing: .log)) ?? [] {
                    #expect(capacity.resolve(workingSetBytes: 1 << 80) <= SizeLimits.largestCapacity)
                }
                for item in BackendListText.items(text) { _ = try? BackendListText.variant(item) }
                if let parts = try? TierOptionText.parts(text) { #expect(text.dropFirst(5) == parts.memory + "+" + parts.disk) }
                _ = try? BackendRegistry.list(parsing: text)  // names, groups, variants and tiers resolved
                #expect(CSVRowText.unescape(CSVRowText.escape(text)) == text)
            case 5:
                _ = try? ReplayOptionText.warmup(text)
                for name in ["obl", "pg"] {
                    guard let choice = try? PrefetchChoice(parsing: name, params: text, backend: "lru") else { continue }
                    var prefetcher = choice.make(capacity: Int(kind) * 97 + 1)
                    for (index, byte) in text.utf8.enumerated() {
                        let id = UInt64(byte % 16) &+ (index.isMultiple(of: 7) ? .max : 0)
                        prefetcher.found(id, size: Int(byte), hit: byte.isMultiple(of: 2))
                        for candidate in prefetcher.candidates(after: id) { #expect(candidate.size >= 0) }
                    }
                }
                if case .trim(let share)? = try? TierWarningResponse(parsing: text) { #expect(share >= 0 && share < 1) }
                if let bytes = try? TierOptionText.diskCapacity(text) { #expect(bytes > 0 && bytes <= SizeLimits.largestCapacity) }
            default: #expect(!ErrorText.quote(text).unicodeScalars.contains { $0.value < 0x20 })
            }
        }
        #expect(reached == [0, 1, 2, 3, 4, 5])
    }

    @Test("plan inputs: plans, --shard and results CSVs parse or fail cleanly")
    func plan() throws {
        let inputs = Self.inputs("plan")
        #expect(inputs.count >= 6)
        // The seeds that must parse, so each branch's checks run at least once: plans, shards, tables.
        var parsed = [0, 0, 0]
        var withFacts = 0
        for path in inputs {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let kind = try #require(bytes.first, "\(path) is empty: the harness reads its first byte")
            let rest = Array(bytes.dropFirst())
            let text = String(decoding: rest, as: UTF8.self)
            switch kind % 3 {
            case 0:
                if let plan = try? SweepPlan.read(rest, path: path) {
                    parsed[0] += 1
                    #expect(plan.points.enumerated().allSatisfy { $0.offset == $0.element.index })
                    #expect(SweepPlan.command(from: plan.command, trace: "/t").suffix(2) == ["--trace", "/t"])
                    // Carried trace facts are validated as a cache entry is: kept only when possible.
                    if let facts = plan.traceFacts {
                        let identity = TraceFileIdentity(
                            path: "/t", device: 1, inode: 1, size: facts.fileBytes, modifiedSeconds: 0, modifiedNanoseconds: 0,
                            changedSeconds: 0, changedNanoseconds: 0)
                        let kept = facts.facts(for: identity)
                        #expect((facts.refusal(identity, reading: facts.reading) == nil) == (kept != nil), "\(path)")
                        if let kept { #expect(kept.sha256 == facts.sha256 && kept.summary.requests == facts.requests && kept.summary.uniqueKeys <= kept.summary.requests) }
                        if path.hasSuffix("/plan-trace-facts") { #expect(kept?.summary.workingSetBytes == 7_000_221_392); withFacts += 1 }
                    }
                }
            case 1:
                let parts = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
                let environment = parts.count > 1 ? ["SLURM_ARRAY_TASK_ID": parts[1]] : [:]
                if let shard = try? ShardSpec.parse(parts[0], environment: environment) {
                    parsed[1] += 1
                    #expect((0..<shard.count).contains(shard.index))
                }
            default:
                if let table = try? ResultsTable.parse(text, path: path, columns: ["a", "b", "c"]) {
                    parsed[2] += 1
                    #expect(table.rows.allSatisfy { $0.count == 3 })
                }
            }
        }
        #expect(parsed.allSatisfy { $0 >= 1 }, "plans, shards and tables parsed: \(parsed)")
        #expect(withFacts == 1, "the seed plan with trace facts read and its facts kept")
    }

    @Test("HTTP inputs: headers parse into finite ages, HAR sessions are answered under every profile")
    func http() throws {
        let inputs = Self.inputs("http")
        #expect(inputs.count >= 4)
        // The seeds reach both branches: header sets checked, HAR sessions answered.
        var checked = (headers: 0, sessions: 0)
        for path in inputs {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let first = try #require(data.first, "\(path) is empty: the harness reads its first byte")
            let rest = data.dropFirst()
            if first % 2 == 0 {
                checked.headers += 1
                let text = String(decoding: rest, as: UTF8.self)
                let headers = ["cache-control": text, "expires": text, "date": text, "age": text, "last-modified": text, "vary": text]
                let entry = StoredResponse(HTTPMetadata(method: "GET", status: 200, mimeType: nil, headers: headers), size: 1, requestTime: 1e9, responseTime: 1e9 + 1)
                #expect(entry.freshnessLifetime(heuristicFraction: 0.1).seconds.isFinite && entry.currentAge(now: 1e9 + 100) >= 0)
                continue
            }
            guard let (requests, _) = try? HARTraceReader.parse(Data(rest), path: path, filter: try HARFilter([:]), keepKeyNames: true, skipBad: true) else { continue }
            if !requests.isEmpty { checked.sessions += 1 }
            for profile in HTTPCacheProfile.allCases {
                var model = HTTPCacheModel(settings: HTTPReplaySettings(profile: profile), capacity: 1 << 20)
                var present = Set<UInt64>()
                for request in requests {
                    guard let keyed = model.cacheRequest(request) else { continue }
                    let step = model.answer(request, key: keyed.id, found: model.looksUp(request) && present.contains(keyed.id), cost: request.size)
                    if step.remove { present.remove(keyed.id) }
                    if step.store { present.insert(keyed.id) }
                }
                #expect(model.counts.notModified <= model.counts.revalidations)
            }
        }
        #expect(checked.headers >= 3 && checked.sessions >= 1, "header sets \(checked.headers), sessions \(checked.sessions)")
    }

    @Test("trace facts cache entries: kept only when possible, each seed as its name says")
    func traceFacts() throws {
        let inputs = Self.inputs("facts")
        #expect(inputs.count >= 6)
        var kept: [String] = []
        for path in inputs {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            guard let entry = try? JSONDecoder().decode(TraceFactsEntry.self, from: data),
                  let valid = entry.validated(for: entry.identity, reading: entry.reading) else { continue }
            let workingSet = try #require(valid.workingSet)
            #expect(workingSet >= ByteTotal(valid.uniqueKeys) && workingSet <= ByteTotal(valid.uniqueKeys) * ByteTotal(valid.largestSize))
            kept.append(URL(fileURLWithPath: path).lastPathComponent)
        }
        // The seeds named refused-… each break one rule; valid.json breaks none.
        #expect(kept.contains("valid.json") && !kept.contains { $0.hasPrefix("refused-") }, "\(kept)")
    }
}
