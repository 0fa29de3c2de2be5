import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// RandomTwo, as libCacheSim's `RandomTwo.c` (`RandomTwo_evict`): draw two objects at
/// random (`hashtable_rand_obj` twice) and evict the one requested less recently — the
/// second on a tie (the "power of two choices" approximation of LRU). The draws reproduce
/// libCacheSim's generator, seed and table (`LibCacheSimRandom`, `LibCacheSimBuckets`, a
/// table of `max(12, hashpower − 8)` bits as `RandomTwo_init` makes). The PyPI package has
/// no RandomTwo class: exactness is checked with `generator=mmix` against the cacheMon C code
/// run from seed 0 (scripts/reference_libcachesim_c.sh); the default `lehmer64` follows the
/// package's generator and table draw, checked for Random and Hyperbolic.
///
/// Complexity: hit O(1); admit O(1) amortized; evict O(buckets / objects) expected draws.
struct RandomTwoPolicy: SampledPolicy {
    /// The request number of the object's last access (`last_access_vtime`).
    typealias Meta = Int64
    var sampler: LibCacheSimSampler
    /// libCacheSim's `n_req`: requests seen so far, this one included.
    private var now: Int64 = 0

    init(capacity: Int, options: PolicyOptions) throws {
        sampler = try LibCacheSimSampler(options: options, reduced: true)
    }

    var newMeta: Int64 { now }
    var settings: String { sampler.settings }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        now += 1
        nodes[slot].meta = now
    }

    @inline(__always) mutating func miss(_ key: UInt64) { now += 1 }

    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        let first = sampler.random()
        let second = sampler.random()
        return nodes[first].meta < nodes[second].meta ? first : second
    }
}
