import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The notes under the table about simulated memory warnings: what they cost against the
/// same replay without them (`WarningCost`), windows that did not fit, and the sampling
/// chosen for a short trace (`ShortTraceSampling`). Every figure is a count from the two
/// replays; nothing is estimated from the timeline.
extension TableReport {
    static func warningNotes(_ results: [RunResult]) -> [String] {
        var notes: [String] = []
        if let first = results.first, let sampling = first.sampling,
           let note = sampling.note(warnings: first.memoryWarningSchedule != nil, timeline: !first.tally.timeline.isEmpty) {
            notes.append(note)
        }
        for result in results where result.memoryWarningSchedule != nil && !result.failed {
            let at = TableReport.rowLabel(result)
            guard let cost = result.warningCost else {
                if result.replayed {
                    notes.append("\(at): what the memory warnings cost was not measured (--cache-dir: the warned run changed the folder a replay without warnings would reopen)")
                }
                continue
            }
            notes.append(costSentence(cost, released: result.tally.warningReleasedBytes, at: at))
            if cost.differencesBeforeFirstWarning > 0 {
                notes.append("\(at): \(cost.differencesBeforeFirstWarning) requests were answered differently before the first warning, so the replay is not deterministic and the warnings' cost above is not theirs alone")
            }
        }
        for result in results where result.memoryWarningSchedule != nil && result.tally.memoryWarnings > 0 {
            let warnings = result.tally.warnings
            let missingBefore = warnings.filter { $0.hitRatioBefore == nil }.count
            let missingAfter = warnings.filter { $0.hitRatioAfter == nil }.count
            if missingBefore + missingAfter > 0 {
                notes.append("\(TableReport.rowLabel(result)): the \(result.warningWindow)-request window did not fit before \(missingBefore) and after \(missingAfter) of \(warnings.count) warnings (too close to the trace's start or end, or to each other); those are left out of 'hit before'/'hit after' (– when none fit); a smaller --warning-window fits more")
            }
        }
        return notes
    }

    /// One run's cost, in a sentence: unaffected, or hits lost (and for a tier, memory hits
    /// moved to disk) with the recovery.
    static func costSentence(_ cost: WarningCost, released: Int, at: String) -> String {
        let against = "the same replay without warnings (untimed)"
        if cost.warnings == 0 { return "\(at): no memory warning was delivered, so none cost anything" }
        let warnings = cost.warnings == 1 ? "1 memory warning" : "\(cost.warnings) memory warnings"
        if cost.unaffected {
            return released == 0
                ? "\(at): unaffected by \(warnings) (released nothing; every request was answered as in \(against))"
                : "\(at): \(warnings) released \(ByteCount.format(released)) but cost no hit (every request was answered as in \(against))"
        }
        let perWarning = cost.hitsLostPerWarning.map { String(format2: $0) } ?? "–"
        var text = "\(at): \(warnings) cost \(cost.hitsLost) hits (\(perWarning) per warning) against the same replay without warnings (untimed; it had \(cost.counterfactualHits) hits)"
        if cost.hitsLost < 0 { text += "; a negative cost: the room a warning freed kept objects that were asked for again" }
        if let memory = cost.memoryHitsLost, let disk = cost.diskHitsGained {
            text += "; memory hits lost \(memory): \(disk) became disk hits (read and decoded again) and \(memory - disk) misses"
        }
        if cost.differingRequests > 0, let mean = cost.meanRecoveryRequests, let longest = cost.recoveryRequests.max() {
            text += "; recovered after \(String(format2: mean)) requests on average (up to the last request answered differently from the replay without warnings; longest \(longest))"
            if cost.unrecovered > 0 {
                text += ", \(cost.unrecovered) of \(cost.warnings) still differing at the next warning or the end"
            }
        }
        return text
    }
}
