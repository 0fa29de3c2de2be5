import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `bench plot`: PNG charts from results CSVs, drawn by `scripts/plot.py` with matplotlib
/// in the virtual environment `scripts/bootstrap --python` makes (`.venv/`, on first use if missing); the workbench itself
/// never needs Python. The charts are drawn into a new temporary folder inside `--out`,
/// then each (a name `plot.py` may write, checked) is renamed into place, so a chart
/// appears whole or not at all, and nothing but those names is touched.
public enum PlotCharts {
    /// The charts `scripts/plot.py` can write.
    public static let names: Set<String> = ["mrc.png", "hit_ratio.png", "latency.png", "disk.png", "memory.png", "similar_keys.png", "blob_size.png"]

    public struct Outcome {
        public var written: [String]
        /// Charts the inputs did not allow, with the reason (plot.py's own lines).
        public var skipped: [String]
    }

    public static func draw(inputs: [String], timeline: String?, out: String) throws -> Outcome {
        guard !inputs.isEmpty else { throw WorkbenchError("bench plot: give at least one CSV (results, mrc, similar-keys or blob-size)") }
        try PythonScript.checkReadable(inputs, timeline: timeline)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: out, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw WorkbenchError("--out \(out): exists and is not a folder") }
        } else {
            guard mkdir(out, 0o755) == 0 else { throw WorkbenchError("--out \(out): cannot make the folder: \(String(cString: strerror(errno)))") }
        }
        // `bench analyze --csv` folders, given by their summary.csv, have charts of their own.
        let analysis = timeline == nil && inputs.allSatisfy(AnalysisCharts.isSummary)
        return try PythonScript.withStagingFolder(in: out) { staging in
            try moveCharts(from: staging, to: out, inputs: inputs, timeline: timeline,
                           script: analysis ? AnalysisCharts.script : "plot.py", names: analysis ? AnalysisCharts.names : names)
        }
    }

    /// Draws into `staging` and renames each chart into `out`.
    private static func moveCharts(
        from staging: String, to out: String, inputs: [String], timeline: String?, script: String, names: Set<String>
    ) throws -> Outcome {
        let output = try PythonScript.run(script, out: staging, staging: staging, inputs: inputs, timeline: timeline, errorPrefix: "plot")
        var written: [String] = []
        for line in output.printed {
            let name = (String(line) as NSString).lastPathComponent
            guard names.contains(name), String(line) == staging + "/" + name else {
                throw WorkbenchError("scripts/\(script) named an unexpected file: \(line)")
            }
            let target = out + "/" + name
            if try OutputFile.kind(of: target) == .special { throw WorkbenchError("\(target): not a regular file; charts are not written over it") }
            guard rename(staging + "/" + name, target) == 0 else {
                throw WorkbenchError("\(target): cannot move the chart into place: \(String(cString: strerror(errno)))")
            }
            written.append(target)
        }
        let skipped = output.complaints.filter { $0.hasPrefix("plot: skipped ") }.map { String($0.dropFirst("plot: skipped ".count)) }
        return Outcome(written: written, skipped: skipped)
    }
}
