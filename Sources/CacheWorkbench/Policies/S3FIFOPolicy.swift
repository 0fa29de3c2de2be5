import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// S3-FIFO (Yang et al., "FIFO queues are all you need for cache eviction", SOSP 2023), as
/// libCacheSim's `S3FIFO.c`: a small FIFO S (`fifo-size-ratio` of the capacity, default
/// 0.10), a main FIFO M (the rest) and a ghost FIFO G of ids (`ghost-size-ratio`, default
/// 0.90). A hit adds one to the object's frequency. A miss whose id is in G enters M; any
/// other enters S. Objects must fit S to be stored at all.
///
/// Eviction, while the incoming object does not fit: when M is over its size or S is empty,
/// M's oldest object is reinserted at M's head with frequency min(f, 3) − 1 if it was hit
/// (f ≥ 1), else evicted; otherwise S's oldest moves to M (frequency 0) when it was hit at
/// least `move-to-main-threshold` times (default 2), else it is evicted and its id goes to G.
/// As in libCacheSim, an object not found in G whose size equals S's size is refused after
/// the eviction (its `insert` refuses `size >= S`, its `can_insert` only `size > S`).
///
/// Complexity: hit O(1); miss O(1) expected (a ghost look-up); evict O(1) amortized (each
/// move or reinsertion was paid for by a hit).
struct S3FIFOPolicy: SmallMainPolicy, VictimNamingPolicy {
    struct Meta: SmallMainMeta {
        var frequency: Int32
        var inMain: Bool
    }

    var small = Nodes.Queue()
    var main = Nodes.Queue()
    /// The small queue's and main's sizes and the ghost, as the family shares them.
    var layout: ProbationLayout
    private var smallSize: Int { layout.smallSize }
    private var mainSize: Int { layout.mainSize }
    private let moveThreshold: Int32
    /// Set by a ghost hit on this request's miss; read by its admission.
    private var ghostHit = false

    init(capacity: Int, options: PolicyOptions) throws {
        layout = try ProbationLayout(capacity: capacity, options: options, ghostDefault: 0.90)
        moveThreshold = Int32(try options.integer("move-to-main-threshold", default: 2, range: 1...1_000_000))
    }

    func deallocate() { layout.deallocate() }
    @inline(__always) func prefetch(_ key: UInt64) { layout.prefetch(key) }
    @inline(__always) func prefetchEntry(_ key: UInt64) { layout.prefetchEntry(key) }

    var newMeta: Meta { Meta(frequency: 0, inMain: false) }
    var settings: String { "fifo-size-ratio=\(layout.smallRatio);ghost-size-ratio=\(layout.ghostRatio);move-to-main-threshold=\(moveThreshold)" }

    func admits(_ cost: Int) -> Bool { cost <= smallSize }
    /// libCacheSim checks this size first, then asks an admissioner.
    static var sizeRuleBeforeAdmission: Bool { true }
    func storesAfterEviction(_ cost: Int) -> Bool { ghostHit || cost < smallSize }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta.frequency < .max { nodes[slot].meta.frequency += 1 }
    }

    @inline(__always) mutating func miss(_ key: UInt64) { ghostHit = layout.takeFromGhost(key) }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        if ghostHit {
            nodes[slot].meta.inMain = true
            nodes.pushHead(slot, &main)
        } else {
            nodes.pushHead(slot, &small)
        }
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        evictNamed(nextVictim(&nodes, incoming: incoming), &nodes, incoming: incoming)
    }

    /// The search: moves S's hit objects to M and reinserts M's hit ones until an object
    /// that goes is at a tail, and names it. The moves stay done if TinyLFU in front spares
    /// it; the next search decides afresh between S and M.
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        // As libCacheSim decides once per call: S is drained (moves included) until one
        // object goes, even if the moves take M over its size meanwhile.
        if small.count > 0 && main.bytes <= mainSize {
            while small.count > 0 {
                let oldest = small.tail
                guard nodes[oldest].meta.frequency >= moveThreshold else { return oldest }
                nodes.unlink(oldest, &small)
                nodes[oldest].meta = Meta(frequency: 0, inMain: true)
                nodes.pushHead(oldest, &main)
            }
        }
        // M over its size, or S empty (perhaps emptied by the moves above: libCacheSim's
        // next call then finds S empty).
        while true {
            let oldest = main.tail
            let frequency = nodes[oldest].meta.frequency
            if frequency < 1 { return oldest }
            nodes[oldest].meta.frequency = min(frequency, 3) - 1
            nodes.moveToHead(oldest, &main)
        }
    }

    /// Takes the named victim (`SmallMainPolicy.takeNamed`).
    @inline(__always) mutating func evictNamed(_ victim: Int32, _ nodes: inout Nodes, incoming: Int) -> Int32 {
        takeNamed(victim, &nodes)
    }
}
