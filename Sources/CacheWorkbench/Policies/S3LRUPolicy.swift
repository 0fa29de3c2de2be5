import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// S3-LRU, as libCacheSim's `other/S3LRU.c` (`S3LRU_find`, `_insert`, `_evict`,
/// `_evict_LRU`): S3-FIFO's layout with an LRU main queue. A small FIFO S
/// (`lru-size-ratio` of the capacity, default 0.10; libCacheSim's `LRU-size-ratio`, though
/// S is a FIFO there too), a main LRU M (the rest) and a ghost of ids (`ghost-size-ratio`,
/// default 0.90). A hit in S counts; with `promote-on-hit=1` (the default) an object that
/// reaches `move-to-main-threshold` counted hits (default 1) moves at once to M's head
/// (even when M is then over its size). A hit in M moves the object to M's head. A miss
/// whose id is in the ghost enters M; any other enters S. Objects must fit S to be stored.
///
/// Eviction, while the incoming object does not fit: when M is over its size or S is
/// empty, M's least recent object goes; otherwise S's oldest goes and its id enters the
/// ghost — with `promote-on-hit=0`, S's oldest objects that reached the threshold move to
/// M's head instead until one goes. libCacheSim's `main-cache-type` (lru, clock, clock2) is
/// not offered: only its default, lru.
///
/// Complexity: hit O(1); miss O(1) expected (a ghost look-up); evict O(1) amortized.
struct S3LRUPolicy: SmallMainPolicy, VictimNamingPolicy {
    struct Meta: SmallMainMeta {
        var hits: Int32
        var inMain: Bool
    }

    var small = Nodes.Queue()
    var main = Nodes.Queue()
    var layout: ProbationLayout
    private let threshold: Int32
    private let promoteOnHit: Bool
    /// Set by a ghost hit on this request's miss; read by its admission.
    private var ghostHit = false

    init(capacity: Int, options: PolicyOptions) throws {
        layout = try ProbationLayout(capacity: capacity, options: options, smallOption: "lru-size-ratio", ghostDefault: 0.90)
        threshold = Int32(try options.integer("move-to-main-threshold", default: 1, range: 1...1_000_000))
        promoteOnHit = try options.integer("promote-on-hit", default: 1, range: 0...1) == 1
    }

    func deallocate() { layout.deallocate() }
    @inline(__always) func prefetch(_ key: UInt64) { layout.prefetch(key) }
    @inline(__always) func prefetchEntry(_ key: UInt64) { layout.prefetchEntry(key) }

    var newMeta: Meta { Meta(hits: 0, inMain: false) }
    var settings: String {
        "lru-size-ratio=\(layout.smallRatio);ghost-size-ratio=\(layout.ghostRatio);move-to-main-threshold=\(threshold);promote-on-hit=\(promoteOnHit ? 1 : 0)"
    }

    func admits(_ cost: Int) -> Bool { cost <= layout.smallSize }
    /// libCacheSim checks this size first, then asks an admissioner.
    static var sizeRuleBeforeAdmission: Bool { true }

    @inline(__always) private mutating func moveToMain(_ slot: Int32, _ nodes: inout Nodes) {
        nodes[slot].meta = Meta(hits: 0, inMain: true)
        nodes.pushHead(slot, &main)
    }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta.inMain {
            nodes.moveToHead(slot, &main)
            return
        }
        if nodes[slot].meta.hits < .max { nodes[slot].meta.hits += 1 }
        if promoteOnHit && nodes[slot].meta.hits >= threshold {
            nodes.unlink(slot, &small)
            moveToMain(slot, &nodes)
        }
    }

    @inline(__always) mutating func miss(_ key: UInt64) { ghostHit = layout.takeFromGhost(key) }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        if ghostHit {
            ghostHit = false
            moveToMain(slot, &nodes)
        } else {
            nodes.pushHead(slot, &small)
        }
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        evictNamed(nextVictim(&nodes, incoming: incoming), &nodes, incoming: incoming)
    }

    /// The search: moves S's hit objects to M (without promotion on hit) until S's oldest
    /// goes, or names M's least recent. The moves stay done if TinyLFU in front spares it.
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        if small.count > 0 && main.bytes <= layout.mainSize {
            while small.count > 0 {
                let oldest = small.tail
                guard !promoteOnHit && nodes[oldest].meta.hits >= threshold else { return oldest }
                nodes.unlink(oldest, &small)
                moveToMain(oldest, &nodes)
            }
        }
        return main.tail
    }

    /// Takes the named victim (`SmallMainPolicy.takeNamed`).
    @inline(__always) mutating func evictNamed(_ victim: Int32, _ nodes: inout Nodes, incoming: Int) -> Int32 {
        takeNamed(victim, &nodes)
    }
}
