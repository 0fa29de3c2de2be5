import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// MRU, as libCacheSim's `MRU.c` (cacheMon snapshot, `MRU_find`/`MRU_evict`): a hit moves
/// the object to the head; eviction takes the head, the most recently used object (good for
/// loops larger than the cache, Chou & DeWitt 1985).
///
/// Deliberate difference: libCacheSim's `MRU_evict` dereferences NULL when it must evict
/// the only cached object (`q_head->queue.next` is NULL; a larger object arriving at a cache
/// of one). The workbench evicts that object and counts the eviction (`fallbacks`).
///
/// Complexity: hit O(1), admit O(1), evict O(1).
struct MRUPolicy: SingleQueuePolicy, VictimNamingPolicy {
    typealias Meta = Void
    var queue = Nodes.Queue()
    /// Evictions of the only cached object, where libCacheSim's MRU crashes.
    private(set) var fallbacks = 0

    static var fallbackRule: String? {
        "evictions emptied the cache of its only object, where libCacheSim's MRU dereferences NULL (it cannot run this trace at this capacity); the workbench evicted that object"
    }

    init(capacity: Int, options: PolicyOptions) {}

    var newMeta: Void { () }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) { nodes.moveToHead(slot, &queue) }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        let victim = queue.head
        if queue.count == 1 { fallbacks += 1 }
        nodes.unlink(victim, &queue)
        return victim
    }

    /// The head (the candidate is placed after the eviction: Caffeine's `MRU.findVictim`
    /// skipping the added entry names the same object).
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 { queue.head }
}
