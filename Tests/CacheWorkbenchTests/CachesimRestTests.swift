import Foundation
import Testing
@testable import CacheWorkbench
@testable import WorkbenchCore
@testable import WorkbenchTraces
@testable import WorkbenchBackends
@testable import WorkbenchSimulation

/// Issue 45 §2: the rest of libCacheSim's cachesim — `nop`, `lfucpp` and the Belady-assisted
/// `lru-belady`, `fifo-belady`, `sieve-belady` — against hand-computed traces and against
/// libCacheSim's C code at its repository's aa0fc40 (built outside the project; a driver
/// calling cachesim's own `create_cache` and `cache->get` per request, on oracleGeneral files
/// its `traceConv` wrote), whose figures are stored here.
@Suite("the rest of cachesim: nop, lfucpp, Belady-assisted LRU, FIFO and SIEVE", .onTestWorkers)
struct CachesimRestTests {
    /// Hits of `name` over `keys` (unit sizes) at `capacity` objects, with the backend.
    static func replay(_ name: String, _ keys: [UInt64], capacity: Int) throws -> (hits: Int, backend: any CacheBackend) {
        let requests = keys.enumerated().map { Request(time: Double($0.offset), id: $0.element, size: 1) }
        var config = BackendConfig(capacityBytes: capacity)
        config.nextAccess = try NextAccess.compute(InMemoryTrace(label: "hand", requests: requests))
        let backend = try BackendRegistry.named(name).make(config)
        return (try replayUntimed(requests, backend: backend, capacity: capacity).hits, backend)
    }

