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

private func unit(_ keys: [UInt64]) -> [(UInt64, Int)] { keys.map { ($0, 1) } }

private let (A, B, C, D, E): (UInt64, UInt64, UInt64, UInt64, UInt64) = (1, 2, 3, 4, 5)
private let (F, G, H, I, J): (UInt64, UInt64, UInt64, UInt64, UInt64) = (6, 7, 8, 9, 10)
private let (o, x) = (false, true)

/// The shared AdaptSize sample (`../shared/data/traces/`, webcachesim format; ben-manes/caffeine's
/// `simulator/…/parser/adapt_size/request.trace.xz`).
private let sharedSamplePath = sharedTrace("webcachesim_adaptsize_request.trace.xz")

/// Whether the shared sample is there: the tests on it are skipped, and the skip recorded, without it.
private let haveSharedSample = FileManager.default.fileExists(atPath: sharedSamplePath)

/// The shared sample written as the `time,key,size` CSV the reference script reads (its
/// tests run only when it is there: `.enabled(if: haveSharedSample)`).
private func sharedSample(in folder: TemporaryFolder) throws -> String {
    let path = sharedSamplePath
    try #require(FileManager.default.fileExists(atPath: path), "\(path) is absent")
    let requests = try InMemoryTrace.load(TraceFile(path: path, format: TraceFormat.named("webcachesim")), keepKeyNames: false).requests
    let csv = folder.path + "/adaptsize.csv"
    try OutputFile.write(requests.map { "\(Int($0.time)),\($0.id),\($0.size)\n" }.joined(), to: csv)
    return csv
}

/// `backend` against libCacheSim's `reference` class on the shared sample at 1, 16 and 256 MiB.
private func expectEqualOnSharedSample(backend: String, reference: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let folder = TemporaryFolder()
    let csv = try sharedSample(in: folder)
    for capacity in [1 << 20, 16 << 20, 256 << 20] {
        try expectEqualToLibCacheSim(backend: backend, reference: reference, parameters: [], options: [:],
                                     trace: csv, capacity: capacity, sourceLocation: sourceLocation)
    }
}

/// `backend` against figures libCacheSim's C code gave on the shared sample (capacity, hits,
/// byte hits), recorded from `scripts/reference_libcachesim_c.sh REFERENCE CAPACITY CSV` with
/// LIBCACHESIM_SRC/LIBCACHESIM_BUILD the PyPI package's source (1a1a11a/libCacheSim@dbf8423)
/// and its build; run live as well when those are set.
private func expectEqualToRecordedCOnSharedSample(backend: String, reference: String, recorded: [(capacity: Int, hits: Int, byteHits: Int)],
                                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
    let folder = TemporaryFolder()
    let csv = try sharedSample(in: folder)
    let requests = try InMemoryTrace.load(TraceFile(path: csv), keepKeyNames: false).requests
    #expect(requests.count == 66_987, sourceLocation: sourceLocation)
    let environment = ProcessInfo.processInfo.environment
    let live = environment["LIBCACHESIM_SRC"] != nil && environment["LIBCACHESIM_BUILD"] != nil
    for row in recorded {
        let tally = try replayUntimed(requests, backend: try BackendRegistry.named(backend).make(BackendConfig(capacityBytes: row.capacity)), capacity: row.capacity)
        #expect(tally.hits == row.hits && Int(tally.hitBytes) == row.byteHits, "\(backend) at \(row.capacity)", sourceLocation: sourceLocation)
        if live {
            let run = try runBounded(600, SourceCheckout.root.path + "/scripts/reference_libcachesim_c.sh", [reference, String(row.capacity), csv])
            #expect(run.out.trimmingCharacters(in: .whitespacesAndNewlines) == "hits=\(row.hits) byte_hits=\(row.byteHits) requests=\(requests.count)", sourceLocation: sourceLocation)
        }
    }
}

@Suite("Adaptive policies: LeCaR", .onTestWorkers)
struct AdaptivePolicyTests {
    @Test("lecar: weight 1 on LRU is LRU, weight 0 is LFU (oldest among the lowest count)")
    func lecarExperts() throws {
        let trace = unit([A, A, B, C, B, A])
        // Capacity 2. At C the cache holds A (2 requests, least recent) and B (1): LRU evicts
        // A, so B hits and A misses (evicting C); LFU evicts B, then C for B, and A hits.
        let lru = try PolicySimulator<LeCaRPolicy>(capacity: 2, options: ["lru-weight": "1", "update-weight": "0"])
        #expect(try policyOutcomes(lru, trace) == [o, x, o, o, x, o])
        let lfu = try PolicySimulator<LeCaRPolicy>(capacity: 2, options: ["lru-weight": "0", "update-weight": "0"])
        #expect(try policyOutcomes(lfu, trace) == [o, x, o, o, o, x])
        #expect(lfu.keys(\.lru) == [A, B])
        #expect(lfu.settings == "update-weight=0;lru-weight=0.0;generator=lehmer64;seed=3735928559;reference=libcachesim-0.3.5")
    }

