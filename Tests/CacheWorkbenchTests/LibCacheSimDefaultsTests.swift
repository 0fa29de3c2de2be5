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

private let (o, x) = (false, true)
private func unit(_ keys: [UInt64]) -> [(UInt64, Int)] { keys.map { ($0, 1) } }

/// `wtinylfu` and `lirs` by default equal libCacheSim's `WTinyLFU.c` and `LIRS.c`; the
/// Caffeine-style W-TinyLFU and the paper's LIRS are variants.
@Suite("libCacheSim's W-TinyLFU and LIRS by default", .onTestWorkers)
struct LibCacheSimDefaultsTests {
    @Test("XXH64 of an 8-byte id equals libCacheSim's xxhash.h (low 32 bits, its two seeds)")
    func xxhash() {
        // Printed by a C program including libCacheSim's dataStructure/hash/xxhash.h:
        // (unsigned)XXH64(&id, 8, 0x12345678), (unsigned)XXH64(&id, 8, 0x12344321).
        let expected: [(UInt64, UInt32, UInt32)] = [
            (0, 972_412_019, 3_092_930_169), (1, 2_721_530_007, 3_411_563_711), (2, 3_587_778_993, 4_101_528_125),
            (42, 878_736_933, 406_870_152), (123_456_789, 3_162_077_990, 3_134_705_060),
            (.max, 1_830_715_049, 2_996_653_383),
        ]
        for (id, a, b) in expected {
            #expect(UInt32(truncatingIfNeeded: XXHash64.hash(id, seed: 0x1234_5678)) == a)
            #expect(UInt32(truncatingIfNeeded: XXHash64.hash(id, seed: 0x1234_4321)) == b)
        }
    }

    @Test("the counting Bloom filter: libCacheSim's sizing, all-counter increments, halving")
    func countingBloomFilter() {
        // 8 entries at 0.001: bpe = ln(1000)/ln²2 = 14.3775…, ⌈8 · bpe⌉ = 116 counters, ⌈ln2 · bpe⌉ = 10 hashes.
        var filter = CountingBloomFilter(entries: 8, error: 0.001)
        defer { filter.deallocate() }
        #expect(filter.hashes == 10 && filter.counterCount == 116)
        for _ in 0..<5 { filter.add(7) }
        filter.add(9)
        #expect(filter.estimate(7) == 5 && filter.estimate(9) == 1 && filter.estimate(3) == 0)
        filter.decay()
        #expect(filter.estimate(7) == 2 && filter.estimate(9) == 0)
        // libCacheSim passes the main cache's bytes as an `int`: 2³² + 8 bytes wraps to 8.
        let wrapped = CountingBloomFilter(entries: (1 << 32) + 8, error: 0.001)
        #expect(wrapped.counterCount == 116)
        wrapped.deallocate()
        // Above 2²² counters only touched counters are kept; the counts are the same.
        var sparse = CountingBloomFilter(entries: 64 << 20, error: 0.001)
        #expect(sparse.counterCount > 1 << 22)
        for _ in 0..<3 { sparse.add(7) }
        #expect(sparse.estimate(7) == 3 && sparse.estimate(8) == 0)
        sparse.decay()
        #expect(sparse.estimate(7) == 1)
    }

    @Test("wtinylfu (libCacheSim): the window drains into the main cache; duels by the filter's count")
    func wtinylfuLibCacheSim() throws {
        // Capacity 10, window-size 0.2: window 2, main 8, probation ⌊0.2 · 8⌋ = 1, protected ⌊0.8 · 8⌋ = 6.
        let cache = try PolicySimulator<WTinyLFUPolicy>(capacity: 10, options: ["window-size": "0.2"])
        let (a, b, c, d, e, f, g, h, i, j, k): (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
        // A…J fill the cache (the window grows while the cache has room). K: the window drains
        // A → probation, B…G → protected, H → probation (over it: neither segment has room but
        // the main cache does); I (count 1) loses to probation's A (inserted + moved: 2) and is
        // evicted. A's hit promotes it; protected's tail B cools to probation, whose tail H is
        // evicted. H misses (fits). I misses: J moves to probation; K (1) loses to B (2), evicted.
        // K misses: H (3: two inserts, one move) beats probation's B (2) and replaces it, which
        // ends the round.
        #expect(try policyOutcomes(cache, unit([a, b, c, d, e, f, g, h, i, j, k, a, h, i, k]))
            == [o, o, o, o, o, o, o, o, o, o, o, x, o, o, o])
        #expect(cache.keys { $0.window } == [k, i])
        #expect(cache.keys { $0.probation } == [h, j])
        #expect(cache.keys { $0.protected } == [a, g, f, e, d, c])
        #expect(cache.facts.evictions == 4)
        // Objects larger than the window (⌊100 · 0.01⌋ = 1 byte) are never stored.
        let plain = try PolicySimulator<WTinyLFUPolicy>(capacity: 100)
        #expect(try policyOutcomes(plain, [(a, 2), (a, 2), (b, 1), (b, 1)]) == [o, o, o, x])
    }

