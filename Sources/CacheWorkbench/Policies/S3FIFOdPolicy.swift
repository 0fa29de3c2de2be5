import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// S3-FIFOd, S3-FIFO whose small queue resizes itself, as libCacheSim's `S3FIFOd.c`
/// (`S3FIFOd_update_fifo_size`, `_find`, `_insert`, `_evict`): a small FIFO S
/// (`fifo-size-ratio` of the capacity to begin with, default 0.10), a main cache M of the
/// rest with its own capacity — a CLOCK with a 2-bit counter by default (`main-cache` =
/// clock2; also clock, clock3, fifo) — a ghost FIFO G of ids as large as M was at the start,
/// and two FIFOs of ids of a tenth of the capacity each: what S evicted and what M evicted.
///
/// Before each request, when more than 100 requests (decayed) found their id in one of the
/// two eviction FIFOs and M has evicted something: if S's evictions were requested more than
/// twice as often as M's, S and G grow by a step and M shrinks (while M is above 1% of the
/// capacity); the other way round, S and G shrink and M grows (while S is above 1%); the
/// step is max(1, ⌊min(S, M) / 1000⌋) bytes; both counts are then multiplied by 0.8 and
/// truncated. With M's eviction FIFO empty both counts restart at 0.
///
/// A hit in S counts; a hit in M raises its CLOCK counter. A miss found in G is stored in M
/// as M's own `get` would (M evicting for it within its capacity, unrecorded); any other
/// enters S, if it fits S's current size at all. Eviction, while the incoming object does
/// not fit: with S empty, M evicts (recorded in M's eviction FIFO); otherwise S's oldest
/// leaves S — into M when it was hit at least `move-to-main-threshold` times (default 1),
/// after which M evicts (recorded) while over its size; else evicted, its id to G and to S's
/// eviction FIFO.
///
/// Where libCacheSim would dereference NULL (a ghost hit for an object larger than M's
/// current size, which M's `get` refuses), the object enters M all the same, counted as a
/// fallback.
///
/// Complexity: hit O(1) expected (two id look-ups for an object in M); miss O(1) expected;
/// evict O(1) amortized (each CLOCK reinsertion and move spends a hit).
struct S3FIFOdPolicy: VictimNamingPolicy {
    struct Meta {
        /// Hits in S, or M's CLOCK counter.
        var count: Int32
        var inMain: Bool
    }

    private(set) var small = Nodes.Queue()
    private(set) var main = Nodes.Queue()
    private var ghost: GhostQueue
    private var evictedFromSmall: GhostQueue
    private var evictedFromMain: GhostQueue
    private(set) var smallSize: Int
    private(set) var mainSize: Int
    private let capacity: Int
    private let smallRatio: Double
    private let threshold: Int32
    private let mainClock: MainClock
    private var smallEvictionHits: Int32 = 0
    private var mainEvictionHits: Int32 = 0
    /// Set by a ghost hit on this request's miss; read by its admission.
    private var ghostHit = false
    private(set) var fallbacks = 0
    /// A move from S has taken M over its size, and M's evictions for it are not done.
    private var moving = false

    static var fallbackRule: String? {
        "s3fifod: a ghost hit larger than the main cache, where libCacheSim's S3FIFOd dereferences NULL: the workbench stores it in main"
    }

    init(capacity: Int, options: PolicyOptions) throws {
        self.capacity = capacity
        smallRatio = try options.fraction("fifo-size-ratio", default: 0.10)
        threshold = Int32(try options.integer("move-to-main-threshold", default: 1, range: 1...1_000_000))
        mainClock = try MainClock(options: options)
        // libCacheSim: (int64_t)cache_size * ratio, truncated; G as large as M; the
        // eviction FIFOs cache_size / 10.
        smallSize = Int(Double(capacity) * smallRatio)
        mainSize = capacity - smallSize
        ghost = GhostQueue(capacity: mainSize)
        evictedFromSmall = GhostQueue(capacity: capacity / 10)
        evictedFromMain = GhostQueue(capacity: capacity / 10)
    }

    func deallocate() {
        ghost.deallocate()
        evictedFromSmall.deallocate()
        evictedFromMain.deallocate()
    }

    var newMeta: Meta { Meta(count: 0, inMain: false) }
    var settings: String { "fifo-size-ratio=\(smallRatio);main-cache=\(mainClock.kind);move-to-main-threshold=\(threshold)" }

    func admits(_ cost: Int) -> Bool { cost <= smallSize }
    /// libCacheSim checks this size first, then asks an admissioner.
    static var sizeRuleBeforeAdmission: Bool { true }

