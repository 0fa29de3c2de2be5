import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// What simulated memory warnings cost a run, measured against a counterfactual: the same
/// replay (same trace, backend, capacity, options and seed) without warnings, made untimed
/// right after the warned one (`RunPlan`). Both replays are deterministic, so every
/// difference between them is the warnings' doing; the two are compared request by request
/// (`OutcomeBits`).
///
/// - `hitsLost` = counterfactual hits − warned hits. It can be negative in principle: a
///   warning frees room, and a policy that would have evicted an object about to be
///   re-requested may keep it instead. It is reported as measured, never clamped.
/// - For a two-tier cache, `memoryHitsLost` = counterfactual memory hits − warned memory
///   hits, and `diskHitsGained` = warned disk hits − counterfactual disk hits: memory hits
///   that became disk hits (a disk read and a decode again) rather than misses. Since
///   hits = memory + disk hits, memoryHitsLost = diskHitsGained + hitsLost exactly.
/// - Recovery of warning k (delivered before request w_k; the next at w_{k+1}, or the end):
///   the requests from w_k up to and including the last one before w_{k+1} whose outcome
///   (hit or miss) differs from the counterfactual's, or 0 when none does. After that
///   request the warned run answers every request as the run without warnings did, until
///   the next warning. A warning whose last difference is the last request before the next
///   warning (or the end) was not seen to recover: `unrecovered` counts those. Recovery is
///   over hits and misses: a tier's memory hit that became a disk hit is counted in
///   `memoryHitsLost`, not here (the replayer sees a hit, not which tier answered it).
public struct WarningCost: Sendable, Equatable {
    public var warnings: Int
    public var hitsLost: Int
    /// Counterfactual hits, to put `hitsLost` in proportion.
    public var counterfactualHits: Int
    /// Two-tier caches only (nil otherwise).
    public var memoryHitsLost: Int?
    public var diskHitsGained: Int?
    /// Per delivered warning, in order (see the type's comment).
    public var recoveryRequests: [Int]
    /// Warnings still differing from the counterfactual on the last request before the next one.
    public var unrecovered: Int
    /// Requests whose outcome differed before the first warning: 0 for a deterministic
    /// backend; anything else means the replays are not comparable and is said.
    public var differencesBeforeFirstWarning: Int
    /// Requests whose outcome differed at all (each side counted).
    public var differingRequests: Int

    /// The warned run answered every request as the run without warnings and, for a tier,
    /// from the same tiers as often: unaffected.
    public var unaffected: Bool { differingRequests == 0 && (memoryHitsLost ?? 0) == 0 && (diskHitsGained ?? 0) == 0 }

    public var hitsLostPerWarning: Double? { warnings > 0 ? Double(hitsLost) / Double(warnings) : nil }
    public var meanRecoveryRequests: Double? {
        recoveryRequests.isEmpty ? nil : Double(recoveryRequests.reduce(0, +)) / Double(recoveryRequests.count)
    }

    /// Compares a warned replay with its counterfactual; both must have kept their outcomes
    /// over the same requests. O(requests / 64) for the recovery scan, O(requests) for the count.
    public init(warned: ReplayTally, counterfactual: ReplayTally) {
        warnings = warned.warnings.count
        hitsLost = counterfactual.hits - warned.hits
        counterfactualHits = counterfactual.hits
        if let mine = warned.tiers, let theirs = counterfactual.tiers {
            memoryHitsLost = theirs.memoryHits - mine.memoryHits
            diskHitsGained = mine.diskHits - theirs.diskHits
        }
        let a = warned.outcomes, b = counterfactual.outcomes
        let total = min(a.count, b.count)
        let starts = warned.warnings.map(\.requestIndex)
        var recovery: [Int] = []
        var unrecovered = 0
        for (k, start) in starts.enumerated() {
            let end = k + 1 < starts.count ? starts[k + 1] : total
            guard start < end else { recovery.append(0); continue }  // two warnings before one request
            if let last = a.lastDifference(from: b, in: start..<end) {
                recovery.append(last - start + 1)
                if last == end - 1 { unrecovered += 1 }
            } else {
                recovery.append(0)
            }
        }
        recoveryRequests = recovery
        self.unrecovered = unrecovered
        var before = 0, differing = 0
        let first = starts.first ?? total
        for index in 0..<total where a[index] != b[index] {
            differing += 1
            if index < first { before += 1 }
        }
        differencesBeforeFirstWarning = before
        differingRequests = differing + abs(a.count - b.count)
    }
}