    @Test("lecar: a hit in LRU's history lowers LRU's weight by exp(−0.45 · dr^t), both renormalized")
    func lecarLearns() throws {
        // Capacity 2, w_lru 1 (w_lfu stays 0.5, as LeCaR_init leaves it): request 4 (C)
        // evicts A by LRU; request 5 (A) finds it in LRU's history one request later.
        let cache = try PolicySimulator<LeCaRPolicy>(capacity: 2, options: ["lru-weight": "1"])
        _ = try policyOutcomes(cache, unit([A, A, B, C]))
        #expect(cache.policyState(\.lruWeight) == 1 && cache.policyState(\.lfuWeight) == 0.5)
        _ = try policyOutcomes(cache, unit([A]))
        let dr = 0.005.squareRoot()  // 0.005^(1/capacity), capacity 2
        let lowered = exp(-0.45 * dr) + 1e-10  // ≈ 0.968681
        let sum = lowered + 0.5 + 2e-10
        #expect(abs(cache.policyState(\.lruWeight) - lowered / sum) < 1e-12)  // ≈ 0.65956
        #expect(abs(cache.policyState(\.lfuWeight) - (0.5 + 1e-10) / sum) < 1e-12)
        // A miss outside the histories changes nothing; update-weight=0 never learns.
        let before = cache.policyState(\.lruWeight)
        _ = try policyOutcomes(cache, unit([D]))
        #expect(cache.policyState(\.lruWeight) == before)
        let fixed = try PolicySimulator<LeCaRPolicy>(capacity: 2, options: ["lru-weight": "1", "update-weight": "0"])
        _ = try policyOutcomes(fixed, unit([A, A, B, C, A]))
        #expect(fixed.policyState(\.lruWeight) == 1)
    }

    @Test("lecar: bad parameters are errors")
    func lecarOptions() {
        #expect(throws: WorkbenchError.self) { try PolicySimulator<LeCaRPolicy>(capacity: 2, options: ["update-weight": "2"]) }
        #expect(throws: WorkbenchError.self) { try PolicySimulator<LeCaRPolicy>(capacity: 2, options: ["lru-weight": "1.5"]) }
    }

    @Test("lecar equals libCacheSim's LeCaR (its draws reproduced)")
    func lecarExact() throws {
        try expectEqualToLibCacheSim(backend: "lecar", reference: "LeCaR")
        try expectEqualToLibCacheSim(backend: "lecar", reference: "LeCaR", parameters: ["lru_weight=0.3"])
        try expectEqualToLibCacheSim(backend: "lecar", reference: "LeCaR", parameters: ["update_weight=0"])
    }

    @Test("lecar equals libCacheSim's LeCaR on the shared AdaptSize sample", .enabled(if: haveSharedSample, "needs ../shared/data/traces/webcachesim_adaptsize_request.trace.xz"))
    func lecarExactOnSharedSample() throws {
        try expectEqualOnSharedSample(backend: "lecar", reference: "LeCaR")
    }
}

@Suite("Adaptive policies: Cacheus and its experts", .onTestWorkers)
struct CacheusTests {
    /// Unit-size objects admitted into a bare SR-LRU, its overflow dropped.
    private struct Bench {
        var nodes = PolicyNodes<CacheusMeta>()
        var lru: SRLRU
        var slots: [UInt64: Int32] = [:]

        init(capacity: Int) { lru = SRLRU(capacity: capacity) }

        mutating func admit(_ keys: UInt64...) {
            for key in keys {
                let slot = nodes.add(key, cost: 1, meta: CacheusMeta())
                slots[key] = slot
                lru.admit(slot, &nodes)
                for pushed in lru.overflow { nodes.free(pushed) }
            }
        }

        mutating func hit(_ key: UInt64) { lru.hit(slots[key]!, &nodes) }
        var r: [UInt64] { nodes.keys(lru.r) }
        var sr: [UInt64] { nodes.keys(lru.sr) }
    }

