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

/// A policy simulator's plain replay reads ids and sizes in place (`ReplayLoop.handleKeys`);
/// every count must equal the general loop's (`handle`), which recording outcomes forces.
@Suite("in-place replay of policy simulators", .onTestWorkers)
struct InPlaceReplayTests {
    /// A Zipf trace with zero-size requests (rule 4) and objects larger than the cache (rule 3)
    /// mixed in.
    static func requests() -> [Request] {
        var requests = zipfRequests(requests: 20_000, images: 2_000)
        for index in stride(from: 7, to: requests.count, by: 97) { requests[index].size = 0 }
        for index in stride(from: 11, to: requests.count, by: 101) { requests[index].size = 40_000_000 }
        return requests
    }

    static func replay(_ requests: [Request], _ name: String, capacity: Int, ignoreObjectSize: Bool, timeline: Bool, general: Bool, warmup: Int = 0) throws -> ReplayTally {
        try replay(InMemoryTrace(label: "t", requests: requests), name, capacity: capacity, ignoreObjectSize: ignoreObjectSize, timeline: timeline, general: general, warmup: warmup)
    }

    static func replay(_ trace: any Trace, _ name: String, capacity: Int, ignoreObjectSize: Bool, timeline: Bool, general: Bool, warmup: Int = 0) throws -> ReplayTally {
        let source = try trace.open(keepKeyNames: false)
        var options = ReplayOptions()
        options.warmupRequests = warmup
        options.timing = false
        options.ignoreObjectSize = ignoreObjectSize
        options.timeline = timeline
        options.memorySampleInterval = 1_000
        options.recordOutcomes = general  // not plain: the general loop
        var config = BackendConfig(capacityBytes: capacity)
        config.countsObjects = ignoreObjectSize
        let backend = try BackendRegistry.named(name).make(config)
        return try backend.replay(with: Replayer(source: source, capacity: capacity, options: options))
    }

    @Test("the same counts, peaks and timeline as the general loop", arguments: ["lru", "fifo", "s3fifo", "arc", "lhd", "gdsf", "wtinylfu"])
    func sameCounts(_ name: String) throws {
        let requests = Self.requests()
        for (capacity, objects) in [(8_000_000, false), (30_000_000, false), (300, true)] {
            let inPlace = try Self.replay(requests, name, capacity: capacity, ignoreObjectSize: objects, timeline: true, general: false)
            let general = try Self.replay(requests, name, capacity: capacity, ignoreObjectSize: objects, timeline: true, general: true)
            let label = "\(name) at \(capacity)"
            #expect(inPlace.outcomes.count == 0 && general.outcomes.count == general.requests, "\(label): the paths taken")
            #expect(inPlace.requests == general.requests && inPlace.hits == general.hits && inPlace.hitBytes == general.hitBytes, "\(label)")
            #expect(inPlace.requestedBytes == general.requestedBytes && inPlace.tooLarge == general.tooLarge, "\(label)")
            #expect(inPlace.droppedZeroSize == general.droppedZeroSize && inPlace.droppedZeroSize > 0, "\(label)")
            #expect(objects || inPlace.tooLarge > 0, "\(label): rule 3 exercised")
            #expect(inPlace.memory.accounted == general.memory.accounted && inPlace.finalFacts == general.finalFacts, "\(label)")
            #expect(inPlace.timeline.map(\.requestIndex) == general.timeline.map(\.requestIndex), "\(label)")
            #expect(inPlace.timeline.map(\.accountedBytes) == general.timeline.map(\.accountedBytes), "\(label)")
            #expect(inPlace.timeline.map(\.windowHitRatio) == general.timeline.map(\.windowHitRatio), "\(label)")
            #expect(inPlace.timeline.map(\.traceTime) == general.timeline.map(\.traceTime), "\(label)")
        }
    }

    /// The same trace as an oracleGeneral file (each request's time its index).
    static func oracleGeneralFile(_ requests: [Request], in folder: TemporaryFolder) -> String {
        var bytes: [UInt8] = []
        for (index, request) in requests.enumerated() {
            withUnsafeBytes(of: UInt32(index).littleEndian) { bytes += $0 }
            withUnsafeBytes(of: request.id.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: UInt32(request.size).littleEndian) { bytes += $0 }
            withUnsafeBytes(of: Int64(-1).littleEndian) { bytes += $0 }
        }
        return folder.bytes("t.oracleGeneral.bin", bytes)
    }

    @Test("a binary trace's key records, preloaded (read where they lie) or streamed, give the general loop's counts, also when a warm-up ends inside the first chunk", arguments: ["lru", "s3fifo", "arc"])
    func keyRecords(_ name: String) throws {
        let folder = TemporaryFolder()
        let file = try TraceFile(path: Self.oracleGeneralFile(Self.requests(), in: folder))
        let packed = try InMemoryTrace.preload(file, keepKeyNames: false)
        #expect(try packed.open(keepKeyNames: false) is any KeyRecordSource)
        #expect(try file.open(keepKeyNames: false) is any KeyRecordSource)
        for (capacity, objects, warmup) in [(8_000_000, false, 0), (30_000_000, false, 0), (300, true, 0), (8_000_000, false, 15_000)] {
            let general = try Self.replay(file, name, capacity: capacity, ignoreObjectSize: objects, timeline: true, general: true, warmup: warmup)
            for (trace, how) in [(packed, "preloaded"), (file as any Trace, "streamed")] {
                let inPlace = try Self.replay(trace, name, capacity: capacity, ignoreObjectSize: objects, timeline: true, general: false, warmup: warmup)
                let label = "\(name) at \(capacity), warm-up \(warmup), \(how)"
                #expect(inPlace.outcomes.count == 0 && general.outcomes.count == general.requests, "\(label): the paths taken")
                #expect(inPlace.traceRequests == general.traceRequests && inPlace.warmupRequests == general.warmupRequests, "\(label)")
                #expect(inPlace.requests == general.requests && inPlace.hits == general.hits && inPlace.hitBytes == general.hitBytes, "\(label)")
                #expect(inPlace.requestedBytes == general.requestedBytes && inPlace.tooLarge == general.tooLarge, "\(label)")
                #expect(inPlace.droppedZeroSize == general.droppedZeroSize && inPlace.droppedZeroSize > 0, "\(label)")
                #expect(inPlace.memory.accounted == general.memory.accounted && inPlace.finalFacts == general.finalFacts, "\(label)")
                #expect(inPlace.timeline.map(\.requestIndex) == general.timeline.map(\.requestIndex), "\(label)")
                #expect(inPlace.timeline.map(\.accountedBytes) == general.timeline.map(\.accountedBytes), "\(label)")
                #expect(inPlace.timeline.map(\.traceTime) == general.timeline.map(\.traceTime) && !inPlace.timeline.isEmpty, "\(label)")
                #expect(inPlace.hits > 0 && (warmup == 0 || inPlace.requests < 5_000), "\(label)")
            }
        }
    }
}
