import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// What Cacheus keeps per object: SR-LRU's list and marks, CR-LFU's count and count links.
struct CacheusMeta: CountLinked {
    /// In SR-LRU's R list (else its SR list).
    var inR = false
    /// SR-LRU's marks: demoted from R to SR; new (never hit since it came in).
    var demoted = false
    var new = false
    var frequency = 1
    var earlier: Int32 = -1
    var later: Int32 = -1
}

/// Cacheus (Rodriguez et al., FAST 2021), as libCacheSim's `Cacheus.c` in the PyPI package
/// 0.3.5's source (1a1a11a/libCacheSim@dbf8423): two experts over the same objects, SR-LRU
/// (`SRLRU`) and CR-LFU (`CRLFU`). Each eviction draws `r = (next_rand() % 100) / 100.0`
/// (`Cacheus_to_evict`, drawn even when the experts agree): when both experts' candidates are
/// one object it goes and nothing is remembered; otherwise LRU's candidate goes when r < w_lru,
/// else LFU's, and its id enters that expert's history (an LRU of capacity / 2 bytes, `LRU_g`
/// or `LFU_g`, fed with `get`). Every miss (`check_and_update_history`) multiplies the weight
/// of the expert whose history holds the id by exp(−lr), renormalizes both (on every miss, as
/// C does), and forgets the id in both histories. Every `capacity` requests (`update_lr`, the
/// interval is the capacity in bytes as C sets it) the learning rate moves by ±|lr·Δlr| after
/// the hit rate's change, with the hit rate computed in integers as C does (hits / interval);
/// it starts at `0.001 + (next_rand() % 1000) / 1000`, the first draw, and is drawn again
/// after 10 rounds without learning. The draws reproduce libCacheSim's generator and seed
/// (`LibCacheSimRandom`: lehmer64 from 0xdeadbeef, as the PyPI package in a fresh process).
///
/// A miss that SR-LRU refuses (an id from its history larger than R, a new one larger than SR:
/// `SR_LRU_can_insert`) is not stored, after the evictions made for it, as in C. Not modeled:
/// libCacheSim's default TTL (300 days of trace time, `default_ttl`), which its sub-caches
/// stamp with request time 0, so ids would expire from them after 300 days of trace time.
///
/// Complexity: hit O(1) (plus SR-LRU's demotions and CR-LFU's scan); miss O(1) expected; evict
/// and admit O(1) plus the objects SR-LRU moves and the histories trimmed, O(1) amortized.
struct CacheusPolicy: VictimNamingPolicy {
    typealias Meta = CacheusMeta
    private(set) var lru: SRLRU
    private(set) var lfu = CRLFU()
    /// `LRU_g` and `LFU_g`: ids each expert evicted alone.
    private var lruHistory: GhostQueue
    private var lfuHistory: GhostQueue
    private(set) var lruWeight = 0.5
    private(set) var lfuWeight = 0.5
    private(set) var learningRate: Double
    private var previousLearningRate = 0.0
    private var previousHitRate = 0.0
    private var unlearned = 0
    private var hits: Int64 = 0
    /// `update_interval`: the capacity.
    private let interval: Int64
    private var generator: LibCacheSimRandom
    /// The expert `nextVictim` followed, for the eviction that takes its victim (nil: both
    /// chose it).
    private var namedByLRU: Bool?
    /// libCacheSim's `n_req`: requests seen so far, this one included.
    private var now: Int64 = 0
    /// The id of the miss being served (SR-LRU's admission looks it up in its history); the
    /// replay stores only after a get missed, so it is the id `storesAfterEviction` is asked about.
    private var missing: UInt64 = 0
    /// `update_lr` runs after the request that reaches the interval, evictions included: it
    /// is run before the next request is served.
    private var learningRateDue = false

    init(capacity: Int, options: PolicyOptions) throws {
        // `reference=libcachesim-aa0fc40`: MMIX draws, and SR-LRU without the new mark.
        let random = try LibCacheSimRandom(options: options)
        lru = SRLRU(capacity: capacity, carriesNewMark: random.reference != LibCacheSimReference.repository)
        let historyBytes = Int(Double(capacity) / 2 * 1)  // `cache_size / 2 * ghost_list_factor`
        lruHistory = GhostQueue(capacity: historyBytes)
        lfuHistory = GhostQueue(capacity: historyBytes)
        interval = Int64(max(capacity, 1))
        generator = random
        learningRate = 0.001 + Double(generator.next() % 1000) / 1000
    }

    var newMeta: Meta { Meta() }
    var settings: String { generator.settings }
    var fallbacks: Int { lfu.fallbacks }
    static var fallbackRule: String? { "cacheus: when CR-LFU's lowest count is empty (libCacheSim reads a null object there), the lowest occupied count is used" }

