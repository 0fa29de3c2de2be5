import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// LeCaR (Vietri et al., HotStorage 2018), as libCacheSim's `LeCaR.c` in the PyPI package
/// 0.3.5's source (1a1a11a/libCacheSim@dbf8423, `cache/eviction/LeCaR.c`): two experts, LRU
/// and LFU (lowest count, the first to reach it among equals), over the same objects. When
/// they disagree, eviction follows LRU with probability `w_lru` (`LeCaR_evict`: `r =
/// (next_rand() % 100) / 100.0; r < w_lru`); when they agree, no draw and no history. The
/// victim's id goes to its expert's history (one per expert, each bounded to capacity / 2
/// bytes, oldest out first); a miss on an id in a history lowers that expert's weight
/// (`update_weight`: w ← w·exp(−0.45·dr^t) + 1e−10, then both renormalized, with dr =
/// 0.005^(1/capacity) and t the requests since the eviction).
///
/// Parameters as `LeCaR_parse_params`: `update-weight` (1: learn; 0: fixed weights) and
/// `lru-weight` (the starting w_lru, 0.5). The draws reproduce libCacheSim's generator and seed
/// (`LibCacheSimRandom`: lehmer64 from 0xdeadbeef, as the PyPI package in a fresh process), so
/// object and byte hits equal its `LeCaR` class's.
///
/// Complexity: hit O(1) (plus a scan up the counts when the lowest one empties, as
/// libCacheSim's); miss O(1) expected (a history look-up); admit O(1); evict O(1) plus the
/// history trimmed, O(1) amortized.
struct LeCaRPolicy: VictimNamingPolicy {
    struct Meta: CountLinked {
        /// The object's request count since it was admitted.
        var frequency: Int
        var earlier: Int32
        var later: Int32
    }

    /// Which expert evicted a remembered id, and the request that evicted it.
    struct Evicted {
        var byLRU: Bool
        var at: Int64
    }

    var lru = Nodes.Queue()
    /// The LFU expert's objects by count; its candidate is the first of the lowest count.
    private var lists = CountLists()
    /// libCacheSim's `min_freq` and `max_freq`, kept as it keeps them.
    private var lowest = 1
    private var highest = 1
    /// The two histories (`ghost_lru`, `ghost_lfu`), each bounded to capacity / 2 bytes.
    private var history = PolicyNodes<Evicted>()
    private var lruHistory = PolicyNodes<Evicted>.Queue()
    private var lfuHistory = PolicyNodes<Evicted>.Queue()
    private let historyBytes: Int
    private(set) var lruWeight: Double
    private(set) var lfuWeight: Double
    private let learns: Bool
    private let startWeight: Double
    /// `dr`: the discount per request of a history hit's lesson.
    private let discount: Double
    private static let learningRate = 0.45
    private var generator: LibCacheSimRandom
    /// The expert `nextVictim` followed, for the eviction that takes its victim (nil: both
    /// chose it).
    private var namedByLRU: Bool?
    /// libCacheSim's `n_req`: requests seen so far, this one included.
    private var now: Int64 = 0

    /// libCacheSim aa0fc40's LeCaRv0 (LeCaRv0.c): LeCaR with its defaults fixed (no
    /// parameters) and histories that are LRU caches of half the capacity, equal to LeCaR's
    /// except for an evicted object larger than a history, where the C dereferences NULL
    /// (lines 277 and 285): the workbench forgets it, as LeCaR does, and counts it.
    private let repositoryV0: Bool
    private(set) var fallbacks = 0
    static var fallbackRule: String? {
        "an evicted object larger than half the cache (a history's size): libCacheSim aa0fc40's lecarv0 dereferences NULL there (LeCaRv0.c:285); the workbench forgot it, as LeCaR does"
    }

    init(capacity: Int, options: PolicyOptions) throws {
        try self.init(capacity: capacity, options: options, repositoryV0: false)
    }

    init(capacity: Int, options: PolicyOptions, repositoryV0: Bool) throws {
        self.repositoryV0 = repositoryV0
        learns = try options.integer("update-weight", default: 1, range: 0...1) == 1
        startWeight = try options.number("lru-weight", default: 0.5, range: 0...1)
        lruWeight = startWeight
        lfuWeight = 0.5  // `LeCaR_init` sets both to 0.5 before the parameters replace w_lru
        generator = try LibCacheSimRandom(options: options)
        historyBytes = capacity / 2
        discount = pow(0.005, 1.0 / Double(capacity))
    }

