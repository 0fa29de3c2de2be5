import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// What a command says on stderr about its trace's facts (`TraceFacts.obtain`): that the
/// checksum and working set were taken from the cache, and of when, since the command then
/// rests on an earlier read of the file (no silent assumption); or why the cache could not
/// keep them. Nothing when they were read now and kept. O(1).
public enum TraceFactsNote {
    public static func lines(_ obtained: (facts: TraceFacts, fromCache: Date?, cacheProblem: String?), trace: String) -> [String] {
        var lines: [String] = []
        if let date = obtained.fromCache {
            let formatter = ISO8601DateFormatter()
            lines.append("\(trace)'s checksum and working set from the trace facts cache of \(formatter.string(from: date)) (the file unchanged since: same inode, size, mtime and ctime)")
        }
        if let problem = obtained.cacheProblem { lines.append(problem) }
        return lines
    }

    /// The note of a command that takes the facts from a sweep plan (`PlannedTraceFacts`):
    /// what it rests on until its read ends, and that the read checks them.
    public static func fromPlan(_ facts: TraceFacts, trace: String) -> String {
        "\(trace)'s checksum and working set from the plan (computed \(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: facts.computed))), the file of the same size): checked against this command's own read of it when that ends, and no row is made if they differ"
    }
}
