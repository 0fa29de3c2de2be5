import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import HeapModule

/// GreedyDual-Size-Frequency (Cherkasova, "Improving WWW proxies performance with
/// Greedy-Dual-Size-Frequency caching policy", HP Labs 1998), as libCacheSim's `GDSF.cpp`:
/// an object's priority is L + frequency × 10^6 / size, computed in doubles when it is
/// admitted (frequency 1) or hit; L is the priority of the last eviction. Eviction takes the
/// lowest priority, the earliest-updated among equals. Size-aware: small, often requested
/// objects stay.
///
/// Complexity: hit O(log n); admit O(log n); evict O(log n) amortized (a min-heap with an
/// entry per update; stale entries are skipped, and the heap is rebuilt when they
/// outnumber the live ones).
struct GDSFPolicy: VictimNamingPolicy {
    struct Meta {
        var frequency: Int
        /// The request of the object's last update: its heap entry's tie-break and the
        /// mark that tells the live entry from stale ones.
        var stamp: Int
    }

    struct Entry: Comparable {
        var priority: Double
        var stamp: Int
        var slot: Int32

        static func < (a: Entry, b: Entry) -> Bool { a.priority != b.priority ? a.priority < b.priority : a.stamp < b.stamp }
        static func == (a: Entry, b: Entry) -> Bool { a.priority == b.priority && a.stamp == b.stamp }
    }

    private var heap = Heap<Entry>()
    /// L: the priority of the last eviction.
    private var inflation = 0.0
    /// libCacheSim's `n_req`: every request counts, hit or miss.
    private var requests = 0
    private var live = 0

    init(capacity: Int, options: PolicyOptions) {}

    var newMeta: Meta { Meta(frequency: 1, stamp: requests) }

    @inline(__always) private mutating func push(_ slot: Int32, _ nodes: inout Nodes) {
        let node = nodes[slot]
        // The same operations in the same order as libCacheSim's, so the doubles are equal.
        let priority = inflation + Double(node.meta.frequency) * 1.0e6 / Double(node.cost)
        heap.insert(Entry(priority: priority, stamp: node.meta.stamp, slot: slot))
        if heap.count > 2 * live + 1024 {
            heap = Heap(heap.unordered.filter { nodes[$0.slot].meta.stamp == $0.stamp })
        }
    }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        requests += 1
        nodes[slot].meta.frequency += 1
        nodes[slot].meta.stamp = requests
        push(slot, &nodes)
    }

    @inline(__always) mutating func miss(_ key: UInt64) { requests += 1 }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        live += 1
        push(slot, &nodes)
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        while let lowest = heap.popMin() {
            guard nodes[lowest.slot].meta.stamp == lowest.stamp else { continue }
            inflation = lowest.priority
            nodes[lowest.slot].meta.stamp = -1
            live -= 1
            return lowest.slot
        }
        return -1  // unreachable: every cached object has a live entry
    }

    /// The lowest live priority; stale entries above it are dropped on the way (as `evict`
    /// would skip them). O(log n) per dropped entry.
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        while let lowest = heap.min, nodes[lowest.slot].meta.stamp != lowest.stamp { _ = heap.popMin() }
        return heap.min!.slot  // every cached object has a live entry
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        nodes[slot].meta.stamp = -1
        live -= 1
    }
}
