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
@Suite("prefetching: OBL in front of a policy", .onTestWorkers)
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

    @Test("equal to libCacheSim aa0fc40 on ARC's OLTP trace (recorded): lru and fifo with default OBL at 1,000 objects (262,734 and 234,120 hits, 2,594 prefetches all hit) and block-size=1 at 10,000 (557,500 and 526,297); the CSV's prefetch columns",
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
        for (name, hits) in [("lru", 557_500), ("fifo", 526_297)] {
            var config = BackendConfig(capacityBytes: 10_000, options: ["prefetch": "obl", "prefetch-params": "block-size=1"])
            config.countsObjects = true
            #expect(try replayUntimed(units, backend: BackendRegistry.named(name).make(config), capacity: 10_000).hits == hits, "\(name)")
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
            ("lru[prefetch=amp]", "1MiB", "unknown prefetcher 'amp'"),
            ("lru[prefetch=obl;prefetch-params=depth=2]", "1MiB", "obl has no parameter 'depth'"),
            ("lru[prefetch=obl;prefetch-params=sequential-confidence-k=0]", "1MiB", "sequential-confidence-k must be a whole number from 1"),
        ] {
            let result = try bench(["run", "--trace", trace, "--backend", backend, "--capacity", capacity, "--no-timing"])
            #expect(result.status == 2 && result.err.hasPrefix("bench: error: ") && result.err.contains(words) && result.err.split(separator: "\n").count == 1, "\(backend): \(result.err)")
        }
    }
}
