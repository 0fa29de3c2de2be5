import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The layout of S3-FIFO's family in libCacheSim (`Clock2QPlus.c`, `S3LRU.c`, `QDLP.c`,
/// each as its `_init` sizes it): a small probationary queue of a share of the capacity, a
/// main queue of the rest, and a FIFO ghost of the ids the small queue evicted. Sizes are
/// truncated as libCacheSim's `(int64_t)cache_size * ratio`; a ghost of 0 bytes is none.
///
/// Complexity: every operation O(1) expected (a ghost look-up or record).
struct ProbationLayout {
    let smallRatio: Double
    let ghostRatio: Double
    let smallSize: Int
    let mainSize: Int
    private var ghost: GhostQueue
    private let hasGhost: Bool

    /// `smallOption` names the small queue's share (`fifo-size-ratio` for most).
    init(capacity: Int, options: PolicyOptions, smallOption: String = "fifo-size-ratio", ghostDefault: Double) throws {
        smallRatio = try options.fraction(smallOption, default: 0.10)
        ghostRatio = try options.number("ghost-size-ratio", default: ghostDefault, range: 0...16)
        smallSize = Int(Double(capacity) * smallRatio)
        mainSize = capacity - smallSize
        let ghostSize = Int(Double(capacity) * ghostRatio)
        hasGhost = ghostSize > 0
        ghost = GhostQueue(capacity: ghostSize)
    }

    func deallocate() { ghost.deallocate() }
    @inline(__always) func prefetch(_ key: UInt64) { if hasGhost { ghost.prefetch(key) } }
    @inline(__always) func prefetchEntry(_ key: UInt64) { if hasGhost { _ = ghost.prefetchNode(of: key) } }

    /// Whether `key` was in the ghost (it leaves it): a miss's ghost hit.
    @inline(__always) mutating func takeFromGhost(_ key: UInt64) -> Bool { hasGhost && ghost.remove(key) }

    /// Records an id the small queue evicted, as libCacheSim's ghost FIFO `get`s it.
    @inline(__always) mutating func recordInGhost(_ key: UInt64, cost: Int) {
        if hasGhost { ghost.recordFIFO(key, cost: cost) }
    }
}