    @Test("wtinylfu[variant=…]: libcachesim is the default, caffeine the other; bad values are errors")
    func wtinylfuVariants() throws {
        let kind = try BackendRegistry.named("wtinylfu")
        #expect(try kind.make(BackendConfig(capacityBytes: 100, options: [:])).settings.hasPrefix("variant=libcachesim"))
        #expect(try kind.make(BackendConfig(capacityBytes: 100, options: ["variant": "caffeine"])).settings
            == "variant=caffeine;window-size=0.01;protected-size=0.8;climber=on")
        #expect { _ = try kind.make(BackendConfig(capacityBytes: 100, options: ["variant": "tiny"])) } throws: {
            "\($0)".contains("--variant must be one of libcachesim, caffeine")
        }
        for name in ["protected-size", "climber"] {
            #expect { _ = try kind.make(BackendConfig(capacityBytes: 100, options: [name: "0.5"])) } throws: {
                "\($0)".contains("--\(name) applies to wtinylfu[variant=caffeine]")
            }
        }
        #expect { _ = try kind.make(BackendConfig(capacityBytes: 100, options: ["variant": "caffeine", "climber": "maybe"])) } throws: {
            "\($0)".contains("--climber must be one of on, off")
        }
    }

    @Test("wtinylfu equals libCacheSim's WTinyLFU: object and byte hits")
    func wtinylfuReference() throws {
        try expectEqualToLibCacheSim(backend: "wtinylfu", reference: "WTinyLFU")
        try expectEqualToLibCacheSim(backend: "wtinylfu", reference: "WTinyLFU", parameters: ["window_size=0.2"],
                                     options: ["window-size": "0.2"])
    }
}

extension LibCacheSimDefaultsTests {
    @Test("lirs (libCacheSim): LIR while the LIR set has room; Q is an LRU; a Q hit not in S demotes first")
    func lirsLibCacheSim() throws {
        // Capacity 4, hirs-ratio 0.25: Q holds 1 byte, the LIR set 3.
        let cache = try LIRSLibCacheSim(capacity: 4, options: PolicyOptions(values: ["hirs-ratio": "0.25"]))
        let (a, b, c, d, e): (UInt64, UInt64, UInt64, UInt64, UInt64) = (1, 2, 3, 4, 5)
        // A B C fill the LIR set. D: resident HIR (S and Q). E: Q is full (1 + 1 > 1) and the
        // LIR set too: D is evicted (its S entry turns non-resident), E resident HIR.
        // D again (a non-resident id in S): the bottom LIR A is demoted to Q, evicting E from
        // Q (E's S entry non-resident); D becomes LIR. A (in Q, not in S): the LIR set is full,
        // so the bottom LIR B is demoted to Q — evicting A itself from Q — and A still gets an
        // S entry as a resident HIR, which libCacheSim's byte count no longer includes.
        // A again: resident HIR in S with no Q entry; the LIR set has room (2 + 1 ≤ 3): LIR.
        // B (in Q): demotes C, which evicts B from Q; pruning drops E's non-resident entry;
        // B gets an S entry (hit). C (in Q): an S entry (hit). E: a miss, and LIR (2 + 1 ≤ 3).
        // B (resident HIR in S): demotes D (evicting C from Q: C's entry turns non-resident),
        // then becomes LIR.
        let outcomes = try policyOutcomes(cache, unit([a, b, c, d, e, d, a, a, b, c, e, b]))
        #expect(outcomes == [o, o, o, o, o, o, x, x, x, x, o, x])
        #expect(cache.facts.accountedBytes == 4)
        #expect(cache.facts.fallbacks == 0)
    }

