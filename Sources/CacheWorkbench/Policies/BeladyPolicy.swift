import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import HeapModule

/// Belady's OPT (Belady, "A study of replacement algorithms for a virtual-storage
/// computer", IBM Systems Journal 1966), as libCacheSim's `Belady.c`: evict the cached
/// object whose next request is farthest away (never requested again first). Every missed
/// object is admitted (demand fill: no bypass). It reads the future: each request's next
/// access comes from a first pass over the trace (`NextAccess`).
///
/// What it bounds: for unit sizes (`--ignore-obj-size`) it is the lowest miss count any
/// demand-fill policy can reach. With variable sizes it is a heuristic, not a bound: evicting
/// the farthest object ignores sizes, and a large object with a far next access can be worth
/// keeping less than several small ones (`pfoo-l`, `PFOOLowerBound`, bounds sizes).
///
/// Complexity: hit O(log n); admit O(log n); evict O(log n) amortized (a max-heap of next
/// accesses with stale entries skipped).
struct BeladyPolicy: VictimNamingPolicy {
    static var needsFuture: Bool { true }
    /// The object's next access.
    typealias Meta = Int64
    private let future: [Int64]
    private var position = 0
    private var pendingNext = NextAccess.never
    /// A heap entry; stale when its slot no longer holds that key with that next access.
    struct Entry: Comparable {
        var next: Int64
        var key: UInt64
        var slot: Int32
        static func < (a: Entry, b: Entry) -> Bool { a.next < b.next }
        static func == (a: Entry, b: Entry) -> Bool { a.next == b.next }
    }

    /// Cached objects by next access (farthest at the top, via `popMax`).
    private var heap = Heap<Entry>()
    /// Every cached object in admission order: the heap's entries point into it, and an
    /// impossible empty heap would still find a victim here instead of trapping.
    private var queue = Nodes.Queue()

    init(capacity: Int, options: PolicyOptions) throws {
        guard let nextAccess = options.nextAccess else { throw WorkbenchError("belady needs next-access times (a first pass over the trace)") }
        future = nextAccess.positions
    }

    var newMeta: Int64 { pendingNext }

    /// The next access of the request being handled; a trace read differently than it was
    /// measured (it cannot happen through RunPlan) counts as never again.
    @inline(__always) private mutating func advance() -> Int64 {
        defer { position += 1 }
        return position < future.count ? future[position] : NextAccess.never
    }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        nodes[slot].meta = advance()
        heap.insert(Entry(next: nodes[slot].meta, key: nodes[slot].key, slot: slot))
    }

    @inline(__always) mutating func miss(_ key: UInt64) { pendingNext = advance() }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        nodes.pushHead(slot, &queue)
        heap.insert(Entry(next: nodes[slot].meta, key: nodes[slot].key, slot: slot))
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        var victim = queue.tail
        while let top = heap.popMax() {
            if nodes.find(top.key) == top.slot && nodes[top.slot].meta == top.next {
                victim = top.slot
                break
            }
        }
        nodes.unlink(victim, &queue)
        return victim
    }

    /// The object requested furthest ahead (stale heap entries on top dropped on the way,
    /// as `evict` would), else the queue's tail.
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        while let top = heap.max {
            if nodes.find(top.key) == top.slot && nodes[top.slot].meta == top.next { return top.slot }
            heap.removeMax()
        }
        return queue.tail
    }

    /// Its heap entries go stale and are skipped when they come up.
    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) { nodes.unlink(slot, &queue) }
}
