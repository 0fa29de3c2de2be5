import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
extension TableReport {
    /// How each device-relative capacity was found (`--device`): a preset's own memory
    /// limit on the device and its rule, or a `ram:P%` share resolved to bytes. One line per
    /// distinct rule, naming the rows it covers. O(rows).
    static func deviceNotes(_ results: [RunResult]) -> [String] {
        var distinct: [String] = []
        var rowsOf: [String: [String]] = [:]
        for result in results {
            guard let rule = result.capacityRule else { continue }
            if rowsOf[rule] == nil { distinct.append(rule) }
            rowsOf[rule, default: []].append(result.backendLabel)
        }
        return distinct.map { rule in
            let rows = rowsOf[rule]!
            return "\(rule) — \(rows.count == 1 ? "row" : "rows") \(rows.joined(separator: ", "))"
        }
    }
}