    func deallocate() {
        lru.deallocate()
        lruHistory.deallocate()
        lfuHistory.deallocate()
    }

    mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        startRequest()
        lru.hit(slot, &nodes)
        lfu.hit(slot, &nodes)
        hits += 1
    }

    /// `check_and_update_history`.
    mutating func miss(_ key: UInt64) {
        startRequest()
        missing = key
        let inLRU = lruHistory.remove(key)
        let inLFU = lfuHistory.remove(key)
        if inLRU {
            lruWeight = lruWeight * exp(-learningRate)
        } else if inLFU {
            lfuWeight = lfuWeight * exp(-learningRate)
        }
        lruWeight = lruWeight / (lruWeight + lfuWeight)
        lfuWeight = 1 - lruWeight
    }

    private mutating func startRequest() {
        if learningRateDue { updateLearningRate() }
        now += 1
        learningRateDue = now % interval == 0
    }

    /// `update_lr`, its steps and integer hit rate as C computes them.
    private mutating func updateLearningRate() {
        learningRateDue = false
        let hitRate = Double(hits / interval)
        let hitRateChange = hitRate - previousHitRate
        let rateChange = learningRate - previousLearningRate
        previousLearningRate = learningRate
        previousHitRate = hitRate
        if rateChange != 0 {
            let sign: Double = hitRateChange / rateChange > 0 ? 1 : -1
            let next = learningRate + sign * abs(learningRate * rateChange)
            learningRate = next > 0.001 ? next : 0.0001
            unlearned = 0
        } else if hitRate == 0 || hitRateChange <= 0 {
            unlearned += 1
        } else if unlearned >= 10 {
            unlearned = 0
            learningRate = 0.001 + Double(generator.next() % 1000) / 1000
        }
        hits = 0
    }

    func storesAfterEviction(_ cost: Int) -> Bool { lru.admits(missing, cost: cost) }

    /// `Cacheus_insert`: CR-LFU first (it reads SR-LRU's history), then SR-LRU, whose SR
    /// overflow also leaves CR-LFU.
    mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        lfu.insert(slot, &nodes, remembered: lru.rememberedFrequency(nodes[slot].key))
        lru.admit(slot, &nodes)
        for pushed in lru.overflow {
            leaveLFU(pushed, &nodes)
            nodes.evict(pushed)
        }
    }

    /// `Cacheus_evict`.
    mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        evictNamed(nextVictim(&nodes, incoming: incoming), &nodes, incoming: incoming)
    }

    /// The experts' choices and the weighted draw between them (drawn even when they agree,
    /// as libCacheSim does; spent if TinyLFU in front spares the victim).
    mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        let lruChoice = lru.candidate
        let lfuChoice = lfu.candidate(nodes)
        let followsLRU = Double(generator.next() % 100) / 100.0 < lruWeight
        namedByLRU = lruChoice == lfuChoice ? nil : followsLRU
        return followsLRU ? lruChoice : lfuChoice
    }

    /// Takes the named victim out of both experts, remembered as the one that chose it.
    mutating func evictNamed(_ victim: Int32, _ nodes: inout Nodes, incoming: Int) -> Int32 {
        switch namedByLRU {
        case nil:  // both chose it
            _ = lru.evict(&nodes)
            _ = lfu.evict(&nodes)
            lru.setRememberedFrequency(nodes[victim].key, nodes[victim].meta.frequency)
        case true?:
            _ = lru.evict(&nodes)
            leaveLFU(victim, &nodes)
            remember(victim, nodes, in: &lruHistory)
        case false?:
            lru.remove(victim, &nodes)
            _ = lfu.evict(&nodes)
            lru.setRememberedFrequency(nodes[victim].key, nodes[victim].meta.frequency)
            remember(victim, nodes, in: &lfuHistory)
        }
        return victim
    }

    /// `CR_LFU_remove`: SR-LRU's history takes the object's count.
    private mutating func leaveLFU(_ slot: Int32, _ nodes: inout Nodes) {
        lru.setRememberedFrequency(nodes[slot].key, nodes[slot].meta.frequency)
        lfu.remove(slot, &nodes)
    }

    /// An expert's history fed as an LRU cache's `get`: a held id moves to the newest; a new
    /// one enters when it fits at all, the oldest leaving to make room.
    private func remember(_ slot: Int32, _ nodes: Nodes, in history: inout GhostQueue) {
        let cost = nodes[slot].cost
        if cost <= history.capacity { history.insert(nodes[slot].key, cost: cost) }
    }

    /// `Cacheus_remove`.
    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        lru.remove(slot, &nodes)
        leaveLFU(slot, &nodes)
    }
}

/// Its draws are libCacheSim's `next_rand`, shared with an admissioner in front.
extension CacheusPolicy: LibCacheSimRandomized {
    var libCacheSimRandom: LibCacheSimRandom { generator }
}
