import WorkbenchCore
/// What each policy simulator is checked against and how (issue 45 §4): the code or paper it
/// follows, the kind of check, and the tests that hold the check (`Struct.function` in
/// Tests/CacheWorkbenchTests; `PolicyReferenceTests` checks that each exists). Printed by
/// `bench list --json` and tabled in docs/policies.md. A policy registered without an entry
/// here fails `PolicyReferenceTests`.
public struct PolicyReference: Sendable {
    /// The code or paper, with its version: "libCacheSim 0.3.5 (PyPI)", a repository commit.
    public let against: String
    /// exact (equal object and byte hits), exact where the reference finishes, a property, hand traces.
    public let how: String
    /// The tests that check it.
    public let tests: [String]

    /// The PyPI package's grid: a 20,000-request Zipf trace at 1, 8 and 64 MiB and with unit
    /// sizes at 50, 300 and 1,500 objects, object and byte hits equal.
    static let grid = "exact: equal object and byte hits on a 20,000-request Zipf trace at 1, 8, 64 MiB and 50, 300, 1,500 objects"
    static let pypi = "libCacheSim 0.3.5 (PyPI), its C code through the package"
    static let aa0fc40 = "libCacheSim's repository at aa0fc40 (C, cachesim's create_cache)"
    /// libCacheSim's repository code differs and no reference option reproduces it.

    /// The learned policies: libCacheSim's own cache answers each request.
    static let learned = PolicyReference(against: pypi + ", the package itself in a Python process", how: "exact by construction (its cache answers); Zipf at 8, 64 MiB and 300 objects", tests: ["LearnedPolicyTests.equalToThePackage"])

    /// A Belady-assisted policy of libCacheSim's `belady/` folder; with bytes libCacheSim `loops` or `crashes`.
    static func beladyAssisted(_ file: String, libCacheSimThere: String) -> PolicyReference {
        PolicyReference(against: aa0fc40 + " (\(file))", how: "exact where libCacheSim finishes (objects: Zipf and OLTP); with bytes it \(libCacheSimThere) and the workbench counts fallbacks", tests: ["CachesimRestTests.cSimulator", "CachesimRestTests.oltp", "CachesimRestTests.handTraces"])
    }

