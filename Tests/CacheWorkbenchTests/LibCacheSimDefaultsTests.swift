import Foundation
import Testing
@testable import CacheWorkbench

private let (o, x) = (false, true)
private func unit(_ keys: [UInt64]) -> [(UInt64, Int)] { keys.map { ($0, 1) } }

/// `wtinylfu` and `lirs` by default equal libCacheSim's `WTinyLFU.c` and `LIRS.c`; the
/// Caffeine-style W-TinyLFU and the paper's LIRS are variants.
@Suite("libCacheSim's W-TinyLFU and LIRS by default")
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
            == "window-size=0.01;protected-size=0.8")
        #expect { _ = try kind.make(BackendConfig(capacityBytes: 100, options: ["variant": "tiny"])) } throws: {
            "\($0)".contains("--variant must be one of libcachesim, caffeine")
        }
        #expect { _ = try kind.make(BackendConfig(capacityBytes: 100, options: ["protected-size": "0.5"])) } throws: {
            "\($0)".contains("variant=caffeine")
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
}