    var newMeta: Meta { Meta(frequency: 1, earlier: -1, later: -1) }
    var settings: String { "update-weight=\(learns ? 1 : 0);lru-weight=\(startWeight);\(generator.settings)" }

    func deallocate() { history.deallocate() }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        now += 1
        nodes.moveToHead(slot, &lru)
        leaveCount(slot, &nodes)
        let frequency = nodes[slot].meta.frequency + 1
        nodes[slot].meta.frequency = frequency
        highest = max(highest, frequency)
        lists.append(slot, &nodes)
        if nodes.count == 1 { raiseLowest() }
        lowest = min(lowest, frequency)
    }

    /// `LeCaR_find` on a ghost: the expert that evicted it loses weight; the id is forgotten.
    @inline(__always) mutating func miss(_ key: UInt64) {
        now += 1
        guard let slot = history.find(key) else { return }
        let evicted = history[slot].meta
        let discounted = pow(discount, Double(now - evicted.at))
        if evicted.byLRU {
            if learns { Self.lower(&lruWeight, other: &lfuWeight, by: discounted) }
            history.unlink(slot, &lruHistory)
        } else {
            if learns { Self.lower(&lfuWeight, other: &lruWeight, by: discounted) }
            history.unlink(slot, &lfuHistory)
        }
        history.free(slot)
    }

    /// `update_weight`, its floating-point steps in its order.
    private static func lower(_ weight: inout Double, other: inout Double, by discounted: Double) {
        weight = weight * exp(-learningRate * discounted) + 1e-10
        let sum = weight + other + 2e-10
        weight = weight / sum
        other = (other + 1e-10) / sum
    }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        nodes.pushHead(slot, &lru)
        lowest = 1
        lists.append(slot, &nodes)
    }

    mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        evictNamed(nextVictim(&nodes, incoming: incoming), &nodes, incoming: incoming)
    }

    /// The experts' choices and, when they differ, the weighted draw between them (spent
    /// if TinyLFU in front spares the victim).
    mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        let lruChoice = lru.tail
        let lfuChoice = lists[lowest].first
        namedByLRU = nil  // both experts chose it: nothing is remembered
        if lruChoice == lfuChoice { return lruChoice }
        namedByLRU = Double(generator.next() % 100) / 100.0 < lruWeight
        return namedByLRU! ? lruChoice : lfuChoice
    }

    /// Takes the named victim, remembered in the history of the expert that chose it.
    mutating func evictNamed(_ victim: Int32, _ nodes: inout Nodes, incoming: Int) -> Int32 {
        nodes.unlink(victim, &lru)
        leaveCount(victim, &nodes)
        if let byLRU = namedByLRU { remember(nodes[victim].key, cost: nodes[victim].cost, byLRU: byLRU) }
        return victim
    }

    private mutating func remember(_ key: UInt64, cost: Int, byLRU: Bool) {
        if repositoryV0 && cost > historyBytes { fallbacks += 1 }
        let slot = history.add(key, cost: cost, meta: Evicted(byLRU: byLRU, at: now))
        if byLRU {
            history.pushHead(slot, &lruHistory)
            while lruHistory.bytes > historyBytes {
                let oldest = lruHistory.tail
                history.unlink(oldest, &lruHistory)
                history.free(oldest)
            }
        } else {
            history.pushHead(slot, &lfuHistory)
            while lfuHistory.bytes > historyBytes {
                let oldest = lfuHistory.tail
                history.unlink(oldest, &lfuHistory)
                history.free(oldest)
            }
        }
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        nodes.unlink(slot, &lru)
        leaveCount(slot, &nodes)
    }

    /// `remove_obj_from_freq_node`: out of its count's list; when that was the lowest count
    /// and it empties, `update_LFU_min_freq` looks for the next count up to the highest ever
    /// that holds an object (unchanged when none does).
    private mutating func leaveCount(_ slot: Int32, _ nodes: inout Nodes) {
        let frequency = nodes[slot].meta.frequency
        lists.unlink(slot, &nodes)
        if frequency == lowest && lists[frequency].count == 0 { raiseLowest() }
    }

    private mutating func raiseLowest() {
        if let next = lists.occupied(above: lowest, upTo: highest) { lowest = next }
    }
}

/// Its draws are libCacheSim's `next_rand`, shared with an admissioner in front.
extension LeCaRPolicy: LibCacheSimRandomized {
    var libCacheSimRandom: LibCacheSimRandom { generator }
}