    @Test("hand traces at 2 objects: A B C A gives lru-belady and fifo-belady 1 hit (A, next wanted 1 request away under a threshold of 2 / (2/3) = 3, is spared and B goes; lru and fifo 0); sieve-belady 0 (the first request is never stored: no miss yet, an infinite threshold truncated to Int64.min; B and C are never requested again); A B C B A: sieve-belady 1 (B), lru-belady 1 after one fallback (at C both cached objects are wanted: libCacheSim turns its queue forever)")
    func handTraces() throws {
        let (A, B, C): (UInt64, UInt64, UInt64) = (1, 2, 3)
        for name in ["lru-belady", "fifo-belady"] { #expect(try Self.replay(name, [A, B, C, A], capacity: 2).hits == 1, "\(name)") }
        for name in ["lru", "fifo"] { #expect(try Self.replay(name, [A, B, C, A], capacity: 2).hits == 0, "\(name)") }
        let sieve = try Self.replay("sieve-belady", [A, B, C, A], capacity: 2)
        #expect(sieve.hits == 0 && sieve.backend.facts.entries == 0 && sieve.backend.facts.fallbacks == 0)
        let stored = try Self.replay("sieve-belady", [A, B, C, B, A], capacity: 2)
        #expect(stored.hits == 1 && stored.backend.facts.entries == 1 && stored.backend.facts.fallbacks == 0)
        let turned = try Self.replay("lru-belady", [A, B, C, B, A], capacity: 2)
        #expect(turned.hits == 1 && turned.backend.facts.fallbacks == 1)
        let nop = try Self.replay("nop", [A, A, A], capacity: 2)
        #expect(nop.hits == 0 && nop.backend.facts.entries == 0 && nop.backend.facts.evictions == 0)
    }

    /// aa0fc40's counts on `bench gen --requests 20000 --images 2000 --keys id --plain`
    /// (`zipfRequests(20000, 2000)`): (policy, capacity, unit sizes, hits, byte hits).
    /// libCacheSim ends no byte-capacity run of the Belady-assisted three: lru-belady and
    /// fifo-belady turn their queue forever, sieve-belady dereferences NULL.
    static let cReference: [(String, Int, Bool, Int, Int)] = [
        ("nop", 50, true, 0, 0), ("nop", 1 << 20, false, 0, 0), ("nop", 64 << 20, false, 0, 0),
        ("lfucpp", 50, true, 5967, 5967), ("lfucpp", 300, true, 9772, 9772), ("lfucpp", 1500, true, 13847, 13847),
        ("lfucpp", 1 << 20, false, 1276, 190_576_313), ("lfucpp", 8 << 20, false, 5229, 1_014_542_092), ("lfucpp", 64 << 20, false, 9708, 2_123_566_513),
        ("lru-belady", 50, true, 4976, 4976), ("lru-belady", 300, true, 10223, 10223), ("lru-belady", 1500, true, 15006, 15006),
        ("fifo-belady", 50, true, 4743, 4743), ("fifo-belady", 300, true, 10044, 10044), ("fifo-belady", 1500, true, 14961, 14961),
        ("sieve-belady", 50, true, 6429, 6429), ("sieve-belady", 300, true, 10810, 10810), ("sieve-belady", 1500, true, 14429, 14429),
    ]

    @Test("nop, lfucpp and the Belady-assisted three equal libCacheSim aa0fc40's C code on a 20,000-request Zipf trace (18 cells); with byte capacities, where libCacheSim does not finish, the Belady-assisted runs end and count their fallbacks")
    func cSimulator() throws {
        let requests = zipfRequests(requests: 20_000, images: 2_000)
        let units = requests.map { Request(time: $0.time, id: $0.id, size: 1) }
        let future = try NextAccess.compute(InMemoryTrace(label: "zipf", requests: requests))
        for (name, capacity, unitSizes, hits, hitBytes) in Self.cReference {
            var config = BackendConfig(capacityBytes: capacity)
            config.nextAccess = future
            let tally = try replayUntimed(unitSizes ? units : requests, backend: BackendRegistry.named(name).make(config), capacity: capacity)
            #expect(tally.hits == hits && tally.hitBytes == ByteTotal(hitBytes), "\(name) at \(capacity): \(tally.hits), \(tally.hitBytes)")
        }
        for name in ["lru-belady", "fifo-belady", "sieve-belady"] {
            var config = BackendConfig(capacityBytes: 1 << 20)
            config.nextAccess = future
            let backend = try BackendRegistry.named(name).make(config)
            _ = try replayUntimed(requests, backend: backend, capacity: 1 << 20)
            #expect(backend.facts.fallbacks > 0 && backend.facts.fallbackRule?.contains("libCacheSim's \(name)") == true, "\(name)")
        }
    }

    /// aa0fc40's hits on the ARC paper's OLTP trace at 1,000, 10,000 and 100,000 objects
    /// (`bench convert arc_OLTP.lis.zst oltp.csv`, then its `traceConv` to oracleGeneral).
    @Test("lfucpp and the Belady-assisted three equal libCacheSim aa0fc40 on the OLTP block trace (12 cells, recorded)",
          .enabled(if: FileManager.default.fileExists(atPath: sharedTrace("arc_OLTP.lis.zst")), "needs ../shared/data/arc_OLTP.lis.zst; absent in a clone without ../shared"))
    func oltp() throws {
        let loaded = try InMemoryTrace.load(TraceFile(path: sharedTrace("arc_OLTP.lis.zst")), keepKeyNames: false).requests
        let requests = loaded.map { Request(time: $0.time, id: $0.id, size: 1) }
        #expect(requests.count == 914_145)
        let future = try NextAccess.compute(InMemoryTrace(label: "oltp", requests: requests))
        let recorded: [(String, [Int])] = [
            ("lfucpp", [126_458, 311_580, 715_845]), ("lru-belady", [387_495, 609_798, 726_670]),
            ("fifo-belady", [378_912, 604_135, 726_365]), ("sieve-belady", [406_947, 615_349, 715_899]),
        ]
        for (name, hits) in recorded {
            for (capacity, expected) in zip([1_000, 10_000, 100_000], hits) {
                var config = BackendConfig(capacityBytes: capacity)
                config.nextAccess = future
                let backend = try BackendRegistry.named(name).make(config)
                let tally = try replayUntimed(requests, backend: backend, capacity: capacity)
                #expect(tally.hits == expected && backend.facts.fallbacks == 0, "\(name) at \(capacity): \(tally.hits)")
            }
        }
    }
}
