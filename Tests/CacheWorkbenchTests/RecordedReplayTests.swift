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

/// A request as a recording gives it: its key, 10 bytes, and where the app served it from.
private func recorded(_ index: Int, _ key: String, _ source: RecordedImage.Source?, size: Int = 10) -> Request {
    var request = Request(time: Double(index), key: key, size: size)
    request.recorded = source.map { RecordedImage(source: $0) }
    return request
}

private func warning(before request: Int) -> RecordedLifecycleEvent {
    RecordedLifecycleEvent(kind: .memoryWarning, time: Double(request) - 0.5, requestsBefore: request)
}

private func background(before request: Int) -> RecordedLifecycleEvent {
    RecordedLifecycleEvent(kind: .background, time: Double(request) - 0.5, requestsBefore: request)
}

/// A registry backend at `capacity` (a tier in `folder`).
private func make(_ name: String, capacity: Int, options: [String: String] = [:], folder: String? = nil) throws -> any CacheBackend {
    let disk = folder.map { DiskContext(directory: $0, probe: DiskIOProbe(), verify: false) }
    return try BackendRegistry.named(name).make(BackendConfig(capacityBytes: capacity, options: options, disk: disk))
}

/// Replays `requests` as a recording with `lifecycle`, recorded warnings delivered when
/// `warnings`, backgrounds when `backgrounds`, compared with the app.
private func replayRecording(
    _ requests: [Request], lifecycle: [RecordedLifecycleEvent], backend: any CacheBackend, capacity: Int,
    warnings: Bool = true, backgrounds: Bool = false
) throws -> ReplayTally {
    var options = ReplayOptions()
    options.timing = false
    options.memoryWarnings = warnings ? .recorded : nil
    options.lifecycle = lifecycle
    options.replaysBackgrounds = backgrounds
    options.comparesWithApp = true
    let source = try InMemoryTrace(label: "recording", requests: requests).open(keepKeyNames: true)
    return try backend.replay(with: Replayer(source: source, capacity: capacity, options: options))
}

@Suite("Replays of a recording: its warnings, backgrounds and limits, checked against the app", .onTestWorkers)
struct RecordedReplayTests {
    /// An app cache by hand: a dictionary + LRU with a 30-byte limit (three 10-byte images),
    /// evicting the least recently used until within the limit, emptied on a memory warning
    /// (before request 7). Contents after each request, least recent first:
    /// 0 a net [a] · 1 b net [a b] · 2 a mem [b a] · 3 c net [b a c] · 4 d net, b out [a c d] ·
    /// 5 b net, a out [c d b] · 6 c mem [d b c] · warning: [] · 7 c net [c] · 8 d net [c d] ·
    /// 9 c mem [d c] · 10 e net [d c e] · 11 d mem [c e d]. Memory hits: 2, 6, 9, 11 (4 of 12).
    static let appLRU: [Request] = [
        recorded(0, "a", .network), recorded(1, "b", .network), recorded(2, "a", .memory), recorded(3, "c", .network),
        recorded(4, "d", .network), recorded(5, "b", .network), recorded(6, "c", .memory), recorded(7, "c", .network),
        recorded(8, "d", .network), recorded(9, "c", .memory), recorded(10, "e", .network), recorded(11, "d", .memory),
    ]

    /// The model of that cache: AFAutoPurgingImageCache purging to its whole capacity.
    static func appModel() throws -> any CacheBackend { try make("autopurge", capacity: 30, options: ["purge-target": "1"]) }

    @Test("recorded parses as a schedule and prints as itself")
    func parsing() throws {
        #expect(try MemoryWarningSchedule(parsing: "recorded") == .recorded)
        #expect(try MemoryWarningSchedule(parsing: " Recorded ").description == "recorded")
        #expect(throws: WorkbenchError.self) { try MemoryWarningSchedule(parsing: "recorded:3") }
    }

