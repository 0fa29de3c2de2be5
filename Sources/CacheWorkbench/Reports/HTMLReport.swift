import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// `bench report`: one self-contained HTML page for a run or sweep, made by
/// `scripts/report.py` (configuration and trace facts, the table, the charts embedded, and
/// a reading computed from the numbers) and written by `OutputFile`'s rules.
public enum HTMLReport {
    /// Writes the page to `out` and returns where it went, for the command to say (nil when
    /// the page went to standard output, where a line would corrupt it).
    @discardableResult
    public static func write(inputs: [String], timeline: String?, out: String) throws -> String? {
        guard !inputs.isEmpty else { throw WorkbenchError("bench report: give at least one results CSV (bench run or bench sweep --csv)") }
        try PythonScript.checkReadable(inputs, timeline: timeline)
        // A report reads results and a timeline, no trace: the clash names what it read.
        try OutputFile.check(
            outputs: [("--out", out)], inputs: inputs + (timeline.map { [$0] } ?? []),
            inputName: { "\($0), one of the report's inputs (a results CSV or --timeline)" })
        let text = try PythonScript.withStagingFolder(in: FileManager.default.temporaryDirectory.path) { staging -> Data in
            let page = staging + "/report.html"
            _ = try PythonScript.run("report.py", out: page, staging: staging, inputs: inputs, timeline: timeline, errorPrefix: "plot")
            guard let text = FileManager.default.contents(atPath: page) else { throw WorkbenchError("scripts/report.py wrote no page") }
            return text
        }
        try OutputFile.write([UInt8](text), to: out)
        return OutputFile.standardOutputNames.contains(out) ? nil : "wrote \(out) (\(ByteCount.format(text.count)))"
    }
}