    public static let byName: [String: PolicyReference] = [
        "lru": .init(against: pypi + "; a textbook LRU written apart", how: grid + "; equal hits, evictions and final order with the textbook LRU", tests: ["PolicyTests.libCacheSim", "LRUDifferentialTests.agrees"]),
        "fifo": .init(against: pypi, how: grid, tests: ["PolicyTests.libCacheSim"]),
        "clock": .init(against: pypi, how: grid + " (1- and 2-bit counters)", tests: ["PolicyTests.libCacheSim"]),
        "sieve": .init(against: pypi, how: grid, tests: ["PolicyTests.libCacheSim"]),
        "arc": .init(against: pypi, how: grid, tests: ["PolicyTests.libCacheSim"]),
        "2q": .init(against: pypi, how: grid + " (two sets of ratios)", tests: ["PolicyTests.libCacheSim"]),
        "slru": .init(against: pypi, how: grid, tests: ["PolicyTests.libCacheSim"]),
        "lfu": .init(against: pypi, how: grid, tests: ["PolicyTests.libCacheSim"]),
        "belady": .init(against: pypi + "; OPT's property", how: grid + "; at or above 8 online policies' hits on unit sizes", tests: ["PolicyTests.libCacheSim", "PolicyTests.optBound"]),
        "lfuda": .init(against: pypi, how: grid + " but 1 MiB, where libCacheSim dereferences NULL (the workbench counts its fallbacks)", tests: ["PolicyTests.libCacheSim", "MorePolicyTests.lfuda"]),
        "s3fifo": .init(against: pypi + " (S3FIFOv0_init) and libCacheSim's C S3FIFO.c (recorded)", how: grid + ", against both; two more parameter sets against the C", tests: ["PolicyTests.libCacheSim", "MorePolicyTests.cSimulator"]),
        "gdsf": .init(against: "libCacheSim's C GDSF (recorded; the PyPI class differs)", how: grid, tests: ["MorePolicyTests.cSimulator"]),
        "wtinylfu": .init(against: pypi + " (WTinyLFU.c); reference=libcachesim-aa0fc40: " + aa0fc40 + "; variant=caffeine after Caffeine's design", how: grid + ", each reference against its code (aa0fc40 on ARC's OLTP trace too); variant=caffeine: hand traces only", tests: ["LibCacheSimDefaultsTests.wtinylfuReference", "LibCacheSimReferenceTests.wtinylfuRepository", "LibCacheSimReferenceTests.wtinylfuOLTP", "MorePolicyTests.wtinylfu"]),
        "lirs": .init(against: pypi + " (LIRS.c); variant=paper after Jiang & Zhang 2002", how: grid + "; variant=paper: a hand trace only", tests: ["LibCacheSimDefaultsTests.lirsReference", "MorePolicyTests.lirs"]),
        "pfoo-l": .init(against: "Berger, Beckmann & Harchol-Balter, SIGMETRICS 2018 (no code)", how: "property: hits and byte hits at or above every policy's on sized Zipf traces; hand traces", tests: ["MorePolicyTests.pfooBound"]),
        "lruk": .init(against: pypi, how: grid + " (k 2 and 3)", tests: ["PolBPolicyTests.libCacheSim"]),
        "mq": .init(against: pypi, how: grid + " (two parameter sets)", tests: ["PolBPolicyTests.libCacheSim"]),
        "clock2qplus": .init(against: pypi, how: grid + " (two parameter sets)", tests: ["PolBPolicyTests.libCacheSim"]),
        "sfifo": .init(against: "libCacheSim's cachesim at cacheMon 0252dcf (counts recorded)", how: "exact on a 5,000-request Zipf trace at byte and object capacities", tests: ["PolBPolicyTests.cachesimRecorded"]),
        "s3lru": .init(against: "libCacheSim's cachesim at cacheMon 0252dcf (counts recorded)", how: "exact on a 5,000-request Zipf trace; up to 2.4% of hits apart where an object changes size (libCacheSim takes the new size)", tests: ["PolBPolicyTests.cachesimRecorded"]),
        "qdlp": .init(against: pypi + " (QDLP_init)", how: grid + " (two parameter sets)", tests: ["PolBPolicyTests.libCacheSim"]),
        "car": .init(against: pypi + " (CAR_init)", how: grid + " (libCacheSim's departures from the paper kept)", tests: ["PolBPolicyTests.libCacheSim"]),
        "flashprob": .init(against: pypi, how: grid + " (two parameter sets, lehmer64 draws)", tests: ["PolBPolicyTests.libCacheSim"]),
        "s3fifod": .init(against: pypi + " (S3FIFOd_init)", how: grid + " (two parameter sets)", tests: ["PolBPolicyTests.libCacheSim"]),
        "fifomerge": .init(against: pypi + " (FIFO_Merge_init)", how: grid + " (two parameter sets)", tests: ["PolBPolicyTests.libCacheSim"]),
        "mru": .init(against: "libCacheSim's C MRU.c, cacheMon snapshot (recorded)", how: grid + " but 1 MiB, where the C dereferences NULL (the workbench counts its fallbacks)", tests: ["PolicyBreadthTests.mruExact"]),
        "size": .init(against: pypi, how: grid + "; up to 2.4% of hits apart where an object changes size", tests: ["PolicyBreadthTests.sizeExact"]),
        "beladysize": .init(against: pypi + ", hashpower 8 on both sides; reference=libcachesim-aa0fc40: " + aa0fc40, how: grid + " but 1 MiB, where the package never returns; reference=libcachesim-aa0fc40: exact with unit sizes and at 64 MiB, not at 1 and 8 MiB (under 1% of hits apart, cause not found)", tests: ["PolicyBreadthTests.beladySizeExact", "LibCacheSimReferenceTests.randomizedRepository"]),
        "random": .init(against: pypi + " (lehmer64); the cacheMon C code with generator=mmix, seed 0 (recorded); reference=libcachesim-aa0fc40: " + aa0fc40, how: grid + ", each generator and each reference", tests: ["PolicyBreadthTests.randomExact", "PolicyBreadthTests.mmixExact", "LibCacheSimReferenceTests.randomizedRepository"]),
        "randomtwo": .init(against: "libCacheSim's C RandomTwo.c, cacheMon snapshot, generator=mmix, seed 0 (recorded; the package has none)", how: grid + " with generator=mmix; the default generator has no reference", tests: ["PolicyBreadthTests.randomTwoExact"]),
        "lruprob": .init(against: pypi + "; the cacheMon C code with generator=mmix (recorded)", how: grid + " (prob 0.5 and 0.25), each generator", tests: ["PolicyBreadthTests.lruProbExact", "PolicyBreadthTests.mmixExact"]),
        "hyperbolic": .init(against: pypi + "; the cacheMon C code with generator=mmix (recorded, 300 and 1,500 objects); reference=libcachesim-aa0fc40: " + aa0fc40, how: grid + ", each reference", tests: ["PolicyBreadthTests.hyperbolicExact", "PolicyBreadthTests.mmixExact", "LibCacheSimReferenceTests.randomizedRepository"]),
        "lecar": .init(against: pypi + " (its draws reproduced); reference=libcachesim-aa0fc40: " + aa0fc40, how: grid + ", each reference; the AdaptSize and OLTP recordings too (0.3.5)", tests: ["AdaptivePolicyTests.lecarExact", "CacheusTests.oltpExact", "LibCacheSimReferenceTests.randomizedRepository"]),
        "cacheus": .init(against: pypi + " (Cacheus.c, SR_LRU.c, CR_LFU.c); reference=libcachesim-aa0fc40: " + aa0fc40, how: grid + "; the AdaptSize and OLTP recordings too; reference=libcachesim-aa0fc40: the Zipf grid, OLTP, P6 and AdaptSize", tests: ["CacheusTests.cacheusExact", "CacheusTests.oltpExact", "LibCacheSimReferenceTests.cacheusRepository", "LibCacheSimReferenceTests.cacheusRepositoryOLTP"]),
        "crlfu": .init(against: "libCacheSim's C CR_LFU.c run alone (the PyPI release's source, recorded)", how: grid + "; the AdaptSize and OLTP recordings too", tests: ["CacheusTests.crlfuExact", "CacheusTests.oltpExact"]),
        "clockpro": .init(against: pypi + " (ClockPro.c); variant=paper: Caffeine's ClockProPolicy at ccef955 (recorded)", how: grid + " (init-ratio-cold 1 and 0.5); variant=paper: exact hits and evictions at 4 to 1,500 pages", tests: ["ClockProLHDTests.clockProExact", "ClockProLHDTests.clockProPaperCaffeine"]),
        "lhd": .init(against: pypi + " (lhd.cpp, its draws reproduced); reference=libcachesim-aa0fc40: " + aa0fc40, how: grid + ", each reference; up to 2.4% of hits apart where an object changes size", tests: ["ClockProLHDTests.lhdExact", "LibCacheSimReferenceTests.randomizedRepository"]),
        "randomlru": .init(against: pypi + " (RandomLRU_init); reference=libcachesim-aa0fc40: " + aa0fc40 + ", 64 samples", how: grid + " (16 and 4 samples); reference=libcachesim-aa0fc40: 6 of 6 in a campaign outside the suite (its draws take minutes in a debug build)", tests: ["ClockProLHDTests.randomLRUExact"]),
        "fiforeinsertion": .init(against: "libCacheSim's C FIFO_Reinsertion.c, the PyPI release's source (recorded)", how: grid + " (two parameter sets)", tests: ["ClockProLHDTests.fifoReinsertionExact"]),
        "nop": .init(against: aa0fc40, how: "exact: no hit, nothing stored", tests: ["CachesimRestTests.cSimulator", "CachesimRestTests.handTraces"]),
        "lfucpp": .init(against: aa0fc40 + " (cpp/LFU.cpp)", how: "exact on a Zipf trace (bytes and objects) and ARC's OLTP trace (objects)", tests: ["CachesimRestTests.cSimulator", "CachesimRestTests.oltp"]),
        "arcv0": .init(against: aa0fc40 + " (ARCv0.c)", how: "exact on a Zipf trace (bytes and objects), ARC's OLTP and P6 traces (objects), a hand trace where its capped ghost list changes a hit; where an object changes size the C re-inserts it at its new size (AdaptSize: 2 of 3 cells differ)", tests: ["RepositoryV0Tests.cZipfCells", "RepositoryV0Tests.cOLTP", "RepositoryV0Tests.handTraces"]),
        "slruv0": .init(against: aa0fc40 + " (SLRUv0.c)", how: "exact on a Zipf trace (bytes and objects), ARC's OLTP and P6 traces (objects), hand traces for its two differences from slru; where an object changes size the C re-inserts it at its new size (AdaptSize: 3 of 3 cells differ)", tests: ["RepositoryV0Tests.cZipfCells", "RepositoryV0Tests.cOLTP", "RepositoryV0Tests.handTraces"]),
        "lecarv0": .init(against: aa0fc40 + " (LeCaRv0.c)", how: "exact on a Zipf trace and ARC's OLTP trace but where the C crashes (an evicted object larger than half the cache: counted, run as lecar)", tests: ["RepositoryV0Tests.cZipfCells", "RepositoryV0Tests.cOLTP", "RepositoryV0Tests.handTraces"]),
        "sfifov0": .init(against: aa0fc40 + " (fifo/SFIFOv0.c)", how: "exact in objects (Zipf, OLTP); in bytes the C corrupts cascading coolings (an object lost, another cached twice): not reproduced, each such cooling counted", tests: ["RepositoryV0Tests.cZipfCells", "RepositoryV0Tests.cOLTP", "RepositoryV0Tests.handTraces"]),
        "lru-belady": beladyAssisted("belady/LRU_Belady.c", libCacheSimThere: "loops"),
        "fifo-belady": beladyAssisted("belady/FIFO_Belady.c", libCacheSimThere: "loops"),
        "sieve-belady": beladyAssisted("belady/Sieve_Belady.c", libCacheSimThere: "crashes"),
        "glcache": learned,
        "lrb": learned,
        "3lcache": learned,
    ]
}
