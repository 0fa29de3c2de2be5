import WorkbenchSimulation
import WorkbenchReports
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The note a sweep adds when some of a backend's points resolve to the same capacity: a
/// narrow size range rounded to whole bytes (objects with `--ignore-obj-size`), or shares of
/// a working set too small to tell them apart. One rule for both: every point asked for is
/// run (the sweep has exactly `--points` per backend, whatever the trace), and the note
/// says how many distinct capacities they make, so a curve with repeated points is never a
/// surprise.
///
/// Complexity: O(rows × columns).
extension SweepRun {
    /// nil when every backend's points have distinct `capacity_bytes`; `rows` are results
    /// CSV lines.
    static func repeatedCapacitiesNote(_ rows: [String]) -> String? {
        let columns = RunResult.columnNames
        guard let backend = columns.firstIndex(of: "backend"), let variant = columns.firstIndex(of: "variant"),
              let bytes = columns.firstIndex(of: "capacity_bytes") else { return nil }
        var order: [String] = []
        var capacities: [String: [Int]] = [:]
        for row in rows {
            let fields = CSVRowText.fields(of: row)
            guard fields.count == columns.count, let value = Int(fields[bytes]) else { continue }
            let label = ResultsTable.backendLabel(backend: fields[backend], variant: fields[variant])
            if capacities[label] == nil { order.append(label) }
            capacities[label, default: []].append(value)
        }
        let repeated = order.compactMap { label -> String? in
            let values = capacities[label]!
            let counts = Dictionary(values.map { ($0, 1) }, uniquingKeysWith: +)
            guard counts.count < values.count else { return nil }
            let twice = counts.filter { $0.value > 1 }.sorted { $0.key < $1.key }
            let shown = twice.prefix(4).map { "\(ByteCount.format($0.key)) ×\($0.value)" }.joined(separator: ", ") + (twice.count > 4 ? ", …" : "")
            return "\(label): \(values.count) points asked, \(counts.count) distinct \(counts.count == 1 ? "capacity" : "capacities") (\(shown))"
        }
        guard !repeated.isEmpty else { return nil }
        return "some points resolve to the same capacity in bytes (objects with --ignore-obj-size), so their rows repeat one replay: \(repeated.prefix(3).joined(separator: "; "))\(repeated.count > 3 ? "; …" : ""); every point asked for is run — for distinct points, widen the range or ask fewer --points"
    }
}