    @Test("autopurge at purge-target 1 is the app's LRU: with the recorded warning it agrees on 12 of 12")
    func exactAgreement() throws {
        let tally = try replayRecording(Self.appLRU, lifecycle: [warning(before: 7)], backend: try Self.appModel(), capacity: 30)
        let agreement = try #require(tally.agreement)
        #expect(agreement.compared == 12 && agreement.agreeing == 12 && agreement.disagreements.isEmpty)
        #expect(agreement.appMemory == 4 && agreement.appHitRatio == 4.0 / 12.0)
        #expect(tally.hits == 4)
        #expect(tally.warnings.map(\.requestIndex) == [7])
        #expect(tally.warnings.map(\.releasedBytes) == [30])  // c, d, b
        #expect(AgreementReport.summary(agreement, backend: "autopurge") == "app recorded 33.33% memory hits; autopurge agrees on 12 of 12 requests (a memory hit or not)")
    }

    @Test("without the recorded warning, or with lru (which ignores warnings), requests 7 and 8 disagree, the warning named")
    func warningIgnored() throws {
        // 7 c and 8 d are still held: the model answers memory where the app went to the network.
        let unwarned = try replayRecording(Self.appLRU, lifecycle: [warning(before: 7)], backend: try Self.appModel(), capacity: 30, warnings: false)
        #expect(unwarned.agreement?.agreeing == 10 && unwarned.warnings.isEmpty && unwarned.undeliveredWarnings == 1)
        let lru = try replayRecording(Self.appLRU, lifecycle: [warning(before: 7)], backend: try make("lru", capacity: 30), capacity: 30)
        let agreement = try #require(lru.agreement)
        #expect(agreement.agreeing == 10 && agreement.compared == 12)
        #expect(agreement.disagreements.map(\.request) == [7, 8])
        #expect(agreement.disagreements.map(\.key) == ["c", "d"])
        #expect(agreement.disagreements.allSatisfy { $0.app == .network && $0.model == .memory })
        #expect(agreement.disagreements[0].reason == "the model still held it from request 6; the app's memory cache did not (the model kept it through the memory warning at request 7)")
        #expect(agreement.disagreements[1].reason == "the model still held it from request 4; the app's memory cache did not (the model kept it through the memory warning at request 7)")
    }

