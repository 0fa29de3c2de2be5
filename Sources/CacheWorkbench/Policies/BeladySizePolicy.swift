import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// BeladySize, as libCacheSim's `BeladySize.c` (the sampled `BeladySize_to_evict`, built
/// without `EXACT_Belady`): sample `n-sample` cached objects (128) with `hashtable_rand_obj`
/// and evict the largest size × (next access − now), the first drawn among equals. Objects
/// never requested again are not admitted (`BeladySize_insert` returns NULL, after evicting
/// for them) and leave on their last hit (`BeladySize_find` removes them). Offline: it reads
/// each request's next access (`NextAccess`), positions counted from 0 while `now` counts
/// requests from 1, as libCacheSim's `next_access_vtime` and `n_req` do in the PyPI
/// package's replay (scripts/reference_libcachesim.py).
///
/// The draws reproduce libCacheSim's generator, seed and table (`LibCacheSimRandom`,
/// `LibCacheSimBuckets` of `hashpower` bits, 24 as the PyPI package, which does not reduce it
/// for BeladySize; `cachesim` uses max(hashpower − 8, 16) and a time-based seed). A table
/// far larger than the cache makes each draw slow (2^24 buckets for a few thousand objects):
/// pass a smaller `hashpower` to both tools for quick runs.
///
/// Complexity: hit O(1); admit O(1) amortized; evict O(n-sample × buckets / objects) draws.
struct BeladySizePolicy: SampledPolicy {
    static var needsFuture: Bool { true }
    /// The object's next access (a request position).
    typealias Meta = Int64
    private let future: [Int64]
    private var position = 0
    private var pendingNext = NextAccess.never
    var sampler: LibCacheSimSampler
    /// libCacheSim's `n_req`: requests seen so far, this one included.
    private var now: Int64 = 0
    private let samples: Int

    init(capacity: Int, options: PolicyOptions) throws {
        guard let nextAccess = options.nextAccess else { throw WorkbenchError("beladysize needs next-access times (a first pass over the trace)") }
        future = nextAccess.positions
        samples = try options.integer("n-sample", default: 128, range: 1...100_000)
        sampler = try LibCacheSimSampler(options: options, reduced: false, repositoryHashpower: 16)
    }

    var newMeta: Int64 { pendingNext }
    var settings: String { "\(sampler.settings);n-sample=\(samples)" }

    /// The next access of the request being handled; a trace read differently than it was
    /// measured (it cannot happen through RunPlan) counts as never again.
    @inline(__always) private mutating func advance() -> Int64 {
        now += 1
        defer { position += 1 }
        return position < future.count ? future[position] : NextAccess.never
    }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        let next = advance()
        if next == NextAccess.never {
            sampler.remove(slot)
            nodes.free(slot)
        } else {
            nodes[slot].meta = next
        }
    }

    @inline(__always) mutating func miss(_ key: UInt64) { pendingNext = advance() }

    func storesAfterEviction(_ cost: Int) -> Bool { pendingNext != NextAccess.never }

    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        var victim: Int32 = -1
        var victimScore: Int64 = -1
        for _ in 0..<samples {
            let sampled = sampler.random()
            let score = Int64(nodes[sampled].cost) &* (nodes[sampled].meta &- now)
            if victimScore < score {
                victim = sampled
                victimScore = score
            }
        }
        // libCacheSim draws again when every score was negative (it cannot be: a cached
        // object's next access is after now).
        if victim < 0 { victim = sampler.random() }
        return victim
    }
}
