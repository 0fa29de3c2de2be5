import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// libCacheSim's `Sieve_Belady.c` (repository aa0fc40; cachesim's `sieve-belady`): SIEVE's
/// queue and hand, the visited bit replaced by the oracle (`BeladyAssist.wants`). A miss is
/// stored only if the oracle wants it (`USE_BELADY_INSERTION`), after the evictions made room
/// for it, as `cache_get_base` evicts before `insert` declines. To evict, the hand walks from
/// where it stopped (the tail at first) towards the head past wanted objects; past the head
/// it walks once more from the tail; the first unwanted object goes and the hand stays at
/// its newer neighbour. If both walks find every object wanted, the object the hand stood on
/// goes.
///
/// Deliberate difference: when that happens with the hand at no object (the first eviction,
/// or the last victim was the head), libCacheSim dereferences NULL; the workbench evicts the
/// tail and counts it (`fallbacks`).
///
/// Complexity: hit O(1); admit O(1); evict O(n) at worst (two walks).
struct SieveBeladyPolicy: EvictionPolicy {
    static var needsFuture: Bool { true }
    typealias Meta = Int64
    var queue = Nodes.Queue()
    private var assist: BeladyAssist
    private var pendingNext = NextAccess.never
    /// The next object the hand looks at; -1 = none (libCacheSim's NULL `pointer`).
    private var hand: Int32 = -1
    private(set) var fallbacks = 0

    static var fallbackRule: String? {
        "evictions found every cached object wanted by the oracle with the hand at no object, where libCacheSim's sieve-belady dereferences NULL; the workbench evicted the oldest"
    }

    init(capacity: Int, options: PolicyOptions) throws { assist = try BeladyAssist(capacity: capacity, options: options, policy: "sieve-belady") }

    var newMeta: Int64 { pendingNext }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) { nodes[slot].meta = assist.request(miss: false) }

    @inline(__always) mutating func miss(_ key: UInt64) { pendingNext = assist.request(miss: true) }

    /// `Sieve_Belady_insert` asks the oracle about the request being missed.
    @inline(__always) func storesAfterEviction(_ cost: Int) -> Bool { assist.wants(pendingNext) }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) { nodes.pushHead(slot, &queue) }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        var victim = walk(from: hand >= 0 ? hand : queue.tail, nodes)
        if victim < 0 { victim = walk(from: queue.tail, nodes) }
        if victim < 0 {
            if hand >= 0 {
                victim = hand
            } else {
                fallbacks += 1
                victim = queue.tail
            }
        }
        hand = nodes[victim].newer
        nodes.unlink(victim, &queue)
        return victim
    }

    /// The first object from `start` towards the head the oracle does not want, or -1.
    @inline(__always) private func walk(from start: Int32, _ nodes: Nodes) -> Int32 {
        var object = start
        while object >= 0 && assist.wants(nodes[object].meta) { object = nodes[object].newer }
        return object
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        if slot == hand { hand = nodes[slot].newer }
        nodes.unlink(slot, &queue)
    }
}