    @Test("lirs[variant=…]: libcachesim is the default, paper the other; bad values are errors")
    func lirsVariants() throws {
        let kind = try BackendRegistry.named("lirs")
        #expect(try kind.make(BackendConfig(capacityBytes: 100, options: [:])).settings == "variant=libcachesim;hirs-ratio=0.01")
        #expect(try kind.make(BackendConfig(capacityBytes: 100, options: ["variant": "paper"])).settings == "hirs-ratio=0.01")
        #expect { _ = try kind.make(BackendConfig(capacityBytes: 100, options: ["variant": "clock"])) } throws: {
            "\($0)".contains("--variant must be one of libcachesim, paper")
        }
    }

    @Test("lirs equals libCacheSim's LIRS: object and byte hits")
    func lirsReference() throws {
        try expectEqualToLibCacheSim(backend: "lirs", reference: "LIRS")
    }

    /// At these capacities of the test trace libCacheSim's `hit_RD_HIRinQ` reads a freed
    /// object's size (LIRS.c:612) and stops demoting early: 1,616 and 9,007 hits there, where
    /// reading the hit object's own size gave 1,607 and 9,028 (before `StaleObject`).
    @Test("lirs reads what libCacheSim reads through its freed pointer, and says how often")
    func lirsStalePointer() throws {
        let folder = TemporaryFolder()
        let (trace, _) = try libCacheSimTestTraces(in: folder)
        for capacity in [4_571_662, 48_459_627] {
            try expectEqualToLibCacheSim(backend: "lirs", reference: "LIRS", parameters: [], options: [:], trace: trace, capacity: capacity)
        }
        let run = try bench(["run", "--trace", trace, "--backend", "lirs", "--capacity", "4571662", "--no-timing"])
        #expect(run.status == 0 && run.out.contains("lirs at 4.36MiB: 1 loop turn(s) in libCacheSim's hit_RD_HIRinQ read the size of another object"), "\(run.out)")
    }
}

extension LibCacheSimDefaultsTests {
    @Test("Caffeine's hill climber: shrinks first, keeps direction while the hit rate holds, decays, restarts on a 5-point jump")
    func hillClimber() {
        var climber = HillClimber(maximum: 1_000)
        #expect(climber.stepSize == -62.5)
        // An incomplete sample changes nothing.
        climber.record(hit: true)
        climber.determineAdjustment(sampleSize: 4)
        #expect(climber.adjustment == 0)
        // Sample 1: 2 of 4 hits, 0.5 − 0 ≥ 0: keep the (negative) step, −62; a jump ≥ 0.05 restarts the
        // step at 62.5 in the direction taken (−62.5).
        for hit in [false, true, false] { climber.record(hit: hit) }
        climber.determineAdjustment(sampleSize: 4)
        #expect(climber.adjustment == -62 && climber.stepSize == -62.5 && climber.previousHitRate == 0.5)
        // Sample 2: 0.52 (13 of 25), up by 0.02: same direction, −62; below the threshold the step decays: −61.25.
        for index in 0..<25 { climber.record(hit: index < 13) }
        climber.determineAdjustment(sampleSize: 25)
        #expect(climber.adjustment == -62 && climber.stepSize == -61.25)
        // Sample 3: 0.50, down by 0.02: turn back, +61; the step decays from +61.25 to 60.025.
        for index in 0..<50 { climber.record(hit: index < 25) }
        climber.determineAdjustment(sampleSize: 50)
        #expect(climber.adjustment == 61 && abs(climber.stepSize - 60.025) < 1e-9)
    }

    @Test("wtinylfu[variant=caffeine]: the climber moves capacity from the window to protected, by hand")
    func caffeineClimbs() throws {
        // Capacity 50, window-size 0.2: window 10, protected ⌊40 · 0.8⌋ = 32. 30 keys in a loop all
        // fit: the sketch is 32 wide, so a sample is 320 requests. Sample 1 (30 misses, 290 hits)
        // closes at request 320: the step starts at −3.125, so −3: window 7, protected 35. Sample 2
        // (320 hits, +0.094 ≥ 0.05: same direction, step restarts at −3.125): window 4, protected 38.
        let items = (0..<640).map { (UInt64($0 % 30), 1) }
        let adaptive = try PolicySimulator<WTinyLFUCaffeinePolicy>(capacity: 50, options: ["window-size": "0.2"])
        let fixed = try PolicySimulator<WTinyLFUCaffeinePolicy>(capacity: 50, options: ["window-size": "0.2", "climber": "off"])
        #expect(try policyOutcomes(adaptive, items).filter { $0 }.count == 610)
        #expect(try policyOutcomes(fixed, items).filter { $0 }.count == 610)
        #expect(fixed.policyState { [$0.windowSize, $0.protectedSize] as [Int] } == [10, 32])
        #expect(adaptive.policyState { [$0.windowSize, $0.protectedSize] as [Int] } == [4, 38])
        // Each step moved the window's three least recent objects to probation: 20, 21, 22 after
        // request 320 (then hit: protected), 10, 11, 12 after request 640.
        #expect(adaptive.keys { $0.probation }.sorted() == [10, 11, 12])
        #expect(adaptive.keys { $0.protected }.sorted() == [20, 21, 22])
        #expect(adaptive.keys { $0.window }.count == 24)
    }
}
