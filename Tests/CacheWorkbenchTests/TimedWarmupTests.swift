import Foundation
import Testing
@testable import CacheWorkbench
@testable import WorkbenchCore
@testable import WorkbenchTraces
@testable import WorkbenchBackends
@testable import WorkbenchSimulation

/// Issue 45 §2: `--warmup 1h`, warm-up by trace time, as libCacheSim's cachesim counts it with
/// several caches (`simulate_with_multi_caches`: the requests with `clock_time - start_ts <
/// warmup_sec`, profiler/simulator.c:73 at aa0fc40). Figures from aa0fc40's C code (a driver
/// outside the project calling `simulate_with_multi_caches` on the oracleGeneral files its
/// `traceConv` wrote).
@Suite("--warmup by trace time", .onTestWorkers)
struct TimedWarmupTests {
    @Test("--warmup parses s, m, h and d spans beside counts and shares; a negative, unitless-letter or over-100-year span is refused")
    func parsing() throws {
        #expect(try ReplayOptionText.warmup("90s").seconds == 90)
        #expect(try ReplayOptionText.warmup("30m").seconds == 1_800)
        #expect(try ReplayOptionText.warmup(" 1.5h ").seconds == 5_400)
        #expect(try ReplayOptionText.warmup("2d").seconds == 172_800)
        #expect(try ReplayOptionText.warmup("0s").seconds == 0)
        #expect(try ReplayOptionText.warmup("100").count == 100)
        #expect(try ReplayOptionText.warmup("20%").share == 0.2)
        for bad in ["-1h", "1e300h", "h", "2x", "nans", "infm"] {
            #expect(throws: WorkbenchError.self, "\(bad)") { try ReplayOptionText.warmup(bad) }
        }
    }

    @Test("the span counts the non-zero-size requests before the first one at least that long after the trace's first request (a zero-size first request starts the clock; a later early one does not end the span)")
    func span() throws {
        let times: [(Double, Int)] = [(5, 0), (5, 10), (6, 10), (7, 0), (7.9, 10), (8, 10), (6, 10), (9, 10)]
        let trace = InMemoryTrace(label: "hand", requests: times.enumerated().map { Request(time: $0.element.0, id: UInt64($0.offset), size: $0.element.1) })
        #expect(try TraceSummary.requests(trace, within: 3) == 3)  // 5, 6, 7.9: 7 has size 0; 8 ends it, 6 after it is counted
        #expect(try TraceSummary.requests(trace, within: 0) == 0)
        #expect(try TraceSummary.requests(trace, within: 100) == 6)
    }

    /// aa0fc40 on `zipfRequests(20000, 2000)` with whole-second times (as its traceConv wrote
    /// them), --warmup-sec 50: 2,446 warm-up requests, then (policy, bytes, hits, hit bytes).
    static let cZipf: [(String, Int, Int, Int)] = [
        ("lru", 1 << 20, 392, 72_112_145), ("lru", 8 << 20, 2_370, 464_781_229),
        ("fifo", 1 << 20, 385, 71_321_673), ("fifo", 8 << 20, 2_057, 409_592_164),
    ]

    @Test("--warmup 50s on a 20,000-request Zipf trace equals aa0fc40's cachesim: 2,446 warm-up requests, 17,554 counted, and its hits in 4 cells (lru, fifo at 1 and 8 MiB)")
    func cZipfCells() throws {
        let requests = zipfRequests(requests: 20_000, images: 2_000).map { Request(time: $0.time.rounded(.down), id: $0.id, size: $0.size) }
        let trace = InMemoryTrace(label: "zipf", requests: requests)
        let warmup = try TraceSummary.requests(trace, within: 50)
        #expect(warmup == 2_446)
        for (name, capacity, hits, hitBytes) in Self.cZipf {
            let tally = try InPlaceReplayTests.replay(trace, name, capacity: capacity, ignoreObjectSize: false, timeline: false, general: true, warmup: warmup)
            #expect(tally.warmupRequests == 2_446 && tally.requests == 17_554, "\(name) \(capacity)")
            #expect(tally.hits == hits && tally.hitBytes == ByteTotal(hitBytes), "\(name) \(capacity)")
        }
    }

    @Test("bench run --warmup 20000s on the ARC OLTP trace (one request a second) equals aa0fc40's cachesim: 894,145 counted, lru hits 294,217 at 1,000 objects and 544,558 at 10,000; without the warm-up 300,122 and 554,906",
          .enabled(if: FileManager.default.fileExists(atPath: sharedTrace("arc_OLTP.lis.zst")), "needs ../shared/data/arc_OLTP.lis.zst; absent in a clone without ../shared"))
    func cOLTP() throws {
        let folder = TemporaryFolder()
        for (warmup, counted, hits) in [("20000s", 894_145, [294_217, 544_558]), ("0s", 914_145, [300_122, 554_906])] {
            let csv = folder.path + "/w\(warmup).csv"
            let result = try bench(["run", "--trace", sharedTrace("arc_OLTP.lis.zst"), "--backend", "lru", "--capacity", "1000,10000",
                                    "--ignore-obj-size", "--warmup", warmup, "--no-timing", "--csv", csv])
            #expect(result.status == 0, "\(result.err)")
            let rows = try csvRows(csv)
            #expect(rows.map { $0["requests"] } == [String(counted), String(counted)], "\(warmup)")
            #expect(rows.map { $0["hits"] } == hits.map(String.init), "\(warmup)")
            #expect(rows.map { $0["warmup_requests"] } == [String(914_145 - counted), String(914_145 - counted)], "\(warmup)")
        }
    }
}