    @Test("one recorded outcome changed: 11 of 12, that request listed with its reason")
    func oneChanged() throws {
        // The app claims a memory hit right after the warning emptied its cache.
        var afterWarning = Self.appLRU
        afterWarning[7] = recorded(7, "c", .memory)
        let warned = try #require(try replayRecording(afterWarning, lifecycle: [warning(before: 7)], backend: try Self.appModel(), capacity: 30).agreement)
        #expect(warned.agreeing == 11 && warned.compared == 12)
        #expect(warned.disagreements == [AppAgreement.Disagreement(
            request: 7, key: "c", app: .memory, model: .miss,
            reason: "the model no longer held it: the memory warning at request 7 emptied the model's cache")])

        // The app claims b (last requested at 1, evicted at 5 by the LRU) was still in memory.
        var evicted = Self.appLRU
        evicted[5] = recorded(5, "b", .memory)
        let model = try #require(try replayRecording(evicted, lifecycle: [warning(before: 7)], backend: try Self.appModel(), capacity: 30).agreement)
        #expect(model.agreeing == 11)
        #expect(model.disagreements.map(\.reason) == ["the model no longer held it: the model evicted it after its last request at 1"])

        // A key the replay never saw, and one too large for the capacity.
        let first = [recorded(0, "x", .memory), recorded(1, "big", .network, size: 40), recorded(2, "big", .memory, size: 40)]
        let other = try #require(try replayRecording(first, lifecycle: [], backend: try Self.appModel(), capacity: 30).agreement)
        #expect(other.compared == 3 && other.agreeing == 1)
        #expect(other.disagreements.map(\.request) == [0, 2])
        #expect(other.disagreements[0].reason.hasPrefix("the app's cache had it but the model had never seen the key"))
        #expect(other.disagreements[1].reason == "never stored: at request 1 it was larger than the model's whole capacity (too_large)")
    }

    @Test("unknown and absent sources are not compared; a plain trace compares nothing")
    func notCompared() throws {
        let requests = [recorded(0, "a", .network), recorded(1, "a", .unknown), recorded(2, "a", nil), recorded(3, "a", .memory)]
        let tally = try replayRecording(requests, lifecycle: [], backend: try Self.appModel(), capacity: 30, warnings: false)
        #expect(tally.agreement?.compared == 2 && tally.agreement?.agreeing == 2)
        var options = ReplayOptions()
        options.timing = false
        let plain = try replay(requests, backend: AutoPurgingImageCacheO1(memoryCapacity: 30, preferredMemoryUsageAfterPurge: 30), capacity: 30, options: options)
        #expect(plain.agreement == nil && plain.hits == 3)
    }

    /// A two-tier app: memory of two 10-byte images (LRU, emptied by the warning before
    /// request 6) over a disk that keeps everything, a disk hit copied into memory:
    /// 0 a net · 1 b net · 2 c net (memory drops a) · 3 a disk (memory drops b) · 4 c mem ·
    /// 5 b disk (memory drops a) · warning · 6 c disk · 7 c mem.
    static let appTiers: [Request] = [
        recorded(0, "a", .network), recorded(1, "b", .network), recorded(2, "c", .network), recorded(3, "a", .disk),
        recorded(4, "c", .memory), recorded(5, "b", .disk), recorded(6, "c", .disk), recorded(7, "c", .memory),
    ]

    @Test("a two-tier model answers memory, disk or network, as the app did: 8 of 8; one changed, 7 of 8")
    func twoTier() throws {
        let folder = TemporaryFolder()
        let options = ["purge-target": "1", "disk-capacity": "unlimited"]
        let tier = try make("tier:autopurge+files", capacity: 20, options: options, folder: folder.path)
        let tally = try replayRecording(Self.appTiers, lifecycle: [warning(before: 6)], backend: tier, capacity: 20)
        try tier.close()
        let agreement = try #require(tally.agreement)
        #expect(agreement.twoTier && agreement.compared == 8 && agreement.agreeing == 8)
        #expect(agreement.appMemory == 2 && agreement.appDisk == 3)
        #expect(tally.tiers?.memoryHits == 2 && tally.tiers?.diskHits == 3)
        #expect(AgreementReport.summary(agreement, backend: "tier:autopurge+files") == "app recorded 25.00% memory hits and 37.50% disk hits; tier:autopurge+files agrees on 8 of 8 requests (memory, disk or network)")

        var changed = Self.appTiers
        changed[5] = recorded(5, "b", .network)
        let other = TemporaryFolder()
        let second = try make("tier:autopurge+files", capacity: 20, options: options, folder: other.path)
        let result = try #require(try replayRecording(changed, lifecycle: [warning(before: 6)], backend: second, capacity: 20).agreement)
        try second.close()
        #expect(result.agreeing == 7)
        #expect(result.disagreements == [AppAgreement.Disagreement(
            request: 5, key: "b", app: .network, model: .disk, reason: "the model's disk still held it from request 1; the app's caches did not")])
        let text = AgreementReport.csv([])
        #expect(text == "run_id,backend,capacity_bytes,request,key,app,model,reason\n")
    }

    @Test("an object the tier's memory never took (over memory-entry-limit, as Nuke's 10%) is said so, not called evicted")
    func memoryRefusedReason() throws {
        let folder = TemporaryFolder()
        // Memory 100 B, entries up to 10 B: a (20 B) goes to the disk alone; the app says its
        // memory had it the second time, the model answers from disk.
        let options = ["purge-target": "1", "disk-capacity": "unlimited", "memory-entry-limit": "0.1"]
        let tier = try make("tier:autopurge+files", capacity: 100, options: options, folder: folder.path)
        let requests = [recorded(0, "a", .network, size: 20), recorded(1, "a", .memory, size: 20)]
        let agreement = try #require(try replayRecording(requests, lifecycle: [], backend: tier, capacity: 100).agreement)
        try tier.close()
        #expect(agreement.compared == 2 && agreement.agreeing == 1)
        #expect(agreement.disagreements == [AppAgreement.Disagreement(
            request: 1, key: "a", app: .memory, model: .disk,
            reason: "never in the model's memory: at request 0 its memory tier did not take it (over its entry limit or capacity, memory_refused)")])
    }
}

