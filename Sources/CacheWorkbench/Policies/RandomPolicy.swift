import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Random, as libCacheSim's `Random.c` (`Random_to_evict`: `hashtable_rand_obj`): evict an
/// object drawn at random. The draw reproduces libCacheSim's generator, seed and hash-table
/// draw (`LibCacheSimRandom`, `LibCacheSimBuckets`, with `Random_init`'s table of
/// `max(12, hashpower − 8)` bits), so the counts equal the PyPI package's from a fresh
/// process (`generator=lehmer64`, the default) or the cacheMon snapshot's C code from seed 0
/// (`generator=mmix`). `hashpower` is its parameter (24, the package's default).
///
/// Complexity: hit O(1); admit O(1) amortized; evict O(buckets / objects) expected draws.
struct RandomPolicy: SampledPolicy {
    typealias Meta = Void
    var sampler: LibCacheSimSampler

    init(capacity: Int, options: PolicyOptions) throws {
        sampler = try LibCacheSimSampler(options: options, reduced: true)
    }

    var newMeta: Void { () }
    var settings: String { sampler.settings }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {}

    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        sampler.random()
    }
}
