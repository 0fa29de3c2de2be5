import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import HeapModule

/// LFU with dynamic aging (Arlitt et al., "Evaluating content management techniques for Web
/// proxy caches", 2000), exactly as libCacheSim's `LFUDA.c` computes it: each object has a
/// priority, objects of one priority form a queue, and the cache age L is the priority of
/// the last eviction. A new object gets priority L + 1. A hit adds L to the priority (not
/// 1 + L: libCacheSim's `freq += min_freq`; before the first eviction L = 0, so a hit only
/// moves the object to the back of its queue). Eviction takes the oldest object of
/// priority L (of priority 1 while L = 0) and sets L to it; when that queue empties, L
/// becomes the lowest non-empty priority above it, searched only up to the highest priority
/// a hit has produced — libCacheSim's integer scan, here a heap of priorities.
///
/// Where libCacheSim would fail (the scan finds nothing, so its next eviction reads an empty
/// queue and dereferences NULL) the workbench takes the lowest non-empty priority above L
/// instead (or, when only objects stranded below L are left, the lowest of all); traces
/// that reach that state crash libCacheSim and cannot be compared.
///
/// Complexity: hit O(1) expected, plus O(log p) when a new priority appears (p = distinct
/// priorities); evict O(1) expected plus O(log p) amortized for the search.
struct LFUDAPolicy: VictimNamingPolicy {
    /// The object's priority.
    typealias Meta = Int
    private var queues: [Int: Nodes.Queue] = [:]
    /// Priorities whose queue was non-empty when pushed (stale ones are skipped).
    private var priorities = Heap<Int>()
    /// L: libCacheSim's `min_freq`.
    private var age = 0
    /// The highest priority a hit has produced (libCacheSim's `max_freq`; admissions do
    /// not raise it).
    private var highest = 0
    /// Evictions that found queue L empty (see the type's comment).
    private(set) var fallbacks = 0

    static var fallbackRule: String? {
        "evictions found the lowest-priority queue empty, where libCacheSim's LFUDA dereferences NULL (it cannot run this trace at this capacity); they took the next non-empty priority up"
    }

    init(capacity: Int, options: PolicyOptions) {}

    /// A new object's priority, L + 1.
    var newMeta: Int { age == .max ? .max : age + 1 }

    @inline(__always) private mutating func enqueue(_ slot: Int32, _ priority: Int, _ nodes: inout Nodes) {
        nodes[slot].meta = priority
        if queues[priority, default: Nodes.Queue()].count == 0 { priorities.insert(priority) }
        nodes.pushHead(slot, &queues[priority, default: Nodes.Queue()])
    }

    @inline(__always) private mutating func dequeue(_ slot: Int32, _ nodes: inout Nodes) {
        let priority = nodes[slot].meta
        nodes.unlink(slot, &queues[priority, default: Nodes.Queue()])
        if queues[priority]?.count == 0 { queues[priority] = nil }
    }

    /// L becomes the lowest non-empty priority in (L, highest], or stays (libCacheSim's
    /// `update_min_freq`). Entries at or below L are never needed again: L only grows, and
    /// objects only enter priorities above it.
    private mutating func raiseAge(bounded: Bool) {
        while let lowest = priorities.min, lowest <= age || queues[lowest] == nil { priorities.removeMin() }
        if let lowest = priorities.min, !bounded || lowest <= highest { age = lowest }
    }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        let old = nodes[slot].meta
        let (new, overflow) = old.addingReportingOverflow(age)
        let priority = overflow ? .max : new
        highest = max(highest, priority)
        if priority == old {
            nodes.moveToHead(slot, &queues[old, default: Nodes.Queue()])
            return
        }
        dequeue(slot, &nodes)
        if old == age && queues[old] == nil { raiseAge(bounded: true) }
        enqueue(slot, priority, &nodes)
    }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) { enqueue(slot, newMeta, &nodes) }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        let victim = nextVictim(&nodes, incoming: incoming)
        dequeue(victim, &nodes)
        if queues[age] == nil { raiseAge(bounded: true) }
        return victim
    }

    /// The least recent object of priority L, after L's adjustments (which `evict`, asked
    /// again, finds done).
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        if age == 0 { age = 1 }
        if queues[age] == nil {  // libCacheSim: a NULL dereference from here on
            fallbacks += 1
            raiseAge(bounded: false)
            // Only objects stranded below L are left: the lowest of them.
            if queues[age] == nil, let lowest = queues.keys.min() { age = lowest }
        }
        return queues[age, default: Nodes.Queue()].tail
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        let priority = nodes[slot].meta
        dequeue(slot, &nodes)
        if priority == age && queues[priority] == nil { raiseAge(bounded: true) }
    }
}
