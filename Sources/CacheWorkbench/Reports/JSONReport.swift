import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The results as JSON: the environment once, then one object per run with the CSV's
/// columns as keys (numbers as numbers, not-applicable as null).
extension JSONReport {
    public static func render(_ results: [RunResult], environment: RunEnvironment) -> String {
        var text = "{\n  \"environment\": {"
        text += "\"git_rev\": \(string(environment.gitRevision)), "
        text += "\"swift_version\": \(string(environment.swiftVersion)), "
        text += "\"allocator\": \(string(environment.allocator)), "
        text += "\"clock_overhead_ns\": \(environment.clockOverheadNanoseconds), "
        text += "\"started_at\": \(string(environment.startedAt))},\n  \"runs\": ["
        for (index, result) in results.enumerated() {
            var members = zip(RunResult.columnNames, result.cells).map { name, cell in
                "\(string(name)): \(value(cell))"
            }
            if result.memoryWarningSchedule != nil {
                let warnings = result.tally.warnings.map { event in
                    let fields: [(String, Cell)] = [
                        ("request_index", .int(event.requestIndex)), ("trace_time", .double(event.traceTime)),
                        ("released_bytes", .int(event.releasedBytes)), ("allocated_before", .from(event.allocatedBefore)),
                        ("allocated_after", .from(event.allocatedAfter)), ("hit_ratio_before", .from(event.hitRatioBefore)),
                        ("hit_ratio_after", .from(event.hitRatioAfter)),
                    ]
                    return "{" + fields.map { "\(string($0.0)): \(value($0.1))" }.joined(separator: ", ") + "}"
                }
                members.append("\"warnings\": [" + warnings.joined(separator: ", ") + "]")
            }
            text += (index == 0 ? "\n" : ",\n") + "    {" + members.joined(separator: ", ") + "}"
        }
        text += results.isEmpty ? "]\n}\n" : "\n  ]\n}\n"
        return text
    }
}
