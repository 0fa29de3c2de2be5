import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// `bench plot DIR/summary.csv`: the charts of a `bench analyze --csv DIR` folder, drawn by
/// `scripts/analysis_plot.py` (it reads the folder's other tables next to summary.csv).
enum AnalysisCharts {
    static let script = "analysis_plot.py"
    static let names: Set<String> = Set(["analysis_popularity", "analysis_reuse", "analysis_size", "analysis_rate", "analysis_decay"].flatMap { chart in
        PlotCharts.formats.map { chart + "." + $0 }
    })

    /// An analysis summary starts with the header `figure,value` (TraceAnalysis.tables).
    /// Reads at most the first line.
    static func isSummary(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let start = (try? handle.read(upToCount: 16)) ?? Data()
        return start.starts(with: Data("figure,value\n".utf8))
    }
}