    /// `S3FIFOd_update_fifo_size`, run before every request.
    @inline(__always) private mutating func resize() {
        let step = max(1, min(smallSize, mainSize) / 1000)
        guard evictedFromMain.bytes > 0 else {
            smallEvictionHits = 0
            mainEvictionHits = 0
            return
        }
        guard Int(smallEvictionHits) + Int(mainEvictionHits) > 100 else { return }
        if Int(smallEvictionHits) > Int(mainEvictionHits) * 2 {
            if mainSize > capacity / 100 {
                smallSize += step
                ghost.capacity += step
                mainSize -= step
            }
        } else if Int(mainEvictionHits) > Int(smallEvictionHits) * 2 {
            if smallSize > capacity / 100 {
                smallSize -= step
                ghost.capacity -= step
                mainSize += step
            }
        }
        smallEvictionHits = Int32(Double(smallEvictionHits) * 0.8)
        mainEvictionHits = Int32(Double(mainEvictionHits) * 0.8)
    }

    /// A request that did not hit in S: the eviction FIFOs learn whether it was evicted.
    @inline(__always) private mutating func checkEvicted(_ key: UInt64) {
        if evictedFromSmall.remove(key) { smallEvictionHits &+= 1 }
        if evictedFromMain.remove(key) { mainEvictionHits &+= 1 }
    }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        resize()
        let meta = nodes[slot].meta
        if !meta.inMain {
            if meta.count < .max { nodes[slot].meta.count += 1 }
            return
        }
        if meta.count < mainClock.maximumCount { nodes[slot].meta.count += 1 }
        checkEvicted(nodes[slot].key)
    }

    @inline(__always) mutating func miss(_ key: UInt64) {
        resize()
        ghostHit = ghost.remove(key)
        checkEvicted(key)
    }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        if ghostHit {
            ghostHit = false
            // M's own get: its evictions (unrecorded) within its capacity, then the object.
            if nodes[slot].cost <= mainSize {
                while main.bytes + nodes[slot].cost > mainSize, main.count > 0 { nodes.evict(evictFromMain(&nodes)) }
            } else {
                fallbacks += 1
            }
            nodes[slot].meta = Meta(count: 0, inMain: true)
            nodes.pushHead(slot, &main)
        } else {
            nodes.pushHead(slot, &small)
        }
    }

    private mutating func evictFromMain(_ nodes: inout Nodes) -> Int32 { mainClock.evict(&main, &nodes, count: \.count) }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 { evictStep(&nodes, incoming: incoming) }

    /// `S3FIFOd_evict`'s search: S's oldest goes, or moves to M when it was hit
    /// `move-to-main-threshold` times; a move that takes M over its size makes M evict (its
    /// CLOCK) until it fits, in the same step (`stepUnfinished` meanwhile); with S empty, M
    /// evicts. The moves and the CLOCK's walk stay done if TinyLFU in front spares a victim.
    mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        if moving {
            if main.bytes > mainSize { return mainClock.nextVictim(&main, &nodes, count: \.count) }
            moving = false  // M's size grew meanwhile (`resize`)
        }
        while small.count > 0 {
            let oldest = small.tail
            guard nodes[oldest].meta.count >= threshold else { return oldest }
            nodes.unlink(oldest, &small)
            nodes[oldest].meta = Meta(count: 0, inMain: true)
            nodes.pushHead(oldest, &main)
            if main.bytes > mainSize {
                moving = true
                return mainClock.nextVictim(&main, &nodes, count: \.count)
            }
        }
        return mainClock.nextVictim(&main, &nodes, count: \.count)
    }

    /// Takes the named victim: from M, recorded in M's eviction FIFO (the step done once M
    /// fits), or from S, recorded in the ghost and S's eviction FIFO.
    @inline(__always) mutating func evictNamed(_ victim: Int32, _ nodes: inout Nodes, incoming: Int) -> Int32 {
        if nodes[victim].meta.inMain {
            nodes.unlink(victim, &main)
            evictedFromMain.recordFIFO(nodes[victim].key, cost: nodes[victim].cost)
            if main.bytes <= mainSize { moving = false }
        } else {
            nodes.unlink(victim, &small)
            ghost.recordFIFO(nodes[victim].key, cost: nodes[victim].cost)
            evictedFromSmall.recordFIFO(nodes[victim].key, cost: nodes[victim].cost)
        }
        return victim
    }

    var stepUnfinished: Bool { moving }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta.inMain { nodes.unlink(slot, &main) } else { nodes.unlink(slot, &small) }
    }
}
