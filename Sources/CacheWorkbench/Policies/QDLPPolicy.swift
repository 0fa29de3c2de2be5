import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// QD-LP, "quick demotion, lazy promotion" (Yang et al., "FIFO can be Better than LRU: the
/// Power of Lazy Promotion and Quick Demotion", HotOS 2023), as libCacheSim's `QDLP.c`
/// (`QDLP_find`, `_insert`, `_evict`): a probationary FIFO S (`fifo-size-ratio` of the
/// capacity, default 0.10), a ghost FIFO of ids (`ghost-size-ratio`, default 0.9) and a
/// main cache M of the rest with its own capacity — a CLOCK with a 2-bit counter by default
/// (`main-cache` = clock2; also clock, clock3, and fifo).
///
/// A hit in S counts; a hit in M raises its CLOCK counter. A miss whose id is in the ghost
/// is stored in M as M's own `get` would (M evicts for it within M's capacity); any other
/// enters S, if smaller than S (else it is refused after the eviction, as libCacheSim's
/// `insert` returns NULL). Eviction, while the incoming object does not fit: with S empty,
/// M evicts (CLOCK: its oldest with a counter above 0 loses one and goes to the head, the
/// first at 0 goes); otherwise S's oldest leaves S — into M (which evicts for it within
/// its capacity) when it was hit at least `move-to-main-threshold` times (default 1), else
/// evicted, its id to the ghost.
///
/// Complexity: hit O(1); miss O(1) expected (a ghost look-up); evict O(1) amortized (each
/// CLOCK reinsertion and move spends a hit).
struct QDLPPolicy: VictimNamingPolicy {
    struct Meta {
        /// Hits in S, or M's CLOCK counter.
        var count: Int32
        var inMain: Bool
    }

    private(set) var small = Nodes.Queue()
    private(set) var main = Nodes.Queue()
    private var layout: ProbationLayout
    private let threshold: Int32
    private let mainClock: MainClock
    /// Set by a ghost hit on this request's miss; read by its admission.
    private var ghostHit = false
    /// M is evicting for S's oldest, which does not fit it yet.
    private var moving = false

    init(capacity: Int, options: PolicyOptions) throws {
        layout = try ProbationLayout(capacity: capacity, options: options, ghostDefault: 0.9)
        threshold = Int32(try options.integer("move-to-main-threshold", default: 1, range: 1...1_000_000))
        mainClock = try MainClock(options: options)
    }

    func deallocate() { layout.deallocate() }
    @inline(__always) func prefetch(_ key: UInt64) { layout.prefetch(key) }
    @inline(__always) func prefetchEntry(_ key: UInt64) { layout.prefetchEntry(key) }

    var newMeta: Meta { Meta(count: 0, inMain: false) }
    var settings: String {
        "fifo-size-ratio=\(layout.smallRatio);ghost-size-ratio=\(layout.ghostRatio);main-cache=\(mainClock.kind);move-to-main-threshold=\(threshold)"
    }

    func admits(_ cost: Int) -> Bool { cost <= layout.smallSize }
    /// libCacheSim checks this size first, then asks an admissioner.
    static var sizeRuleBeforeAdmission: Bool { true }
    func storesAfterEviction(_ cost: Int) -> Bool { ghostHit || cost < layout.smallSize }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        let meta = nodes[slot].meta
        if meta.inMain ? meta.count < mainClock.maximumCount : meta.count < .max { nodes[slot].meta.count += 1 }
    }

    @inline(__always) mutating func miss(_ key: UInt64) { ghostHit = layout.takeFromGhost(key) }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        if ghostHit {
            ghostHit = false
            if let victim = storeInMain(slot, &nodes) { nodes.evict(victim) }
        } else {
            nodes.pushHead(slot, &small)
        }
    }

    /// M's own `get` for an object it does not hold: CLOCK evictions within M's capacity
    /// (all but the last freed here; the last returned), then the object at M's head with
    /// counter 0. An object larger than M is not stored (never: S's are smaller than M).
    private mutating func storeInMain(_ slot: Int32, _ nodes: inout Nodes) -> Int32? {
        var last: Int32?
        while main.bytes + nodes[slot].cost > layout.mainSize, main.count > 0 {
            if let victim = last { nodes.evict(victim) }
            last = evictFromMain(&nodes)
        }
        nodes[slot].meta = Meta(count: 0, inMain: true)
        nodes.pushHead(slot, &main)
        return last
    }

    private mutating func evictFromMain(_ nodes: inout Nodes) -> Int32 { mainClock.evict(&main, &nodes, count: \.count) }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 { evictStep(&nodes, incoming: incoming) }

    /// The search: S's oldest goes, or leaves S for M when it was hit `move-to-main-threshold`
    /// times — M evicts for it (its CLOCK) until it fits, in the same step (`stepUnfinished`
    /// meanwhile), and it moves then; with S empty, M evicts. If TinyLFU in front spares a
    /// victim, the moves and the CLOCK's walk stay done and the object waits in S for room.
    mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        while small.count > 0 {
            let oldest = small.tail
            guard nodes[oldest].meta.count >= threshold else { return oldest }
            if main.bytes + nodes[oldest].cost > layout.mainSize, main.count > 0 { return mainClock.nextVictim(&main, &nodes, count: \.count) }
            nodes.unlink(oldest, &small)
            nodes[oldest].meta = Meta(count: 0, inMain: true)
            nodes.pushHead(oldest, &main)
        }
        return mainClock.nextVictim(&main, &nodes, count: \.count)
    }

    /// Takes the named victim: from S, its id to the ghost; or from M, after which S's oldest
    /// on its way to M moves if it fits now (ending the step) or waits for the next victim.
    mutating func evictNamed(_ victim: Int32, _ nodes: inout Nodes, incoming: Int) -> Int32 {
        guard nodes[victim].meta.inMain else {
            nodes.unlink(victim, &small)
            layout.recordInGhost(nodes[victim].key, cost: nodes[victim].cost)
            return victim
        }
        nodes.unlink(victim, &main)
        moving = false
        let mover = small.tail
        if mover >= 0, nodes[mover].meta.count >= threshold {
            if main.bytes + nodes[mover].cost > layout.mainSize, main.count > 0 {
                moving = true
            } else {
                nodes.unlink(mover, &small)
                nodes[mover].meta = Meta(count: 0, inMain: true)
                nodes.pushHead(mover, &main)
            }
        }
        return victim
    }

    var stepUnfinished: Bool { moving }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        if slot == small.tail { moving = false }  // the object waiting for room in M, if any
        if nodes[slot].meta.inMain { nodes.unlink(slot, &main) } else { nodes.unlink(slot, &small) }
    }
}
