import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// LRU: a hit moves the object to the head; the tail goes. As libCacheSim's `LRU.c`.
///
/// Complexity: hit O(1), admit O(1), evict O(1).
struct LRUPolicy: TailEvictingPolicy {
    typealias Meta = Void
    var queue = Nodes.Queue()

    init(capacity: Int, options: PolicyOptions) {}

    var newMeta: Void { () }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) { nodes.moveToHead(slot, &queue) }
}

/// The `lru` backend: least-recently-used eviction under a byte capacity, policy only (no
/// payloads, no per-object overhead: DESIGN.md rule 5, as libCacheSim's LRU).
///
/// Complexity: `get` O(1); `set` O(1) amortized plus O(1) per eviction; `remove` O(1).
/// Memory: a node (key, cost, two 32-bit links) and 2–4 16-byte index buckets per object.
typealias LRUCache = PolicySimulator<LRUPolicy>

extension PolicySimulator where Policy == LRUPolicy {
    convenience init(capacity: Int) { self.init(capacity: capacity, policy: LRUPolicy(capacity: capacity, options: PolicyOptions(values: [:]))) }

    /// Keys from most to least recently used (tests and debugging; O(n)).
    var keysByRecency: [UInt64] { keys { $0.queue } }
}