    @Test("SR-LRU: new objects in SR, hits to R, R's tails demoted, an id back from history grows SR")
    func srlru() {
        // Capacity 8: SR and R 4 bytes each, history 8.
        var bench = Bench(capacity: 8)
        bench.admit(A, B, C, D, E)  // SR holds 5 > 4: A, new, leaves for history
        #expect(bench.sr == [E, D, C, B] && bench.lru.historyKeys == [A] && bench.lru.new == 1)
        bench.hit(B)  // SR → R
        bench.admit(F, G)  // SR [G F E D C]: C leaves, new
        #expect(bench.r == [B] && bench.sr == [G, F, E, D] && bench.lru.historyKeys == [C, A] && bench.lru.new == 2)
        bench.hit(D)
        // A is back from history and was new: R takes it; SR grows by max(1, ⌊0 demoted / 2 new⌋
        // + 0.5) = 1 byte, to 5 (no more than the 6 bytes held − 1); R shrinks to 8 − 5 = 3.
        bench.admit(A)
        #expect(bench.r == [A, D, B] && bench.sr == [G, F, E] && bench.lru.historyKeys == [C])
        #expect(bench.lru.srSize == 5 && bench.lru.rSize == 3)
        bench.admit(H, I, J)  // SR [J I H G F E]: 6 > 5, E leaves
        #expect(bench.sr == [J, I, H, G, F] && bench.lru.historyKeys == [E, C] && bench.lru.new == 3)
        // F hit in SR goes to R, which then holds 4 > 3: its tail B is demoted to SR's head.
        bench.hit(F)
        #expect(bench.r == [F, A, D] && bench.sr == [B, J, I, H, G] && bench.lru.demoted == 1)
        #expect(bench.nodes.keys(bench.lru.sr).count == 5 && bench.lru.candidate == bench.slots[G])
        // Eviction takes SR's tail into history; a demoted one is uncounted.
        let evicted = bench.lru.evict(&bench.nodes)
        #expect(bench.nodes[evicted].key == G && bench.lru.historyKeys == [G, E, C])
        bench.lru.remove(bench.slots[B]!, &bench.nodes)
        #expect(bench.lru.demoted == 0 && bench.lru.historyKeys == [B, G, E, C])
        // History keeps less than its 8 bytes: 8 ids would fill it, so the oldest goes.
        for key in [D, A, F, H, I] as [UInt64] { bench.lru.remove(bench.slots[key]!, &bench.nodes) }
        #expect(bench.lru.historyKeys == [I, H, F, A, D, B, G])
    }

    @Test("CR-LFU: the last to reach the lowest count goes; counts come back from history + 1")
    func crlfu() {
        var nodes = PolicyNodes<CacheusMeta>()
        var lfu = CRLFU()
        var slots: [UInt64: Int32] = [:]
        func insert(_ key: UInt64, remembered: Int? = nil) {
            slots[key] = nodes.add(key, cost: 1, meta: CacheusMeta())
            lfu.insert(slots[key]!, &nodes, remembered: remembered)
        }
        func evicted() -> UInt64 { nodes[lfu.evict(&nodes)].key }
        insert(A); insert(B); insert(C)
        lfu.hit(slots[A]!, &nodes)  // A: 2
        #expect(evicted() == C && evicted() == B)  // count 1 empties: the lowest becomes 2
        #expect(lfu.lowest == 2)
        insert(D, remembered: 3)  // count 4; the lowest stays 2
        #expect(nodes[slots[D]!].meta.frequency == 4 && lfu.lowest == 2)
        #expect(evicted() == A && lfu.lowest == 4)
        // A removal that empties the lowest count keeps it when no count above holds an object
        // (as CR_LFU_remove); an insert below it lowers it.
        lfu.remove(slots[D]!, &nodes)
        #expect(lfu.lowest == 4)
        insert(E, remembered: 5)  // count 6 > 4: the lowest stays on the empty count 4
        #expect(lfu.lowest == 4 && lfu.fallbacks == 0)
        #expect(evicted() == E && lfu.fallbacks == 1)  // C would read a null object: counted
    }

    @Test("cacheus: a new object waits in SR (half the capacity), so only a re-reference from history stays")
    func cacheusScanResistance() throws {
        // Capacity 2 (unit sizes): SR 1, R 1. B pushes A out of SR into history; A comes back
        // from history into R and then hits. LRU would have kept both.
        let cache = try PolicySimulator<CacheusPolicy>(capacity: 2, options: [:])
        #expect(try policyOutcomes(cache, unit([A, B, A, A])) == [o, o, o, x])
        #expect(cache.keys(\.lru.r) == [A] && cache.keys(\.lru.sr) == [B])
        let lru = try PolicySimulator<LRUPolicy>(capacity: 2, options: [:])
        #expect(try policyOutcomes(lru, unit([A, B, A, A])) == [o, o, x, x])
        // The learning rate is the first draw, 0.001 + (next_rand() % 1000) / 1000 (0.698 from
        // 0xdeadbeef). Every 2 requests (the capacity) it moves: before request 3, the hit rate
        // 0 / 2 did not rise (0 − 0) while the rate did (lr − 0), so it steps down by |lr · lr|:
        // 0.698 − 0.487204 = 0.210796. Request 5 has not come, so no second step.
        let generator = LibCacheSimRandom()
        let first = 0.001 + Double(generator.next() % 1000) / 1000
        #expect(try PolicySimulator<CacheusPolicy>(capacity: 2, options: [:]).policyState(\.learningRate) == first)
        #expect(first == 0.698 && abs(cache.policyState(\.learningRate) - 0.210796) < 1e-12)
        #expect(cache.settings == "generator=lehmer64;seed=3735928559;reference=libcachesim-0.3.5")
    }

