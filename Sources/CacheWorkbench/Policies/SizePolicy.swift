import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Size, as libCacheSim's `Size.c` (`Size_insert`, `Size_evict`): evict the largest cached
/// object (Williams et al., "Removal policies in network caches for World-Wide Web
/// documents", SIGCOMM 1996). Objects sit in libCacheSim's own priority queue
/// (`LibCacheSimPQueue`) keyed by size, so that among equal sizes the same object goes as in
/// libCacheSim (with every size 1, an order only its heap defines).
///
/// Deliberate difference: libCacheSim's hit resets the priority to the request's size;
/// the workbench keeps the stored size (DESIGN.md rule 2: a hit does not change it), which
/// is the same on every trace whose keys keep their size.
///
/// Complexity: hit O(1); admit O(log n); evict O(log n).
struct SizePolicy: VictimNamingPolicy {
    typealias Meta = Void
    private var heap = LibCacheSimPQueue()

    init(capacity: Int, options: PolicyOptions) {}

    var newMeta: Void { () }

    /// `pqueue_change_priority` to the same size moves nothing.
    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {}

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        heap.insert(slot, priority: Double(nodes[slot].cost))
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        heap.pop()!  // the simulator evicts only while an object is cached, and each is in the heap
    }

    /// The heap's top: the largest object. O(1).
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 { heap.top! }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) { heap.remove(slot) }
}
