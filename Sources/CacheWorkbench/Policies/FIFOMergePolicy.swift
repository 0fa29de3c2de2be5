import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// FIFO-Merge, as libCacheSim's `FIFO_Merge.c` (`FIFO_Merge_evict`, `retain_metric`; the
/// same counts as the PyPI package 0.3.5's `FIFO_Merge_init`): one FIFO queue, new objects at its
/// head, a hit counting one. With at most `n-exam` objects cached (default 100) the oldest
/// goes. Otherwise an eviction examines the next `n-exam` objects from where the last
/// examination stopped (from the oldest towards the newest, wrapping to the oldest), scores
/// each, sorts them by score (ascending, equal scores in examination order: libCacheSim's
/// `qsort` on glibc, here 2.36, is its merge sort, stdlib/msort.c, unless the array is a
/// sizeable share of memory) and evicts the lowest; the following
/// evictions take the next ones in that order while fewer than n-exam − `n-keep` (default
/// n-exam / 2) have been taken, then examine again — the literal counting of libCacheSim's
/// `pos_in_metric_list`, reproduced.
///
/// Scores (`retain-policy`): freq (default) 10^6 × (hits + r) / size, r = (next_rand() mod
/// 1000) / 10^4 drawn per examined object with libCacheSim's generator
/// (`LibCacheSimRandom`); recency 10^12 / (requests since its last access) / size.
///
/// Complexity: hit O(1); admit O(1); evict O(1) from a sorted batch, O(n-exam log n-exam)
/// for an examination (about one in n-exam − n-keep evictions).
struct FIFOMergePolicy: RetainScoredQueue, VictimNamingPolicy {
    typealias Meta = RetainScore.Meta

    var queue = Nodes.Queue()
    let examined: Int
    let kept: Int
    var scorer: RetainScore
    /// Where the next examination starts (−1: at the oldest).
    private var nextToExamine: Int32 = -1
    /// The last examination's objects, sorted by score, and the position in it.
    private var ranked: [(score: Double, slot: Int32)] = []
    private var position = Int.max
    /// Whether the last victim named is `ranked[position]` (else the queue's oldest).
    private var namedFromBatch = false

    init(capacity: Int, options: PolicyOptions) throws {
        examined = try options.integer("n-exam", default: 100, range: 1...100_000)
        kept = try options.integer("n-keep", default: examined / 2, range: 0...examined)
        scorer = try RetainScore(options: options, default: .freq)
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        evictNamed(nextVictim(&nodes, incoming: incoming), &nodes, incoming: incoming)
    }

    /// The last examination's next victim; past its victims, the oldest when few objects
    /// remain, else the lowest score of a fresh examination (which stays done if TinyLFU in
    /// front spares its victim: the next naming names it again).
    mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        namedFromBatch = true
        if position < examined {
            if position + 1 < examined - kept { return ranked[position].slot }
            position += 1  // past the batch's victims, as libCacheSim counts them
        }
        if queue.count <= examined {
            nextToExamine = -1
            namedFromBatch = false
            return queue.tail
        }
        ranked.removeAll(keepingCapacity: true)
        var slot = nextToExamine
        for _ in 0..<examined {
            if slot < 0 { slot = queue.tail }
            ranked.append((scorer.score(nodes[slot].meta, cost: nodes[slot].cost), slot))
            slot = nodes[slot].newer
        }
        nextToExamine = slot
        let order = RetainScore.ascendingOrder(ranked)
        ranked = order.map { ranked[$0] }
        position = 0
        return ranked[0].slot
    }

    /// Takes the named victim, moving past it in the examination it came from.
    @inline(__always) mutating func evictNamed(_ victim: Int32, _ nodes: inout Nodes, incoming: Int) -> Int32 {
        if namedFromBatch { position += 1 }
        nodes.unlink(victim, &queue)
        return victim
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        // The examined batch and the resume point may name it: start afresh.
        if slot == nextToExamine { nextToExamine = -1 }
        position = Int.max
        nodes.unlink(slot, &queue)
    }
}

/// Its draws are libCacheSim's `next_rand`, shared with an admissioner in front.
extension FIFOMergePolicy: LibCacheSimRandomized {
    var libCacheSimRandom: LibCacheSimRandom { scorer.libCacheSimRandom }
}
