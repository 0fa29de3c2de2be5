import WorkbenchCore
/// libCacheSim's per-object metadata bytes by policy (`--consider-obj-metadata`): the
/// `obj_md_size` each policy's init sets at aa0fc40 when cachesim passes the flag
/// (`cache/eviction/…`, the file and line beside each), which `cache.c` adds to an object's
/// size in `cache_can_insert_default` (the fit), `cache_get_base` (the eviction loop) and the
/// bytes held (`cache_insert_base`, `cache_remove_obj_base`); never to request, hit or miss
/// bytes. The workbench adds it to each object's cost inside the policy simulator
/// (`PolicySimulator.metadataBytes`).
package enum ObjectMetadataBytes {
    /// The policies whose runs with the metadata were compared with aa0fc40's C code, and
    /// their bytes; the rest of cachesim's set theirs too but are refused (`refusals`).
    static let byPolicy: [String: Int] = [
        "lru": 16,  // LRU.c:66–70
        "lfu": 16,  // LFU.c:88–92
        "lfuda": 16,  // LFUDA.c:71–75
        "hyperbolic": 16,  // Hyperbolic.c:67–72
        "arc": 40,  // ARC.c:115–120 (its data and ghost sizes include it)
        "lecar": 40,  // LeCaR.c:119–123
        "lfucpp": 8,  // cpp/LFU.cpp:68–73
        "sieve": 1,  // Sieve.c:58–62
        // Policies that set none (0), so the flag changes nothing.
        "fifo": 0, "clock": 0, "s3fifo": 0, "s3fifod": 0, "qdlp": 0, "s3lru": 0, "flashprob": 0, "nop": 0,
        "random": 0, "randomtwo": 0, "randomlru": 0, "size": 0, "belady": 0, "beladysize": 0, "sfifov0": 0,
    ]

    /// The policies libCacheSim gives metadata bytes whose runs the workbench does not
    /// reproduce, and why.
    static let refusals: [String: String] = [
        "slru": "libCacheSim's SLRU counts the metadata in its segments but SLRU_cool moves only the object's size (SLRU.c:500–501): its segment counts drift, and on ARC's OLTP trace at 1 MiB it crashes",
        "sfifo": "libCacheSim's SFIFO counts it in its segments as SLRU does (their counts drift)",
        "slruv0": "as slru",
        "lirs": "libCacheSim's LIRS counts it in its bytes held but not in its own capacity counters, so its eviction loop never ends (it hangs)",
        "wtinylfu": "libCacheSim's WTinyLFU_init reads the main cache's metadata size from uninitialized memory and crashes (WTinyLFU.c:100–101)",
        "2q": "libCacheSim's TwoQ reports 0 bytes but its inner LRU (Am) adds 16 (TwoQ.c:85, 109–110)",
        "gdsf": "libCacheSim's GDSF (8 bytes, cpp/GDSF.cpp:66–71) prices an object by its size without the metadata, the workbench by its cost with it: ARC's OLTP trace at 1 and 8 MiB differs (416,936 and 607,595 hits against the C's 415,109 and 608,135)",
        "lhd": "libCacheSim's LHD (25 bytes, LHD/LHD_Interface.cpp:80–84) rates hit density by the size without the metadata: ARC's OLTP trace at 1 and 8 MiB differs by 6 and 312 hits",
        "fifomerge": "libCacheSim aa0fc40's fifomerge breaks ties as the workbench's (the 0.3.5 release's) does not",
        "cacheus": "its runs with the metadata (40 bytes, Cacheus.c:90–94) were not compared with libCacheSim's code",
        "lruprob": "libCacheSim aa0fc40's lru-prob draws with MMIX, which the workbench's lruprob (the 0.3.5 release's draws) does not follow",
    ]

    /// A prefetcher with the metadata is refused: not compared with libCacheSim's code.
    package static let prefetchRefusal = WorkbenchError("--consider-obj-metadata with prefetch=: libCacheSim's prefetchers make room without the metadata bytes (OBL) or with them (PG) and then insert the object with them; not compared with its code, so refused")

    /// The bytes for `policy`, or the reason it is refused.
    package static func bytes(for policy: String) throws -> Int {
        if let bytes = byPolicy[policy] { return bytes }
        let reason = refusals[policy] ?? "libCacheSim's cachesim has no such policy, so no metadata size to follow"
        throw WorkbenchError("--consider-obj-metadata: \(policy) is not offered with it: \(reason); it takes \(byPolicy.keys.sorted().joined(separator: ", "))")
    }
}
