import WorkbenchSimulation
import WorkbenchReports
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// Writes `bench analyze --csv DIR`: the folder is made when missing; each table is one
/// file written whole, by the rule of every output folder (`OutputFolder`).
extension TraceAnalysis {
    /// The files `--csv DIR` writes, known before any analysis (for `OutputFolder.check`).
    public static var csvFileNames: [String] { TraceAnalysis().csvFiles(trace: "").map(\.name) }

    public func writeCSV(folder: String, trace: String) throws {
        try OutputFolder.make(folder, option: "--csv")
        for file in csvFiles(trace: trace) {
            try OutputFile.write(file.text, to: try OutputFolder.entry(file.name, in: folder))
        }
    }
}
