import WorkbenchCore
import WorkbenchMetrics
/// How `bench run` and `bench sweep` replay a HAR's runs: the mode chosen (or the default)
/// and, under `cold`, each run's requests as positions in the trace. Complexity: one read of
/// the HAR.
public struct HARRunSplit: Sendable {
    public var mode: HARRunsMode
    /// Runs the HAR holds (`HARRuns.count`), 0 when it has fewer than two.
    public var runCount: Int
    /// `cold`: the replayed runs' positions; empty under `visits` or without runs.
    public var ranges: [Range<Int>]
    /// How the runs were recognised (`HARRuns.described`).
    public var described: String

    /// nil for a trace that is not a HAR or a HAR with fewer than two runs (replayed whole, as
    /// always). `httpMode`: the HTTP replay keeps the runs as visits (its counts are not
    /// combined over runs), so an explicit `--har-runs cold` there is refused.
    public static func of(_ file: TraceFile, httpMode: Bool) throws -> HARRunSplit? {
        guard file.format.name == "har" else { return nil }
        let filter = try HARFilter(file.formatOptions)
        let reading = try HARTraceReader.read(HARTraceReader.readAll(file.path), path: file.path, filter: filter, keepKeyNames: false, skipBad: file.skipBadRows)
        guard reading.runs.count >= 2 else { return nil }
        if httpMode && filter.runs == .cold {
            throw WorkbenchError("--har-runs cold does not apply to --mode http: the HTTP replay keeps the runs as successive visits (--har-runs visits)")
        }
        let mode = filter.runs ?? (httpMode ? .visits : .cold)
        return HARRunSplit(
            mode: mode, runCount: reading.runs.count, ranges: mode == .cold ? try reading.runRanges(path: file.path, order: filter.pageOrder) : [],
            described: reading.runs.described)
    }
}
