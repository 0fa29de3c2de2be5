import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// FIFO: evict the oldest insertion; a hit changes nothing. As libCacheSim's `FIFO.c`.
///
/// Complexity: hit O(1) (nothing to do), admit O(1), evict O(1).
struct FIFOPolicy: TailEvictingPolicy {
    typealias Meta = Void
    var queue = Nodes.Queue()

    init(capacity: Int, options: PolicyOptions) {}

    var newMeta: Void { () }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {}
}
