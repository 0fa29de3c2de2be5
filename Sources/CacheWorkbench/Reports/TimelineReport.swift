import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The `--timeline` CSV: one row per memory sample (every `--sample-every` requests) and
/// per memory warning, for every run, to plot memory and hit ratio over the replay.
public enum TimelineReport {
    public static let columnNames = [
        "run_id", "backend", "capacity_bytes", "request_index", "trace_time", "accounted_bytes",
        "allocated_bytes", "rss_bytes", "window_hit_ratio", "memory_warning", "warning_released_bytes",
    ]

    public static func render(_ results: [RunResult]) -> String {
        var text = columnNames.joined(separator: ",") + "\n"
        for result in results {
            for sample in result.tally.timeline {
                let cells: [Cell] = [
                    .text(result.runID), .text(result.backendLabel), .int(result.capacityBytes), .int(sample.requestIndex),
                    .double(sample.traceTime), .int(sample.accountedBytes), .from(sample.allocatedBytes),
                    .from(sample.residentBytes), .from(sample.windowHitRatio),
                    .int(sample.warningReleasedBytes == nil ? 0 : 1), .from(sample.warningReleasedBytes),
                ]
                text += cells.map(CSVReport.field).joined(separator: ",") + "\n"
            }
        }
        return text
    }
}
