import Foundation
import Testing
@testable import CacheWorkbench
@testable import WorkbenchCore
@testable import WorkbenchTraces
@testable import WorkbenchBackends
@testable import WorkbenchSimulation

/// Issue 45 §2: prefetching in front of a policy (`lru[prefetch=obl]`), against hand traces
/// and libCacheSim aa0fc40's C code (a driver outside the project: cachesim's
/// `create_cache` and `create_prefetcher`, `cache->get` per request, the prefetches counted
/// by wrapping the cache's insert and evict), whose figures are stored here.
@Suite("prefetching: OBL and PG in front of a policy", .onTestWorkers)
struct PrefetchTests {
    /// (hits, prefetches, prefetch hits, wasted, unused) of `backend` over `ids` (each
    /// `size` bytes; unit sizes and an object capacity with `objects`).
    static func replay(_ backend: String, _ options: [String: String], _ ids: [UInt64], size: Int, capacity: Int, objects: Bool = false) throws -> (hits: Int, counts: PrefetchCounts) {
        let requests = ids.enumerated().map { Request(time: Double($0.offset + 1), id: $0.element, size: objects ? 1 : size) }
        var config = BackendConfig(capacityBytes: capacity, options: options)
        config.countsObjects = objects
        let made = try BackendRegistry.named(backend).make(config)
        let tally = try replayUntimed(requests, backend: made, capacity: capacity)
        return (tally.hits, made.details.prefetch ?? PrefetchCounts())
    }

    static let sequential: [UInt64] = Array(1...10) + Array(20...29)
    static let mixed: [UInt64] = [1, 2, 3, 4, 5, 6, 7, 8, 1, 9, 10, 11, 12, 13, 2, 20, 21, 22, 23, 1]

    @Test("by hand: ids 1…10, 20…29 at one 512-byte object of room: from the 5th of a run (4 in a row before it) OBL inserts the next id, so 6–10 and 25–29 hit (10); 12 prefetches, 10 hit, 11 evicted unused, 30 still cached; without the prefetcher no hit")
    func sequentialByHand() throws {
        for name in ["lru", "fifo"] {
            let (hits, counts) = try Self.replay(name, ["prefetch": "obl"], Self.sequential, size: 512, capacity: 512)
            #expect(hits == 10 && counts.issued == 12 && counts.hits == 10 && counts.wasted == 1 && counts.unused == 1, "\(name): \(hits) \(counts)")
            #expect(try Self.replay(name, [:], Self.sequential, size: 512, capacity: 512).hits == 0)
        }
    }

    /// aa0fc40's counts on the mixed trace (512-byte objects unless `objects`): (policy,
    /// prefetch-params, capacity, objects, hits, issued, prefetch hits, wasted, unused).
    static let cMixed: [(String, String?, Int, Bool, Int, Int, Int, Int, Int)] = [
        ("lru", nil, 1024, false, 4, 5, 4, 1, 0), ("lru", nil, 2048, false, 4, 5, 4, 1, 0), ("lru", nil, 4096, false, 4, 5, 4, 0, 1), ("lru", nil, 5120, false, 5, 5, 4, 0, 1),
        ("lru", "sequential-confidence-k=2", 1024, false, 9, 11, 9, 1, 1), ("lru", "sequential-confidence-k=2", 2048, false, 9, 11, 9, 1, 1),
        ("lru", "block-size=1", 2, true, 4, 5, 4, 1, 0), ("lru", "block-size=1", 8, true, 4, 5, 4, 0, 1),
        ("lru", nil, 512, true, 3, 5, 3, 2, 0), ("lru", nil, 1024, true, 4, 5, 4, 0, 1),
        ("fifo", nil, 1024, false, 4, 5, 4, 1, 0), ("fifo", nil, 4096, false, 4, 5, 4, 0, 1),
    ]

    @Test("equal to libCacheSim aa0fc40 on a hand-made mixed trace: 12 cells of lru and fifo, bytes and objects (OBL's 512-byte blocks in a cache counted in objects, as the C inserts them), default k 4 and k 2, hits and the prefetch counts")
    func cMixedCells() throws {
        for (name, params, capacity, objects, hits, issued, used, wasted, unused) in Self.cMixed {
            var options = ["prefetch": "obl"]
            if let params { options["prefetch-params"] = params }
            let (got, counts) = try Self.replay(name, options, Self.mixed, size: 512, capacity: capacity, objects: objects)
            let label = "\(name) \(params ?? "") at \(capacity)\(objects ? " objects" : "")"
            #expect(got == hits && counts.issued == issued && counts.hits == used && counts.wasted == wasted && counts.unused == unused, "\(label): \(got) \(counts)")
        }
    }

