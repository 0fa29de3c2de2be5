import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// `--capacity recorded`: the app's memory cost limit a recording states
/// (`RecordedCacheConfiguration.memoryCostLimit`) as a capacity in bytes, refused (exit 2)
/// for a trace that is no recording or a recording that states none. Fuzzed with the other
/// option parsers (`scripts/fuzz options`).
///
/// Complexity: O(capacities).
public enum RecordedCapacityText {
    /// `--capacity` with each `recorded` replaced by the recording's memory cost limit in
    /// bytes, and the rule to say when it is the only capacity; the text unchanged without
    /// `recorded`.
    public static func capacities(_ text: String, configuration: RecordedCacheConfiguration?, isRecording: Bool, trace: String) throws -> (text: String, rule: String?) {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard items.contains(where: { $0.lowercased() == "recorded" }) else { return (text, nil) }
        guard isRecording else {
            throw WorkbenchError("--capacity recorded takes the app's memory cost limit from a recording; \(trace) is not a recording (docs/recording-format.md)")
        }
        guard let limit = configuration?.memoryCostLimit, limit > 0 else {
            throw WorkbenchError("--capacity recorded: \(trace) states no memory_cost_limit above 0 (neither its header's app fields nor a config event); give --capacity in bytes")
        }
        let replaced = items.map { $0.lowercased() == "recorded" ? String(limit) : $0 }
        let rule = items.count == 1 ? "the recording's memory_cost_limit, \(limit) bytes (--capacity recorded)" : nil
        return (replaced.joined(separator: ","), rule)
    }
}
