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

@Suite("Memory warnings, payloads and the timeline", .onTestWorkers)
struct MemoryWarningTests {
    @Test("schedules parse, and bad ones are refused")
    func parsing() throws {
        #expect(try MemoryWarningSchedule(parsing: "every:500") == .every(500))
        #expect(try MemoryWarningSchedule(parsing: "at:30,10.5") == .at([10.5, 30]))
        #expect(try MemoryWarningSchedule(parsing: "above:512MiB") == .above(512 << 20))
        for bad in ["every", "every:0", "at:", "at:x", "above:10%", "sometimes:3"] {
            #expect(throws: WorkbenchError.self) { try MemoryWarningSchedule(parsing: bad) }
        }
    }

    /// 100 requests cycling over 5 keys that all fit: after the first 5, every request hits.
    static let cycling = (0..<100).map { Request(time: Double($0), key: "k\($0 % 5)", size: 10) }

    @Test("every:N warns after each N requests; the cache refills and recovers")
    func every() throws {
        var options = ReplayOptions()
        options.memoryWarnings = .every(40)
        options.warningWindow = 10
        let tally = try replay(Self.cycling, backend: NSCacheLike(.init(totalCostLimit: 1_000)), capacity: 1_000, options: options)
        #expect(tally.warnings.map(\.requestIndex) == [40, 80])
        #expect(tally.warnings.map(\.releasedBytes) == [50, 50])
        // Before: a warm cache, all hits. After: 5 misses refilling, then hits.
        #expect(tally.warnings.map(\.hitRatioBefore) == [1.0, 1.0])
        #expect(tally.warnings.map(\.hitRatioAfter) == [0.5, 0.5])
        #expect(tally.hits == 100 - 15)
        #expect(tally.meanHitRatio(\.hitRatioAfter) == 0.5)
    }

    @Test("at:T warns before the first request at or after each time; windows not yet full stay empty")
    func at() throws {
        var options = ReplayOptions()
        options.memoryWarnings = .at([2.5, 97.5, 1_000])
        options.warningWindow = 10
        let tally = try replay(Self.cycling, backend: AutoPurgingImageCacheO1(memoryCapacity: 1_000, preferredMemoryUsageAfterPurge: 600), capacity: 1_000, options: options)
        #expect(tally.warnings.map(\.requestIndex) == [3, 98])
        #expect(tally.warnings[0].hitRatioBefore == nil)  // only 3 requests before it
        #expect(tally.warnings[1].hitRatioAfter == nil)  // only 2 requests after it
        #expect(tally.warnings[0].releasedBytes == 30)
    }

    @Test("above:BYTES fires when materialized payloads push the heap over, and re-arms below it")
    func above() throws {
        let base = try #require(MemoryProbe.allocatedBytes())
        var options = ReplayOptions()
        options.materialize = true
        options.memoryWarnings = .above(base + (48 << 20))
        let requests = (0..<40).map { Request(time: Double($0), key: "img\($0)", size: 4 << 20) }  // 4 MiB each
        let tally = try replay(requests, backend: NSCacheLike(.init(totalCostLimit: 1 << 30)), capacity: 1 << 30, options: options)
        // Tests run in parallel and share the heap, so allow a margin around "every ~12 images".
        #expect(tally.warnings.count >= 2 && tally.warnings.count <= 4, "\(tally.warnings.map(\.requestIndex))")
        #expect(tally.warnings.allSatisfy { $0.releasedBytes >= 40 << 20 })
    }

    @Test("materialized payloads are real heap: this thread holds the cache's contents")
    func materialize() throws {
        // jemalloc's per-thread counters: other tests running in parallel cannot disturb them.
        let requests = (0..<16).map { Request(time: Double($0), key: "img\($0)", size: 8 << 20) }  // 128 MiB in all
        var options = ReplayOptions()
        options.materialize = true
        let tracker = HeapTracker()
        let start = tracker.liveBytes
        let cache = NSCacheLike(.init(totalCostLimit: 1 << 30))
        let tally = try replay(requests, backend: cache, capacity: 1 << 30, options: options)
        let held = tracker.liveBytes - start
        #expect(tally.memory.accounted == 128 << 20)
        #expect(held >= 128 << 20 && held < (128 << 20) + (8 << 20), "held \(held)")
        #expect(cache.didReceiveMemoryWarning() == 128 << 20)
        #expect(tracker.liveBytes - start < 4 << 20)  // the warning freed the payloads
        var off = ReplayOptions()
        off.materialize = false
        let bareStart = tracker.liveBytes
        let bare = NSCacheLike(.init(totalCostLimit: 1 << 30))
        _ = try replay(requests, backend: bare, capacity: 1 << 30, options: off)
        #expect(tracker.liveBytes - bareStart < 4 << 20)  // no payloads: only metadata
    }

    @Test("timeline: a sample every N requests and one per warning")
    func timeline() throws {
        var options = ReplayOptions()
        options.timeline = true
        options.memorySampleInterval = 1
        options.memoryWarnings = .every(50)
        let tally = try replay(Self.cycling, backend: NSCacheLike(.init(totalCostLimit: 1_000)), capacity: 1_000, options: options)
        let warnings = tally.timeline.filter { $0.warningReleasedBytes != nil }
        #expect(warnings.map(\.requestIndex) == [50])
        #expect(tally.timeline.count >= 2)
        #expect(tally.timeline.last?.requestIndex == 100)
    }
}
