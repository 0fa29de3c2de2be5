import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `bench report`: one self-contained HTML page for a run or sweep, made by
/// `scripts/report.py` (configuration and trace facts, the table, the charts embedded, and
/// a reading computed from the numbers) and written by `OutputFile`'s rules.
public enum HTMLReport {
    public static func write(inputs: [String], timeline: String?, out: String) throws {
        guard !inputs.isEmpty else { throw WorkbenchError("bench report: give at least one results CSV (bench run or bench sweep --csv)") }
        let all = inputs + (timeline.map { [$0] } ?? [])
        for input in all where !FileManager.default.isReadableFile(atPath: input) { throw WorkbenchError("\(input): cannot read it") }
        try OutputFile.check(outputs: [("--out", out)], inputs: all)
        var template = Array((FileManager.default.temporaryDirectory.path + "/cwb-report-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw WorkbenchError("cannot make a temporary folder: \(String(cString: strerror(errno)))")
        }
        let staging = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: staging) }  // a folder this call made
        let page = staging + "/report.html"
        _ = try PythonScript.run("report.py", ["--out", page] + (timeline.map { ["--timeline", $0] } ?? []) + inputs, errorPrefix: "plot")
        guard let text = FileManager.default.contents(atPath: page) else { throw WorkbenchError("scripts/report.py wrote no page") }
        try OutputFile.write([UInt8](text), to: out)
    }
}
