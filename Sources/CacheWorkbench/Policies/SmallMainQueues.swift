import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The metadata of an object in a small-and-main policy: which queue holds it.
protocol SmallMainMeta {
    var inMain: Bool { get }
}

/// A policy with a small FIFO S, a main queue M and a ghost of the ids S evicted
/// (`ProbationLayout`): S3-FIFO, S3-LRU, Clock2Q+. Removal and the taking of a named victim
/// are the same for all of them; their searches differ.
///
/// Complexity: each operation O(1) (a ghost insertion is O(1) expected).
protocol SmallMainPolicy: EvictionPolicy where Meta: SmallMainMeta {
    var small: Nodes.Queue { get set }
    var main: Nodes.Queue { get set }
    var layout: ProbationLayout { get set }
}

extension SmallMainPolicy {
    /// Takes a victim the search named: from M, or from S with its id recorded in the ghost.
    @inline(__always) mutating func takeNamed(_ victim: Int32, _ nodes: inout Nodes) -> Int32 {
        if nodes[victim].meta.inMain {
            nodes.unlink(victim, &main)
        } else {
            nodes.unlink(victim, &small)
            layout.recordInGhost(nodes[victim].key, cost: nodes[victim].cost)
        }
        return victim
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta.inMain { nodes.unlink(slot, &main) } else { nodes.unlink(slot, &small) }
    }
}
