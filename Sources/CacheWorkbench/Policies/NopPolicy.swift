import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// No cache, as libCacheSim's `nop.c` (cachesim's `nop`): its `find` and `insert` do nothing,
/// so every request is a miss and nothing is stored or evicted. A baseline: the trace's
/// requests and bytes with no cache at all.
///
/// Complexity: every operation O(1) (nothing is kept).
struct NopPolicy: SingleQueuePolicy {
    typealias Meta = Void
    var queue = Nodes.Queue()

    init(capacity: Int, options: PolicyOptions) {}

    var newMeta: Void { () }

    /// Nothing is ever stored (so nothing is ever hit or evicted).
    @inline(__always) func admits(_ cost: Int) -> Bool { false }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {}
}
