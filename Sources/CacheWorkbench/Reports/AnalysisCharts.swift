import Foundation

/// `bench plot DIR/summary.csv`: the charts of a `bench analyze --csv DIR` folder, drawn by
/// `scripts/analysis_plot.py` (it reads the folder's other tables next to summary.csv).
enum AnalysisCharts {
    static let script = "analysis_plot.py"
    static let names: Set<String> = ["analysis_popularity.png", "analysis_reuse.png", "analysis_size.png", "analysis_rate.png"]

    /// An analysis summary starts with the header `figure,value` (TraceAnalysis.tables).
    /// Reads at most the first line.
    static func isSummary(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let start = (try? handle.read(upToCount: 16)) ?? Data()
        return start.starts(with: Data("figure,value\n".utf8))
    }
}