@Suite("Recorded background events: each library model's own behaviour", .onTestWorkers)
struct RecordedBackgroundTests {
    /// a, b stored; a background event; a and b asked again.
    static let requests = [recorded(0, "a", .network), recorded(1, "b", .network), recorded(2, "a", nil), recorded(3, "b", nil)]

    @Test("autopurge (AFAutoPurgingImageCache) and nscache do nothing; nscache on-background=clear empties itself")
    func memoryBackends() throws {
        for (name, options) in [("autopurge", [String: String]()), ("nscache", [:])] {
            let tally = try replayRecording(Self.requests, lifecycle: [background(before: 2)], backend: try make(name, capacity: 100, options: options), capacity: 100, warnings: false, backgrounds: true)
            #expect(tally.backgrounds == 1 && tally.backgroundReleasedBytes == 0 && tally.hits == 2, "\(name)")
        }
        let autopurge = try replayRecording(Self.requests, lifecycle: [background(before: 2)], backend: try make("autopurge", capacity: 100), capacity: 100, warnings: false, backgrounds: true)
        #expect(autopurge.backgroundResponse == "does nothing (AFAutoPurgingImageCache observes memory warnings only)")
        let cleared = try replayRecording(Self.requests, lifecycle: [background(before: 2)], backend: try make("nscache", capacity: 100, options: ["on-background": "clear"]), capacity: 100, warnings: false, backgrounds: true)
        #expect(cleared.backgrounds == 1 && cleared.backgroundReleasedBytes == 20 && cleared.hits == 0)
        #expect(cleared.backgroundResponse == "clears itself (on-background=clear, an assumption)")
        #expect(throws: WorkbenchError.self) { try make("nscache", capacity: 100, options: ["on-background": "trim:0.5"]) }
    }

    @Test("--background off, or a foreground event alone, delivers nothing; a policy simulator does nothing")
    func offAndPolicies() throws {
        let off = try replayRecording(Self.requests, lifecycle: [background(before: 2)], backend: try make("nscache", capacity: 100, options: ["on-background": "clear"]), capacity: 100, warnings: false, backgrounds: false)
        #expect(off.backgrounds == 0 && off.backgroundResponse == nil && off.hits == 2 && off.undeliveredBackgrounds == 1)
        let foreground = RecordedLifecycleEvent(kind: .foreground, time: 1.5, requestsBefore: 2)
        let lru = try replayRecording(Self.requests, lifecycle: [background(before: 2), foreground], backend: try make("lru", capacity: 100), capacity: 100, warnings: false, backgrounds: true)
        #expect(lru.backgrounds == 1 && lru.foregrounds == 1 && lru.hits == 2 && lru.backgroundResponse == "does nothing")
    }

    @Test("pincache and kingfisher clear their memory tier, afnetworking and sdwebimage keep it: disk hits or memory hits after")
    func presetsClearOrKeep() throws {
        for (preset, clears) in [("pincache", true), ("kingfisher", true), ("afnetworking", false), ("sdwebimage", false)] {
            let folder = TemporaryFolder()
            let cache = try make(preset, capacity: 100, folder: folder.path)
            let tally = try replayRecording(Self.requests, lifecycle: [background(before: 2)], backend: cache, capacity: 100, warnings: false, backgrounds: true)
            try cache.close()
            #expect(tally.hits == 2, "\(preset)")
            #expect(tally.tiers?.memoryHits == (clears ? 0 : 2) && tally.tiers?.diskHits == (clears ? 2 : 0), "\(preset)")
            #expect(tally.backgroundReleasedBytes == (clears ? 20 : 0), "\(preset)")
            #expect(tally.backgroundResponse == (clears ? "clears its memory tier (on-background=clear)" : "does nothing to its memory tier (on-background=none)"), "\(preset)")
        }
    }

