import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Hyperbolic caching (Blankstein et al., USENIX ATC 2017), as libCacheSim's `Hyperbolic.c`
/// (`Hyperbolic_to_evict`): each object's priority is its request count over its time in
/// the cache (1e8 × freq / (n_req − vtime_enter_cache)); eviction samples `n-sample` objects
/// (64) with `hashtable_rand_obj` and evicts the lowest priority, the first drawn among
/// equals. The draws reproduce libCacheSim's generator, seed and table (`LibCacheSimRandom`,
/// `LibCacheSimBuckets`, `max(12, hashpower − 8)` bits as `Hyperbolic_init` makes), so counts
/// equal the PyPI package's from a fresh process (`generator=lehmer64`, `hashpower` 24: its
/// defaults) or the cacheMon C code's from seed 0 (`generator=mmix`).
///
/// Complexity: hit O(1); admit O(1) amortized; evict O(n-sample × buckets / objects) draws.
struct HyperbolicPolicy: SampledPolicy {
    struct Meta {
        var frequency: Int64
        /// The request number that admitted it.
        var entered: Int64
    }

    var sampler: LibCacheSimSampler
    /// libCacheSim's `n_req`: requests seen so far, this one included.
    private var now: Int64 = 0
    private let samples: Int

    init(capacity: Int, options: PolicyOptions) throws {
        samples = try options.integer("n-sample", default: 64, range: 1...100_000)
        sampler = try LibCacheSimSampler(options: options, reduced: true, repositoryHashpower: 16)
    }

    var newMeta: Meta { Meta(frequency: 1, entered: now) }
    var settings: String { "\(sampler.settings);n-sample=\(samples)" }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        now += 1
        nodes[slot].meta.frequency += 1
    }

    @inline(__always) mutating func miss(_ key: UInt64) { now += 1 }

    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        var best: Int32 = -1
        var bestScore = 1.0e16
        for _ in 0..<samples {
            let sampled = sampler.random()
            let meta = nodes[sampled].meta
            // Every cached object entered at an earlier request, so the age is at least 1.
            let score = 1.0e8 * Double(meta.frequency) / Double(now - meta.entered)
            if best < 0 || bestScore > score {
                best = sampled
                bestScore = score
            }
        }
        return best
    }
}