    @Test("equal to libCacheSim aa0fc40 on ARC's OLTP trace (recorded): lru and fifo with default OBL at 1,000 objects (262,734 and 234,120 hits, 2,594 prefetches all hit) and block-size=1 at 10,000 (557,500 and 526,297), PG with block-size=4096 at 1,000 (301,291 and 262,452, with the prefetch counts); the CSV's prefetch columns",
          .enabled(if: FileManager.default.fileExists(atPath: sharedTrace("arc_OLTP.lis.zst")), "needs ../shared/data/arc_OLTP.lis.zst; absent in a clone without ../shared"))
    func cOLTP() throws {
        let folder = TemporaryFolder()
        let csv = folder.path + "/p.csv"
        let result = try bench(["run", "--trace", sharedTrace("arc_OLTP.lis.zst"), "--backend", "lru[prefetch=obl],fifo[prefetch=obl]", "--capacity", "1000",
                                "--ignore-obj-size", "--no-timing", "--csv", csv])
        #expect(result.status == 0, "\(result.err)")
        let rows = try csvRows(csv)
        #expect(rows.map { $0["hits"] } == ["262734", "234120"])
        for row in rows { #expect(row["prefetches"] == "2594" && row["prefetch_hits"] == "2594" && row["wasted_prefetches"] == "0" && row["prefetches_unused"] == "0", "\(row)") }
        let loaded = try InMemoryTrace.load(TraceFile(path: sharedTrace("arc_OLTP.lis.zst")), keepKeyNames: false).requests
        let units = loaded.map { Request(time: $0.time, id: $0.id, size: 1) }
        // PG, block-size=4096, at 1,000 objects: (hits, issued, prefetch hits, wasted).
        for (name, hits, issued, used, wasted) in [("lru", 301_291, 1413, 1235, 178), ("fifo", 262_452, 1945, 1776, 169)] {
            var config = BackendConfig(capacityBytes: 1_000, options: ["prefetch": "pg", "prefetch-params": "block-size=4096"])
            config.countsObjects = true
            let made = try BackendRegistry.named(name).make(config)
            let tally = try replayUntimed(units, backend: made, capacity: 1_000)
            let counts = made.details.prefetch!
            #expect(tally.hits == hits && counts.issued == issued && counts.hits == used && counts.wasted == wasted, "pg \(name): \(tally.hits) \(counts)")
        }
        for (name, hits) in [("lru", 557_500), ("fifo", 526_297)] {
            var config = BackendConfig(capacityBytes: 10_000, options: ["prefetch": "obl", "prefetch-params": "block-size=1"])
            config.countsObjects = true
            #expect(try replayUntimed(units, backend: BackendRegistry.named(name).make(config), capacity: 10_000).hits == hits, "\(name)")
        }
    }

    static let loop6: [UInt64] = Array(1...6) + Array(1...6) + Array(1...6) + [1, 2]
    static let loop5x12: [UInt64] = (0..<12).flatMap { _ in Array(UInt64(1)...5) }

    /// aa0fc40's counts with PG on two loops of 4,096-byte objects (a hand-made trace each,
    /// PG's uninitialized stack byte zero): (trace, policy, prefetch-params, capacity, hits,
    /// issued, prefetch hits, wasted, unused).
    static let cLoops: [(String, String, String?, Int, Int, Int, Int, Int, Int)] = [
        ("loop6", "lru", "lookahead-range=2", 8192, 7, 22, 7, 13, 2), ("loop6", "lru", "lookahead-range=2", 12288, 13, 15, 13, 0, 2),
        ("loop6", "fifo", "lookahead-range=2", 8192, 13, 15, 13, 0, 2), ("loop6", "lru", nil, 12288, 0, 0, 0, 0, 0),
        ("loop5x12", "lru", nil, 8192, 16, 184, 16, 166, 2), ("loop5x12", "lru", nil, 12288, 21, 172, 21, 148, 3), ("loop5x12", "lru", nil, 16384, 31, 84, 31, 50, 3),
        ("loop5x12", "fifo", nil, 12288, 23, 185, 23, 159, 3), ("loop5x12", "fifo", nil, 16384, 31, 169, 31, 134, 4),
        ("loop5x12", "lru", "lookahead-range=2", 8192, 28, 83, 28, 54, 1), ("loop5x12", "fifo", "lookahead-range=2", 8192, 54, 56, 54, 0, 2),
    ]

    @Test("PG equals libCacheSim aa0fc40 on two hand-made loops: 11 cells of lru and fifo, default and lookahead-range=2, hits and the prefetch counts (the default PG prefetches nothing on 1…6 ×3: a successor's 1/20 does not exceed 0.05)")
    func pgLoops() throws {
        for (name, policy, params, capacity, hits, issued, used, wasted, unused) in Self.cLoops {
            var options = ["prefetch": "pg"]
            if let params { options["prefetch-params"] = params }
            let (got, counts) = try Self.replay(policy, options, name == "loop6" ? Self.loop6 : Self.loop5x12, size: 4096, capacity: capacity)
            let label = "\(name) \(policy) \(params ?? "") at \(capacity)"
            #expect(got == hits && counts.issued == issued && counts.hits == used && counts.wasted == wasted && counts.unused == unused, "\(label): \(got) \(counts)")
        }
    }

    /// aa0fc40 with PG (block-size 4096) on the 20,000-request Zipf trace in objects: (policy,
    /// prefetch-threshold, capacity, hits, issued, prefetch hits, wasted, unused).
    static let cZipfPG: [(String, Double, Int, Int, Int, Int, Int, Int)] = [
        ("lru", 0.05, 50, 3319, 92, 41, 51, 0), ("lru", 0.05, 300, 8078, 20, 9, 11, 0), ("lru", 0.05, 1500, 13425, 3, 2, 1, 0),
        ("fifo", 0.05, 50, 2842, 107, 46, 61, 0), ("fifo", 0.05, 300, 7169, 61, 50, 11, 0), ("fifo", 0.05, 1500, 12654, 16, 15, 1, 0),
        ("lru", 0.04, 50, 3257, 1775, 134, 1641, 0), ("lru", 0.04, 300, 7989, 2519, 372, 2133, 14), ("lru", 0.04, 1500, 13363, 1931, 520, 1198, 213),
        ("fifo", 0.04, 50, 2832, 1806, 152, 1654, 0), ("fifo", 0.04, 300, 7228, 2809, 662, 2133, 14), ("fifo", 0.04, 1500, 12826, 2361, 1028, 1083, 250),
    ]

    @Test("PG equals libCacheSim aa0fc40 on the Zipf trace in objects: 12 cells (lru and fifo, block-size=4096, thresholds 0.05 and 0.04, 50, 300, 1,500 objects), hits and prefetch counts")
    func pgZipf() throws {
        let ids = zipfRequests(requests: 20_000, images: 2_000).map(\.id)
        for (policy, threshold, capacity, hits, issued, used, wasted, unused) in Self.cZipfPG {
            let options = ["prefetch": "pg", "prefetch-params": "block-size=4096,prefetch-threshold=\(threshold)"]
            let (got, counts) = try Self.replay(policy, options, ids, size: 1, capacity: capacity, objects: true)
            #expect(got == hits && counts.issued == issued && counts.hits == used && counts.wasted == wasted && counts.unused == unused, "\(policy) \(threshold) at \(capacity): \(got) \(counts)")
        }
    }

    @Test("a prefetch larger than the cache is not made (libCacheSim evicts from an empty cache there and crashes): counted as a fallback, its rule said; with no prefetch due (a trace of random ids) the run is libCacheSim's")
    func tooLarge() throws {
        let made = try BackendRegistry.named("lru").make(BackendConfig(capacityBytes: 100, options: ["prefetch": "obl"]))
        let requests = Self.sequential.enumerated().map { Request(time: Double($0.offset), id: $0.element, size: 10) }
        let tally = try replayUntimed(requests, backend: made, capacity: 100)
        let counts = made.details.prefetch!
        #expect(counts.issued == 0 && counts.tooLarge == 12 && made.facts.fallbacks == 12, "\(counts)")
        #expect(made.facts.fallbackRule?.contains("prefetches not made: the object is larger than the cache") == true)
        #expect(tally.hits == 0)
    }

    @Test("refused in one line, exit 2: a policy with ghost entries, prefetch-params alone, an unknown prefetcher or parameter, k of 0")
    func refusals() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", "time,key,size\n0,1,10\n1,2,10\n")
        for (backend, capacity, words) in [
            ("arc[prefetch=obl]", "1MiB", "arc keeps ghost entries"),
            ("lru[prefetch-params=block-size=1]", "1MiB", "prefetch-params needs prefetch="),
            ("lru[prefetch=amp]", "1MiB", "unknown prefetcher 'amp'; prefetch= takes obl or pg"),
            ("lru[prefetch=pg;prefetch-params=lookahead-range=0]", "1MiB", "lookahead-range must be a whole number from 1 to 100"),
            ("lru[prefetch=obl;prefetch-params=depth=2]", "1MiB", "obl has no parameter 'depth'"),
            ("lru[prefetch=obl;prefetch-params=sequential-confidence-k=0]", "1MiB", "sequential-confidence-k must be a whole number from 1"),
        ] {
            let result = try bench(["run", "--trace", trace, "--backend", backend, "--capacity", capacity, "--no-timing"])
            #expect(result.status == 2 && result.err.hasPrefix("bench: error: ") && result.err.contains(words) && result.err.split(separator: "\n").count == 1, "\(backend): \(result.err)")
        }
    }
}
