import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `bench plot`: charts from results CSVs, drawn by `scripts/plot.py` with matplotlib
/// in the virtual environment `scripts/bootstrap --python` makes (`.venv/`, on first use if missing); the workbench itself
/// never needs Python. The charts are drawn into a new temporary folder inside `--out`,
/// then each (a name `plot.py` may write, checked) is renamed into place, so a chart
/// appears whole or not at all, and nothing but those names is touched.
public enum PlotCharts {
    /// The charts `scripts/plot.py` can draw, without the format's extension.
    public static let charts = ["mrc", "hit_ratio", "latency", "disk", "memory", "miss_ratio_time", "similar_keys", "blob_size"]
    /// The output formats (`--format`).
    public static let formats = ["png", "pdf", "svg"]
    /// The `--style` values: `paper` is one column, serif fonts embedded (Type 42 in PDF).
    public static let styles = ["default", "paper"]
    /// The paper style's `--columns`: 1 a column wide (3.5 in), 2 both columns of the page (7.16 in).
    public static let columnCounts = 1...2
    /// `--dpi` bounds: the largest chart (30 runs of memory, 21 × 30 in) stays under ~1 GiB of pixels at 600.
    public static let dpiRange = 50...600
    /// The sidecar naming each series' colour, the same in every chart of the run.
    public static let colorsFile = "plot_colors.json"
    /// Every name `scripts/plot.py` may write.
    public static let names: Set<String> = Set(charts.flatMap { chart in formats.map { chart + "." + $0 } }).union([colorsFile])

    /// How the charts are drawn: format, resolution, style, and the series to keep (nil: all).
    public struct Look: Sendable {
        public var format = "png"
        public var dpi: Int?
        public var style = "default"
        /// The paper style's width in a page's columns (nil: one).
        public var columns: Int?
        public var only: [String]?
        /// `LOW:HIGH` for the ratio charts' y axis, checked by plot.py (one line, exit 2); nil: fitted in the paper style.
        public var ylim: String?
        public init(format: String = "png", dpi: Int? = nil, style: String = "default", columns: Int? = nil, only: [String]? = nil, ylim: String? = nil) {
            self.format = format
            self.dpi = dpi
            self.style = style
            self.columns = columns
            self.only = only
            self.ylim = ylim
        }

        /// plot.py's options; the offline bounds come from the registry.
        func options() throws -> [String] {
            guard PlotCharts.formats.contains(format) else { throw WorkbenchError("--format \(format): not a chart format; use \(PlotCharts.formats.joined(separator: ", "))") }
            guard PlotCharts.styles.contains(style) else { throw WorkbenchError("--style \(style): not a style; use \(PlotCharts.styles.joined(separator: ", "))") }
            if let dpi, !PlotCharts.dpiRange.contains(dpi) {
                throw WorkbenchError("--dpi \(dpi): outside \(PlotCharts.dpiRange.lowerBound)…\(PlotCharts.dpiRange.upperBound)")
            }
            var options = ["--format=" + format, "--style=" + style, "--bounds=" + BackendRegistry.offlineBoundNames.joined(separator: ",")]
            if let dpi { options.append("--dpi=\(dpi)") }
            if let columns {
                guard style == "paper" else { throw WorkbenchError("--columns \(columns): sizes the paper style; add --style paper") }
                guard PlotCharts.columnCounts.contains(columns) else { throw WorkbenchError("--columns \(columns): 1 (a column wide) or 2 (both columns of the page)") }
                options.append("--columns=\(columns)")
            }
            if let ylim { options.append("--ylim=" + ylim) }
            if let only {
                // Split as a --backend list is (labels keep their brackets whole).
                let names = only.flatMap(BackendListText.items).filter { !$0.isEmpty }
                guard !names.isEmpty else { throw WorkbenchError("--only: give one or more series names (backends or policies), comma-separated") }
                options.append("--only=" + names.joined(separator: ","))
            }
            return options
        }
    }

    public struct Outcome {
        public var written: [String]
        /// Charts the inputs did not allow, with the reason (plot.py's own lines).
        public var skipped: [String]
        /// What the charts drawn rest on or exceed (a paper figure wider than its column).
        public var notes: [String] = []
    }

    public static func draw(inputs: [String], timeline: String?, out: String, look: Look = Look()) throws -> Outcome {
        guard !inputs.isEmpty else { throw WorkbenchError("bench plot: give at least one CSV (results, mrc, similar-keys or blob-size)") }
        let options = try look.options()
        try PythonScript.checkReadable(inputs, timeline: timeline)
        // `bench analyze --csv` folders, given by their summary.csv, have charts of their own.
        let analysis = timeline == nil && inputs.allSatisfy(AnalysisCharts.isSummary)
        try OutputFolder.check(out, option: "--out", names: analysis ? AnalysisCharts.names : names)
        try OutputFolder.make(out, option: "--out")
        return try PythonScript.withStagingFolder(in: out) { staging in
            try moveCharts(from: staging, to: out, inputs: inputs, timeline: timeline, options: options,
                           script: analysis ? AnalysisCharts.script : "plot.py", names: analysis ? AnalysisCharts.names : names)
        }
    }

    /// Draws into `staging` and renames each chart into `out`.
    private static func moveCharts(
        from staging: String, to out: String, inputs: [String], timeline: String?, options: [String], script: String, names: Set<String>
    ) throws -> Outcome {
        let output = try PythonScript.run(script, out: staging, staging: staging, inputs: inputs, timeline: timeline, options: options, errorPrefix: "plot")
        var written: [String] = []
        for line in output.printed {
            let name = (String(line) as NSString).lastPathComponent
            guard names.contains(name), String(line) == staging + "/" + name else {
                throw WorkbenchError("scripts/\(script) named an unexpected file: \(line)")
            }
            let target = try OutputFolder.entry(name, in: out)
            guard rename(staging + "/" + name, target) == 0 else {
                throw WorkbenchError("\(target): cannot move the chart into place: \(String(cString: strerror(errno)))")
            }
            written.append(target)
        }
        let skipped = output.complaints.filter { $0.hasPrefix("plot: skipped ") }.map { String($0.dropFirst("plot: skipped ".count)) }
        let notes = output.complaints.filter { $0.hasPrefix("plot: note ") }.map { String($0.dropFirst("plot: note ".count)) }
        return Outcome(written: written, skipped: skipped, notes: notes)
    }
}
