import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// libCacheSim's `LRU_Belady.c` and `FIFO_Belady.c` (repository aa0fc40; cachesim's
/// `lru-belady`, `fifo-belady`): LRU or FIFO whose eviction asks the oracle
/// (`BeladyAssist.wants`) about the tail: a wanted tail moves to the head and the next tail is
/// asked, an unwanted one is evicted. Every miss is admitted (their `USE_BELADY_INSERTION`
/// is off). Each object's next request is kept in its node (updated on a hit, as
/// `cache_find_base` does).
///
/// Deliberate difference: when every cached object is wanted, libCacheSim's `evict` turns
/// the queue round forever (its loop in `cache_get_base` never frees a byte); with byte
/// capacities this is nearly always reached (its threshold is capacity in bytes over the
/// miss ratio, in requests), so cachesim does not finish such a run. After one full turn the
/// workbench evicts the tail (the object the turn started with) and counts it (`fallbacks`).
///
/// Complexity: hit O(1); admit O(1); evict O(1) per object asked, O(n) at worst (a full turn).
struct QueueBeladyPolicy<Order: BeladyQueueOrder>: EvictionPolicy {
    static var needsFuture: Bool { true }
    /// The object's next request.
    typealias Meta = Int64
    var queue = Nodes.Queue()
    private var assist: BeladyAssist
    private var pendingNext = NextAccess.never
    /// Full turns that found every object wanted, where libCacheSim loops forever.
    private(set) var fallbacks = 0

    static var fallbackRule: String? {
        "evictions found every cached object wanted by the oracle (next request within capacity / miss ratio), where libCacheSim's \(Order.name) turns its queue forever; the workbench evicted the \(Order.tail)"
    }

    init(capacity: Int, options: PolicyOptions) throws { assist = try BeladyAssist(capacity: capacity, options: options, policy: Order.name) }

    var newMeta: Int64 { pendingNext }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        nodes[slot].meta = assist.request(miss: false)
        if Order.promotesOnHit { nodes.moveToHead(slot, &queue) }
    }

    @inline(__always) mutating func miss(_ key: UInt64) { pendingNext = assist.request(miss: true) }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) { nodes.pushHead(slot, &queue) }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        var asked = 0
        while asked < queue.count {
            let candidate = queue.tail
            if !assist.wants(nodes[candidate].meta) {
                nodes.unlink(candidate, &queue)
                return candidate
            }
            nodes.moveToHead(candidate, &queue)
            asked += 1
        }
        fallbacks += 1
        let victim = queue.tail
        nodes.unlink(victim, &queue)
        return victim
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) { nodes.unlink(slot, &queue) }
}

/// What tells `lru-belady` and `fifo-belady` apart: whether a hit moves the object to the head.
protocol BeladyQueueOrder {
    static var promotesOnHit: Bool { get }
    /// cachesim's name.
    static var name: String { get }
    /// What the tail is, for the fallback note.
    static var tail: String { get }
}

enum LRUOrder: BeladyQueueOrder {
    static var promotesOnHit: Bool { true }
    static var name: String { "lru-belady" }
    static var tail: String { "least recently used" }
}

enum FIFOOrder: BeladyQueueOrder {
    static var promotesOnHit: Bool { false }
    static var name: String { "fifo-belady" }
    static var tail: String { "oldest" }
}

typealias LRUBeladyPolicy = QueueBeladyPolicy<LRUOrder>
typealias FIFOBeladyPolicy = QueueBeladyPolicy<FIFOOrder>
