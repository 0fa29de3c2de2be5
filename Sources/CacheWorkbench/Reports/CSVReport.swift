import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The results CSV: DESIGN.md's columns, one row per run. Empty cell = not applicable.
/// Each text cell goes through `escape` (CSVCellEscaping.swift).
extension CSVReport {
    public static func render(_ results: [RunResult]) -> String {
        var text = RunResult.columnNames.joined(separator: ",") + "\n"
        for result in results {
            text += result.cells.map(field).joined(separator: ",") + "\n"
        }
        return text
    }
}
