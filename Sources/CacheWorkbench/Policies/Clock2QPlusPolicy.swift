import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Clock2Q+ (2Q with CLOCK queues and a correlation window; in libCacheSim since 2024), as
/// libCacheSim's `Clock2QPlus.c` (`Clock2QPlus_find`, `_insert`, `_evict_fifo`,
/// `_evict_main`): a small FIFO S (`fifo-size-ratio` of the capacity, default 0.10), a main
/// CLOCK M (the rest) and a ghost FIFO G of ids (`ghost-size-ratio`, default 0.90).
///
/// A hit in S counts only outside the correlation window: when at least
/// `corr-window-ratio` × S's size in bytes (default 0.5) objects entered S after it (the
/// window is an object count measured against a byte size, as libCacheSim's). A hit in M
/// counts always. A miss whose id is in G enters M; any other enters S — except before the
/// first eviction, when a full S sends new objects to M. Objects must fit S to be stored,
/// and (not found in G) be smaller than it, else they are refused after the eviction, as
/// libCacheSim's `insert` returns NULL.
///
/// Eviction, while the incoming object does not fit: when M is over its size or S is
/// empty, M's oldest is reinserted at M's head with its count cleared if it counted a hit,
/// else evicted; otherwise S's oldest moves to M (count 0) when it counted at least
/// `move-to-main-threshold` hits (default 1), else it is evicted and its id goes to G.
///
/// Complexity: hit O(1); miss O(1) expected (a ghost look-up); evict O(1) amortized (each
/// move or reinsertion was paid for by a hit).
struct Clock2QPlusPolicy: SmallMainPolicy, VictimNamingPolicy {
    struct Meta: SmallMainMeta {
        var frequency: Int32
        var inMain: Bool
        /// The S admission count when the object entered S.
        var insertion: Int
    }

    var small = Nodes.Queue()
    var main = Nodes.Queue()
    var layout: ProbationLayout
    private let moveThreshold: Int32
    private let windowRatio: Double
    /// libCacheSim's `corr_window_size`: (double)(fifo_cache_size * corr_window_ratio).
    private let window: Double
    /// Objects admitted to S so far.
    private var smallAdmissions = 0
    /// Whether anything was evicted yet (before, a full S sends new objects to M).
    private var hasEvicted = false
    /// Set by a ghost hit on this request's miss; read by its admission.
    private var ghostHit = false

    init(capacity: Int, options: PolicyOptions) throws {
        layout = try ProbationLayout(capacity: capacity, options: options, ghostDefault: 0.90)
        moveThreshold = Int32(try options.integer("move-to-main-threshold", default: 1, range: 1...1_000_000))
        windowRatio = try options.number("corr-window-ratio", default: 0.5, range: 0...1_000_000)
        window = Double(layout.smallSize) * windowRatio
    }

    func deallocate() { layout.deallocate() }
    @inline(__always) func prefetch(_ key: UInt64) { layout.prefetch(key) }
    @inline(__always) func prefetchEntry(_ key: UInt64) { layout.prefetchEntry(key) }

    var newMeta: Meta { Meta(frequency: 0, inMain: false, insertion: 0) }
    var settings: String {
        "fifo-size-ratio=\(layout.smallRatio);ghost-size-ratio=\(layout.ghostRatio);move-to-main-threshold=\(moveThreshold);corr-window-ratio=\(windowRatio)"
    }

    func admits(_ cost: Int) -> Bool { cost <= layout.smallSize }
    func storesAfterEviction(_ cost: Int) -> Bool { ghostHit || cost < layout.smallSize }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        let meta = nodes[slot].meta
        if meta.inMain || Double(smallAdmissions - meta.insertion) >= window {
            if meta.frequency < .max { nodes[slot].meta.frequency += 1 }
        }
    }

    @inline(__always) mutating func miss(_ key: UInt64) { ghostHit = layout.takeFromGhost(key) }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        if ghostHit || (!hasEvicted && small.bytes >= layout.smallSize) {
            ghostHit = false
            nodes[slot].meta.inMain = true
            nodes.pushHead(slot, &main)
        } else {
            smallAdmissions += 1
            nodes[slot].meta.insertion = smallAdmissions
            nodes.pushHead(slot, &small)
        }
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        evictNamed(nextVictim(&nodes, incoming: incoming), &nodes, incoming: incoming)
    }

    /// Takes the named victim (`SmallMainPolicy.takeNamed`).
    @inline(__always) mutating func evictNamed(_ victim: Int32, _ nodes: inout Nodes, incoming: Int) -> Int32 {
        hasEvicted = true
        return takeNamed(victim, &nodes)
    }

    /// The search: moves S's hit objects to M and sends M's hit ones round until an object
    /// that goes is at a tail, and names it. The moves stay done if TinyLFU in front spares it.
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        // As libCacheSim decides once per call: S is drained (moves included) until one
        // object goes, even if the moves take M over its size meanwhile.
        if small.count > 0 && main.bytes <= layout.mainSize {
            while small.count > 0 {
                let oldest = small.tail
                guard nodes[oldest].meta.frequency >= moveThreshold else { return oldest }
                nodes.unlink(oldest, &small)
                nodes[oldest].meta.frequency = 0
                nodes[oldest].meta.inMain = true
                nodes.pushHead(oldest, &main)
            }
        }
        // M over its size, or S empty (perhaps emptied by the moves above).
        while true {
            let oldest = main.tail
            if nodes[oldest].meta.frequency < 1 { return oldest }
            nodes[oldest].meta.frequency = 0
            nodes.moveToHead(oldest, &main)
        }
    }
}