    @Test("nuke trims its memory tier to 10% of its limit in CLOCK order: the 10 newest of 20 stay in memory")
    func nukeTrims() throws {
        // 20 images of 10 bytes in a 1000-byte memory (Nuke keeps entries up to 10%: 100):
        // 200 bytes, trimmed to 100 — CLOCK evicts the unreferenced oldest first, k0…k9.
        let keys = (0..<20).map { "k\($0)" }
        let requests = keys.enumerated().map { recorded($0.offset, $0.element, .network) }
            + keys.enumerated().map { recorded(20 + $0.offset, $0.element, nil) }
        let folder = TemporaryFolder()
        let cache = try make("nuke", capacity: 1_000, folder: folder.path)
        let tally = try replayRecording(requests, lifecycle: [background(before: 20)], backend: cache, capacity: 1_000, warnings: false, backgrounds: true)
        try cache.close()
        #expect(tally.backgroundReleasedBytes == 100)
        #expect(tally.tiers?.diskHits == 10 && tally.tiers?.memoryHits == 10)
        #expect(tally.backgroundResponse == "trims its memory tier to 0.1 of its capacity (on-background=trim:0.1)")
        // A tier refuses a response no library has on entering the background, naming the option.
        for bad in ["flush-to-disk", "bogus", "trim:1"] {
            let other = TemporaryFolder()
            #expect { try make("tier:lru+files", capacity: 100, options: ["on-background": bad], folder: other.path) } throws: { error in
                "\(error)".contains("on-background must be clear, trim:F (e.g. trim:0.1) or none, not '\(bad)'")
            }
        }
    }
}

@Suite("A recording's options: refused where they cannot apply", .onTestWorkers)
struct RecordedReplaySetupTests {
    @Test("--memory-warning recorded, --background on and --capacity recorded need a recording; a bad --background is refused")
    func refusals() throws {
        var options = ReplayOptions()
        options.memoryWarnings = .recorded
        #expect(throws: WorkbenchError.self) { try RecordedReplaySetup.apply(lifecycle: nil, background: nil, trace: "t.csv", to: &options) }
        options.memoryWarnings = nil
        #expect(throws: WorkbenchError.self) { try RecordedReplaySetup.apply(lifecycle: nil, background: "on", trace: "t.csv", to: &options) }
        #expect(throws: WorkbenchError.self) { try RecordedReplaySetup.apply(lifecycle: [], background: "sometimes", trace: "r.jsonl", to: &options) }
        try RecordedReplaySetup.apply(lifecycle: nil, background: "off", trace: "t.csv", to: &options)
        #expect(!options.replaysBackgrounds && !options.comparesWithApp)
        #expect(throws: WorkbenchError.self) { try RecordedCapacityText.capacities("recorded", configuration: nil, isRecording: false, trace: "t.csv") }
        #expect(throws: WorkbenchError.self) { try RecordedCapacityText.capacities("recorded", configuration: RecordedCacheConfiguration(), isRecording: true, trace: "r.jsonl") }
    }

    @Test("a recording turns backgrounds on when it has them and the comparison on; --capacity recorded is its memory_cost_limit")
    func applied() throws {
        var options = ReplayOptions()
        try RecordedReplaySetup.apply(lifecycle: [background(before: 3)], background: nil, trace: "r.jsonl", to: &options)
        #expect(options.replaysBackgrounds && options.comparesWithApp && options.lifecycle.count == 1)
        try RecordedReplaySetup.apply(lifecycle: [warning(before: 3)], background: nil, trace: "r.jsonl", to: &options)
        #expect(!options.replaysBackgrounds)
        try RecordedReplaySetup.apply(lifecycle: [background(before: 3)], background: "off", trace: "r.jsonl", to: &options)
        #expect(!options.replaysBackgrounds)
        let configuration = RecordedCacheConfiguration(memoryCostLimit: 4_194_304)
        let only = try RecordedCapacityText.capacities("recorded", configuration: configuration, isRecording: true, trace: "r.jsonl")
        #expect(only.text == "4194304" && only.rule == "the recording's memory_cost_limit, 4194304 bytes (--capacity recorded)")
        let list = try RecordedCapacityText.capacities("1MiB, recorded", configuration: configuration, isRecording: true, trace: "r.jsonl")
        #expect(list.text == "1MiB,4194304" && list.rule == nil)
        #expect(try RecordedCapacityText.capacities("10%", configuration: nil, isRecording: false, trace: "t.csv").text == "10%")
    }
}

