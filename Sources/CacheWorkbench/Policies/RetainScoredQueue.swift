import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// What libCacheSim's batch-examining FIFOs (FIFO-Merge, FIFO-Reinsertion) share: one FIFO
/// queue, new objects at its head, `n-exam` objects examined and `n-keep` kept per
/// examination, scored by `RetainScore`. Each policy keeps its own `evict` and `removing`
/// (where the examination resumes differs). All members here are O(1).
protocol RetainScoredQueue: SingleQueuePolicy where Meta == RetainScore.Meta {
    var scorer: RetainScore { get set }
    var examined: Int { get }
    var kept: Int { get }
}

extension RetainScoredQueue {
    var newMeta: Meta { scorer.newMeta }
    var settings: String { "n-exam=\(examined);n-keep=\(kept);\(scorer.settings)" }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) { scorer.hit(&nodes[slot].meta) }

    @inline(__always) mutating func miss(_ key: UInt64) { scorer.miss() }
}

extension RetainScore {
    /// Positions in `ranked` by ascending score, equal scores in examination order: stable,
    /// as libCacheSim's `qsort` is on glibc (its merge sort, stdlib/msort.c).
    /// O(n log n).
    static func ascendingOrder(_ ranked: [(score: Double, slot: Int32)]) -> [Int] {
        ranked.indices.sorted { ranked[$0].score != ranked[$1].score ? ranked[$0].score < ranked[$1].score : $0 < $1 }
    }
}
