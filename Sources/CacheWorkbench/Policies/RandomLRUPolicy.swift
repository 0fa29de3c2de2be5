import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// RandomLRU, as libCacheSim's `RandomLRU.c` (`RandomLRU_evict`, the version its PyPI package
/// 0.3.5 builds): draw `n-samples` objects at random (`hashtable_rand_obj`, 16 by default) and
/// evict the one requested least recently, a sampled approximation of LRU (Redis's). Its
/// `qsort` by `last_access_vtime` puts the oldest first; two samples can only tie when they
/// are the same object (each request stamps one object with its own request number), so the
/// order of equal elements does not matter. The draws reproduce libCacheSim's generator, seed
/// and table (`LibCacheSimSampler`: a table of `max(12, hashpower − 8)` bits, as
/// `RandomLRU_init` makes). With `reference=libcachesim-aa0fc40`, the repository's code: 64
/// samples, MMIX draws.
///
/// Complexity: hit O(1); admit O(1) amortized; evict O(n-samples × buckets / objects)
/// expected draws.
struct RandomLRUPolicy: SampledPolicy {
    /// The request number of the object's last access (`Random.last_access_vtime`).
    typealias Meta = Int64
    var sampler: LibCacheSimSampler
    let samples: Int
    /// libCacheSim's `n_req`: requests seen so far, this one included.
    private var now: Int64 = 0

    init(capacity: Int, options: PolicyOptions) throws {
        // The repository's RandomLRU_evict draws a fixed 64 (RandomLRU.c:202, `const int N =
        // 64`) whatever n-samples says; 0.3.5 draws n-samples.
        if try LibCacheSimReference.of(options) == LibCacheSimReference.repository {
            guard options.values["n-samples"] == nil else {
                throw WorkbenchError("--n-samples: reference=\(LibCacheSimReference.repository) draws 64 samples whatever n-samples says (its RandomLRU.c:202); leave n-samples out")
            }
            samples = 64
        } else {
            samples = try options.integer("n-samples", default: 16, range: 1...1_024)
        }
        sampler = try LibCacheSimSampler(options: options, reduced: true)
    }

    var newMeta: Int64 { now }
    var settings: String { "n-samples=\(samples);\(sampler.settings)" }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        now += 1
        nodes[slot].meta = now
    }

    @inline(__always) mutating func miss(_ key: UInt64) { now += 1 }

    mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        var victim = sampler.random()
        for _ in 1..<samples {
            let drawn = sampler.random()
            if nodes[drawn].meta < nodes[victim].meta { victim = drawn }
        }
        return victim
    }
}
