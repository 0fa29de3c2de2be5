import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// What the table says about a HAR's independent runs (`--har-runs`): under `cold`, that its
/// hit ratios are means over runs with their range; under `visits`, that runs the recording
/// tool loaded cold were replayed into one cache.
extension TableReport {
    /// The table's hit ratio cell: the mean over cold runs with the range, else the row's ratio.
    static func hitRatioCell(_ overall: Double?, runs: RunRatios?) -> String {
        guard let runs, let mean = runs.mean, let low = runs.min, let high = runs.max else { return percent(overall) }
        return "\(percent(mean)) (\(percent(low))–\(percent(high)))"
    }

    /// One note per trace and mode. O(rows).
    static func runsNotes(_ results: [RunResult]) -> [String] {
        var notes: [String] = []
        for result in results {
            guard let split = result.harRuns else { continue }
            let note: String
            switch split.mode {
            case .cold:
                let replayed = result.tally.runs?.count ?? 0
                note = "--har-runs cold: \(result.trace) holds \(split.described); each of the \(replayed) replayed run\(replayed == 1 ? "" : "s") started from an empty cache, so `hit ratio` and `byte hit` are the mean over runs of each run's own ratio, its range (lowest–highest run) in brackets; `requests` and the CSV's hits are totals over the runs, its object_hit_ratio is hits / requests over them all, and run_hit_ratios lists each run's; --har-runs visits replays the runs into one cache"
            case .visits:
                let how = result.mode == .http ? "--mode http (whose counts are not combined over runs: --har-runs cold does not apply)" : "--har-runs visits"
                note = "\(how): \(result.trace) holds \(split.described); they were replayed one after another into one cache, as successive visits of one user, so a hit may be a later run's request for what an earlier run loaded (the tool loaded each from an empty cache: --har-runs cold)"
            }
            if !notes.contains(note) { notes.append(note) }
        }
        return notes
    }
}
