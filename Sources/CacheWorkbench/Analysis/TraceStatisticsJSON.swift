import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// What `bench stats --json` prints: every figure of `text(label:)` as a number (shares as
/// fractions 0…1, sizes in bytes, the time span in seconds), keyed by snake_case names; a
/// HAR's session lines and notes as the text lines the table prints; an app recording's
/// counts as a `recording` object too (`AppRecordingFacts.statisticsJSON`).
extension TraceStatistics {
    public func json(trace: String, format: String) -> String {
        func string(_ text: String) -> String { JSONReport.string(text) }
        func labelled(_ list: [(label: String, value: Int)]) -> String {
            "{" + list.map { "\(string($0.label)): \($0.value)" }.joined(separator: ", ") + "}"
        }
        func number(_ value: Double) -> String { JSONReport.value(.double(value)) }
        let span = firstTime.flatMap { first in lastTime.map { number($0 - first) } } ?? "null"
        var members: [String] = [
            "\"trace\": \(string(trace))",
            "\"format\": \(string(format))",
            "\"requests\": \(requests)",
            "\"unique_keys\": \(uniqueKeys)",
            "\"bytes_requested\": \(totalBytes)",
            "\"working_set_bytes\": \(workingSetBytes)",
            "\"time_span_seconds\": \(span)",
            "\"operations\": {" + operations.sorted { $0.key < $1.key }.map { "\(string($0.key)): \($0.value)" }.joined(separator: ", ") + "}",
            "\"object_size_bytes\": \(labelled(sizePercentiles))",
            "\"one_hit_wonder_share\": \(number(oneHitWonderShare))",
            "\"re_request_share\": \(number(reuseShare))",
            "\"reuse_distance_keys\": \(labelled(reuseDistancePercentiles))",
            "\"image_dimensions\": [" + dimensions.map { "{\"dimension\": \(string($0.dimension)), \"requests\": \($0.requests)}" }.joined(separator: ", ") + "]",
            "\"requests_without_dimensions\": \(withoutDimensions)",
            "\"session_lines\": [" + sessionLines.map(string).joined(separator: ", ") + "]",
        ]
        if let runs = runCeilings {
            members.append("\"independent_runs\": {\"runs\": \(runs.runs), \"first_view_requests\": \(runs.requests), \"re_requests_within_run\": \(runs.withinRun), \"re_requests_across_runs\": \(runs.acrossRuns)}")
        }
        if let recording { members.append("\"recording\": " + recording.statisticsJSON) }
        return "{\n  " + members.joined(separator: ",\n  ") + "\n}\n"
    }
}