    @Test("cacheus equals libCacheSim's Cacheus (its draws reproduced)")
    func cacheusExact() throws {
        try expectEqualToLibCacheSim(backend: "cacheus", reference: "Cacheus")
    }

    @Test("cacheus equals libCacheSim's Cacheus on the shared AdaptSize sample", .enabled(if: haveSharedSample, "needs ../shared/data/traces/webcachesim_adaptsize_request.trace.xz"))
    func cacheusExactOnSharedSample() throws {
        try expectEqualOnSharedSample(backend: "cacheus", reference: "Cacheus")
    }

    @Test("crlfu: of the objects with the lowest count, the last to reach it goes")
    func crlfuAlone() throws {
        // Capacity 2: at C, A and B both count 1; CR-LFU evicts B (the last to reach 1), so A
        // hits; libCacheSim's LFU evicts A (the first).
        #expect(try policyOutcomes(try PolicySimulator<CRLFUPolicy>(capacity: 2, options: [:]), unit([A, B, C, A])) == [o, o, o, x])
        #expect(try policyOutcomes(try PolicySimulator<LFUPolicy>(capacity: 2, options: [:]), unit([A, B, C, A])) == [o, o, o, o])
    }

    @Test("crlfu equals libCacheSim's CR_LFU run alone (recorded from its C code; live with LIBCACHESIM_SRC/BUILD)")
    func crlfuExact() throws {
        try expectEqualToRecordedC(backend: "crlfu", reference: "crlfu", recorded: [
            (true, 1 << 20, 1203, 180_016_496), (true, 8 << 20, 4841, 892_165_830), (true, 64 << 20, 8302, 1_820_317_529),
            (false, 50, 4983, 4983), (false, 300, 8087, 8087), (false, 1500, 13325, 13325),
        ])
    }

    @Test("crlfu equals libCacheSim's CR_LFU on the shared AdaptSize sample (recorded)", .enabled(if: haveSharedSample, "needs ../shared/data/traces/webcachesim_adaptsize_request.trace.xz"))
    func crlfuExactOnSharedSample() throws {
        try expectEqualToRecordedCOnSharedSample(backend: "crlfu", reference: "crlfu", recorded: [
            (1 << 20, 12519, 110_745_543), (16 << 20, 20064, 150_782_342), (256 << 20, 30136, 206_385_610),
        ])
    }

    /// Hits libCacheSim gave on the ARC paper's OLTP block trace (`../shared/data/traces/
    /// arc_OLTP.lis.zst`, 914,145 requests of 512 bytes: byte hits are hits × 512), recorded
    /// because the reference replays it in minutes: `bench convert arc_OLTP.lis.zst oltp.csv`,
    /// then `scripts/reference_libcachesim.py LeCaR|Cacheus CAPACITY oltp.csv` (PyPI package
    /// 0.3.5) and `scripts/reference_libcachesim_c.sh crlfu CAPACITY oltp.csv` (its source).
    @Test("lecar, cacheus and crlfu equal libCacheSim on the OLTP block trace (recorded)",
          .enabled(if: FileManager.default.fileExists(atPath: sharedTrace("arc_OLTP.lis.zst")), "needs ../shared/data/arc_OLTP.lis.zst; absent in a clone without ../shared"))
    func oltpExact() throws {
        let requests = try InMemoryTrace.load(TraceFile(path: sharedTrace("arc_OLTP.lis.zst")), keepKeyNames: false).requests
        #expect(requests.count == 914_145)
        let recorded: [(backend: String, capacity: Int, hits: Int)] = [
            ("lecar", 512_000, 322_020), ("lecar", 5_120_000, 561_275), ("lecar", 51_200_000, 716_263),
            ("cacheus", 512_000, 349_591), ("cacheus", 5_120_000, 566_989), ("cacheus", 51_200_000, 716_543),
            ("crlfu", 512_000, 128_885), ("crlfu", 5_120_000, 283_694), ("crlfu", 51_200_000, 602_901),
        ]
        for row in recorded {
            let backend = try BackendRegistry.named(row.backend).make(BackendConfig(capacityBytes: row.capacity))
            let tally = try replayUntimed(requests, backend: backend, capacity: row.capacity)
            #expect(tally.hits == row.hits && Int(tally.hitBytes) == row.hits * 512, "\(row.backend) at \(row.capacity)")
        }
    }
}