/// `RecordedReplayTests.appLRU` as a recording file (format v1): a 30-byte memory limit in the
/// header, a memory warning before request 7, a background event before request 10 (the
/// app's LRU does nothing on it), each image 10 encoded bytes.
enum RecordingFile {
    static var text: String {
        var lines = [#"{"format":"cache-trace-recording","version":1,"session":"S","part":0,"app":{"image_cache":"own LRU","memory_cost_limit":30}}"#]
        for (index, request) in RecordedReplayTests.appLRU.enumerated() {
            if index == 7 { lines.append(#"{"t":6500000000,"kind":"lifecycle","event":"memory_warning"}"#) }
            if index == 10 { lines.append(#"{"t":9500000000,"kind":"lifecycle","event":"background"}"#) }
            lines.append(#"{"t":\#(index * 1_000_000_000),"kind":"image","key":"\#(request.keyText)","source":"\#(request.recorded!.source.rawValue)","encoded_bytes":10}"#)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

@Suite("bench run on a recording", .serialized, .onTestWorkers)
struct RecordedReplayCLITests {
    @Test("--capacity recorded --memory-warning recorded: autopurge agrees 12 of 12, lru 10 of 12 with both listed; the columns and --disagreements say the same")
    func agreement() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("app.jsonl", RecordingFile.text)
        let run = try bench([
            "run", "--trace", trace, "--backend", "autopurge,lru", "--purge-target", "1", "--capacity", "recorded", "--memory-warning", "recorded",
            "--cost", "encoded", "--no-timing", "--csv", folder.path + "/out.csv", "--disagreements", folder.path + "/d.csv",
        ])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("autopurge at 30B: app recorded 33.33% memory hits; autopurge agrees on 12 of 12 requests (a memory hit or not)\n"))
        #expect(run.out.contains("lru at 30B: app recorded 33.33% memory hits; lru agrees on 10 of 12 requests (a memory hit or not)\n  request 7 c: app network, model memory: "))
        #expect(run.out.contains("note: the recording's memory_cost_limit, 30 bytes (--capacity recorded)"))
        // The background event: autopurge and lru do nothing on it, said with the count.
        #expect(run.out.contains("autopurge at 30B: the recording's 1 background event was replayed: autopurge does nothing (AFAutoPurgingImageCache observes memory warnings only)"))
        let rows = try csvRows(folder.path + "/out.csv")
        #expect(rows.map { $0["app_compared"] } == ["12", "12"] && rows.map { $0["app_agreeing"] } == ["12", "10"])
        #expect(rows.map { $0["memory_warnings"] } == ["1", "1"] && rows.map { $0["background_events"] } == ["1", "1"])
        #expect(rows.allSatisfy { Double($0["app_hit_ratio"] ?? "") == 4.0 / 12.0 && $0["capacity_bytes"] == "30" })
        let disagreements = try String(contentsOfFile: folder.path + "/d.csv", encoding: .utf8).split(separator: "\n")
        #expect(disagreements.count == 3 && disagreements[0] == "run_id,backend,capacity_bytes,request,key,app,model,reason")
        #expect(disagreements[1].hasSuffix(",lru,30,7,c,network,memory,the model still held it from request 6; the app's memory cache did not (the model kept it through the memory warning at request 7)"))
    }

    @Test("a recording whose lookups say nothing of the app's outcome (source unknown, as one converted from a HAR): the run says no row is checked, instead of nothing")
    func nothingToCompare() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("app.jsonl", [
            #"{"format":"cache-trace-recording","version":1,"session":"S","part":0}"#,
            #"{"t":0,"kind":"image","key":"a","source":"unknown","encoded_bytes":10}"#,
            #"{"t":1,"kind":"image","key":"a","source":"unknown","encoded_bytes":10}"#,
        ].joined(separator: "\n") + "\n")
        let run = try bench(["run", "--trace", trace, "--backend", "autopurge,lru", "--capacity", "100", "--cost", "encoded", "--no-timing"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("agreement with the app's recorded outcomes:\nno row is checked against the app: none of the recording's counted image lookups says where the app served it (source unknown or absent, as in a recording converted from a HAR)\n"), "\(run.out)")
        #expect(!run.out.contains("agrees on"))
    }

    @Test("bench sweep: recorded warnings in every point, and the comparison in fanned-out points too, keys named even for a policy")
    func sweep() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("app.jsonl", RecordingFile.text)
        for warned in [true, false] {
            let csv = folder.path + "/sweep-\(warned).csv"
            let run = try bench(
                ["sweep", "--trace", trace, "--backend", "lru", "--capacity", "30..40", "--points", "2", "--cost", "encoded", "--no-timing", "--csv", csv]
                    + (warned ? ["--memory-warning", "recorded"] : []))
            #expect(run.status == 0, "\(run.err)")
            // lru ignores the warning, so it answers requests 7 and 8 from memory either way.
            #expect(run.out.contains("lru at 30B: app recorded 33.33% memory hits; lru agrees on 10 of 12 requests (a memory hit or not)\n  request 7 c: app network, model memory"))
            let rows = try csvRows(csv)
            #expect(rows.map { $0["capacity_bytes"] } == ["30", "40"])
            #expect(rows.first?["app_agreeing"] == "10" && rows.first?["memory_warnings"] == (warned ? "1" : "0"))
            #expect(rows.allSatisfy { $0["app_compared"] == "12" && $0["background_events"] == "1" })
            #expect(run.out.contains("note: the recording has 1 memory warning the app's cache went through, not delivered to the models (--memory-warning recorded delivers them)") == !warned)
        }
    }

    @Test("Traces/app-lru.jsonl, the docs' example, is this recording")
    func bundled() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        #expect(try String(contentsOf: root.appendingPathComponent("Traces/app-lru.jsonl"), encoding: .utf8) == RecordingFile.text)
    }

    @Test("a trace that is no recording: --memory-warning recorded, --capacity recorded, --background on and --disagreements exit 2 with one line")
    func refusals() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("plain.csv", "time,key,size\n0,a,10\n1,a,10\n")
        for extra in [["--memory-warning", "recorded"], ["--capacity", "recorded"], ["--background", "on"], ["--disagreements", folder.path + "/d.csv"]] {
            let run = try bench(["run", "--trace", trace, "--backend", "lru", "--no-timing"] + extra)
            #expect(run.status == 2, "\(extra)")
            #expect(run.err.hasPrefix("bench: error: ") && run.err.contains("not a recording") && run.err.split(separator: "\n").count == 1, "\(run.err)")
        }
        let noLimit = folder.file("nolimit.jsonl", #"{"format":"cache-trace-recording","version":1,"session":"S","part":0}"# + "\n" + #"{"t":0,"kind":"image","key":"a","source":"network","encoded_bytes":10}"# + "\n")
        let run = try bench(["run", "--trace", noLimit, "--backend", "lru", "--capacity", "recorded", "--no-timing"])
        #expect(run.status == 2 && run.err.contains("states no memory_cost_limit"), "\(run.err)")
        let none = try bench(["run", "--trace", noLimit, "--backend", "lru", "--capacity", "100", "--memory-warning", "recorded", "--no-timing"])
        #expect(none.status == 0 && none.out.contains("note: --memory-warning recorded: the recording has no memory warning, so none was delivered"), "\(none.err)")
    }
}
