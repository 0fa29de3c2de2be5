import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// FIFO-Reinsertion, as libCacheSim's `FIFO_Reinsertion.c` (the version its PyPI package 0.3.5
/// builds, 1a1a11a/libCacheSim dbf8423; its `cachesim` runs it as `fifo-reinsertion`, the
/// package exports no init for it). Not CLOCK despite its header's remark: one FIFO queue, new
/// objects at its head; with at most `n-exam` objects cached (default 100) an eviction takes
/// the object at the examination point and moves the point one newer. Otherwise it examines
/// `n-exam` objects from that point towards the newest (wrapping to the oldest), sorts them by
/// score (ascending; equal scores in examination order, glibc's merge-sort `qsort`), evicts all
/// but the best `n-keep` (default 20, `n_exam_obj / 5` before the parameters are read) in one
/// step, and moves the kept ones to the head, lowest score first, halving their hit counts
/// ((f + 1) / 2). The examination resumes after the last object examined.
///
/// Scores (`retain-policy`): recency (default) 10^12 / (requests since its last access) /
/// size; freq 10^6 × (hits + r) / size, r = (next_rand() mod 1000) / 10^4 per examined object
/// (`LibCacheSimRandom`).
///
/// Where libCacheSim reads freed memory — the examination point left on an object that the same
/// step evicts (when the last object examined was the newest) — the point goes back to the
/// oldest, counted in `fallbacks`. `n-keep` must be below `n-exam`: otherwise libCacheSim evicts
/// nothing and loops.
///
/// Complexity: hit O(1); admit O(1); evict O(n-exam log n-exam) per examination, which frees
/// n-exam − n-keep objects (O(log n-exam) amortized per object).
struct FIFOReinsertionPolicy: RetainScoredQueue, VictimNamingPolicy {
    typealias Meta = RetainScore.Meta

    var queue = Nodes.Queue()
    let examined: Int
    let kept: Int
    var scorer: RetainScore
    /// `next_to_merge` (−1: NULL, the oldest).
    private var nextToMerge: Int32 = -1
    private var ranked: [(score: Double, slot: Int32)] = []
    /// The last examination's victims, lowest score first, and the next one to take.
    private var batch: [Int32] = []
    private var batchNext = 0
    private(set) var fallbacks = 0

    static var fallbackRule: String? {
        "an examination ended on the newest object and evicted the object where libCacheSim's FIFO_Reinsertion would resume (freed memory); the next examination started at the oldest"
    }

    init(capacity: Int, options: PolicyOptions) throws {
        examined = try options.integer("n-exam", default: 100, range: 1...100_000)
        kept = try options.integer("n-keep", default: 20, range: 0...max(0, examined - 1))
        // The default is not range-checked: libCacheSim keeps 20 whatever n-exam is, and with
        // n-keep >= n-exam evicts nothing and loops.
        guard kept < examined else {
            throw WorkbenchError("--n-keep must be below --n-exam (\(examined)); its default, 20, is not: give n-keep")
        }
        scorer = try RetainScore(options: options, default: .recency)
    }

    /// One step takes a whole batch (`evictStep`), as libCacheSim's one call does.
    mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 { evictStep(&nodes, incoming: incoming) }

    /// The last examination's next victim; with none left, the object at `next_to_merge`
    /// when few objects remain, else a new examination: `n-exam` objects from there are
    /// scored, the `n-keep` best go to the head with their hits halved, and the rest are
    /// the batch, lowest score first (`stepUnfinished` until all are taken). If TinyLFU in
    /// front spares one, the examination stays done and the spared victim is named next.
    mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        if batchNext < batch.count { return batch[batchNext] }
        var slot = nextToMerge
        if slot < 0 {
            nextToMerge = queue.tail
            slot = queue.tail
        }
        if queue.count <= examined { return nextToMerge }
        ranked.removeAll(keepingCapacity: true)
        for _ in 0..<examined {
            ranked.append((scorer.score(nodes[slot].meta, cost: nodes[slot].cost), slot))
            slot = nodes[slot].newer
            if slot < 0 { slot = queue.tail }
        }
        nextToMerge = slot
        let order = RetainScore.ascendingOrder(ranked)
        let evicted = examined - kept
        for index in order[..<evicted] where ranked[index].slot == nextToMerge {
            fallbacks += 1
            nextToMerge = -1
        }
        for index in order[evicted...] {
            let keep = ranked[index].slot
            nodes.moveToHead(keep, &queue)
            let hits = nodes[keep].meta.hits
            nodes[keep].meta.hits = hits / 2 + hits % 2  // (f + 1) / 2 without overflow
        }
        batch = order[..<evicted].map { ranked[$0].slot }
        batchNext = 0
        return batch[0]
    }

    /// Takes the named victim: the batch's next, or the object at `next_to_merge`, which
    /// then moves to the next newer one.
    mutating func evictNamed(_ victim: Int32, _ nodes: inout Nodes, incoming: Int) -> Int32 {
        if batchNext < batch.count { batchNext += 1 } else { nextToMerge = nodes[victim].newer }
        nodes.unlink(victim, &queue)
        return victim
    }

    var stepUnfinished: Bool { batchNext < batch.count }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        if slot == nextToMerge { nextToMerge = nodes[slot].newer }
        if let index = batch[batchNext...].firstIndex(of: slot) { batch.remove(at: index) }  // its slot may be reused
        nodes.unlink(slot, &queue)
    }
}

/// Its draws are libCacheSim's `next_rand`, shared with an admissioner in front.
extension FIFOReinsertionPolicy: LibCacheSimRandomized {
    var libCacheSimRandom: LibCacheSimRandom { scorer.libCacheSimRandom }
}
