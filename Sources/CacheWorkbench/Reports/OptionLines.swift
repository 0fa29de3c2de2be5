import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
extension TableReport {
    /// The widest an options line may be: the table's promise to fit a 120-column terminal.
    static let optionLineWidth = 120

    /// What each row ran with beyond its backend's defaults, one line per distinct backend
    /// label: the option flags it took (`key-hash=full`; a variant's options are in its label
    /// already) and, in the HTTP mode, every HTTP setting that is not rfc9111's default
    /// (profile, request policy, heuristic, downloads…). A line longer than
    /// `optionLineWidth` is cut with `…`: the CSV's backend_options and http_settings hold
    /// the full text. O(rows × options).
    static func optionLines(_ results: [RunResult]) -> [String] {
        let defaults = Set(HTTPReplaySettings().description.split(separator: ";").map(String.init))
        var lines: [String] = []
        for result in results {
            var parts = result.flagOptions.split(separator: ";").map(String.init)
            if let http = result.httpSettings {
                parts += http.description.split(separator: ";").map(String.init).filter { !defaults.contains($0) }
            }
            guard !parts.isEmpty else { continue }
            var line = "  \(result.backendLabel): " + parts.joined(separator: ", ")
            if line.count > optionLineWidth { line = String(line.prefix(optionLineWidth - 1)) + "…" }
            if !lines.contains(line) { lines.append(line) }
        }
        return lines
    }
}
