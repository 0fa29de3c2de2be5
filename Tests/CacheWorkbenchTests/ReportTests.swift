import Foundation
import Testing
@testable import CacheWorkbench
@testable import WorkbenchReports
@testable import WorkbenchCommands
@testable import WorkbenchCore
@testable import WorkbenchMetrics
@testable import WorkbenchTraces
@testable import WorkbenchHTTP
@testable import WorkbenchBackends
@testable import WorkbenchSimulation
@testable import WorkbenchExperiments

/// Issue 11 §5: `bench report` — one self-contained HTML page whose reading is computed
/// from the numbers.
@Suite("bench report", .serialized, .onTestWorkers)
struct ReportTests {
    @Test("a sweep with the offline bound and a timed run with warnings: one page, charts embedded, the reading's sentences; a knee computed by hand")
    func page() throws {
        try #require(FileManager.default.isExecutableFile(atPath: SourceCheckout.root.path + "/.venv/bin/python"), "run scripts/bootstrap --python: it makes .venv with matplotlib")
        let folder = TemporaryFolder()
        let sweep = folder.path + "/sweep.csv"
        #expect(try bench(["sweep", "--backend", "lru,belady", "--capacity", "1MiB,2MiB,3MiB,4MiB", "--no-timing", "--csv", sweep]).status == 0)
        // The timed run on the bundled trace's first 10,000 requests: files' writes of all 50,000 took
        // most of this test's time in a debug build, and the page needs its rows, not the whole trace.
        let prefix = try DefaultTracePrefix.write(requests: 10_000, into: folder)
        #expect(try bench(["run", "--trace", prefix, "--backend", "lru,files", "--capacity", "32MiB", "--memory-warning", "every:4000",
                           "--csv", folder.path + "/run.csv", "--timeline", folder.path + "/timeline.csv"]).status == 0)
        // lru's hit ratios set by hand: 50%, 70%, 79.5%, 80% → the knee (within 1 point of 80%) is 3MiB.
        var lines = try String(contentsOfFile: sweep, encoding: .utf8).split(separator: "\n").map { CSVRowText.fields(of: String($0)) }
        let column = try #require(lines[0].firstIndex(of: "object_hit_ratio"))
        for (row, ratio) in zip(1...4, ["0.5", "0.7", "0.795", "0.8"]) { lines[row][column] = ratio }
        try (lines.map { $0.map(CSVReport.escape).joined(separator: ",") }.joined(separator: "\n") + "\n").write(toFile: sweep, atomically: true, encoding: .utf8)
        let out = folder.path + "/report.html"
        let result = try bench(["report", sweep, folder.path + "/run.csv", "--timeline", folder.path + "/timeline.csv", "--out", out])
        #expect(result.status == 0, "\(result.err)")
        let page = try String(contentsOfFile: out, encoding: .utf8)
        #expect(result.out == "wrote \(out) (\(ByteCount.format(page.utf8.count)))\n")  // says where it wrote
        #expect(page.hasPrefix("<!doctype html>") && page.hasSuffix("</html>\n"))
        #expect(page.components(separatedBy: "src='data:image/png;base64,").count - 1 >= 4)  // mrc, bars, latency, disk, memory
        #expect(!page.contains("src='http") && !page.contains("<script"))  // self-contained
        // Every row now carries compulsory_misses, so the knee names the trace's ceiling after the plateau.
        #expect(page.contains("lru: 3MiB (79.50%, plateau 80.00%, ceiling "))
        #expect(page.contains("Distance from Belady"))
        #expect(page.contains("files at 32MiB writes"))
        // Issue 21 §4: the warnings' cost comes from the counterfactual columns (or is "not measured"), never the timeline's gap;
        // lru (memory) and files (disk) are not compared, and belady is a bound: no "best" here.
        #expect(page.contains("memory warnings: what they cost in hits was not measured") || page.contains("the same replay without warnings"))
        #expect(!page.contains("cost about") && !page.contains("has the best hit ratio"))
    }

    @Test("CLI: inputs that are not results are one line and exit 2; an existing page is replaced whole")
    func refusals() throws {
        try #require(FileManager.default.isExecutableFile(atPath: SourceCheckout.root.path + "/.venv/bin/python"), "run scripts/bootstrap --python: it makes .venv with matplotlib")
        let folder = TemporaryFolder()
        let timeline = folder.path + "/t.csv"
        #expect(try bench(["run", "--backend", "lru", "--capacity", "8MiB", "--timeline", timeline, "--csv", folder.path + "/r.csv"]).status == 0)
        let wrong = try bench(["report", timeline, "--out", folder.path + "/x.html"])
        #expect(wrong.status == 2 && wrong.err == "bench: error: \(timeline): bench report takes `bench run` or `bench sweep` results CSVs\n")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/x.html"))
        let old = folder.file("old.html", "old")
        #expect(try bench(["report", folder.path + "/r.csv", "--out", old]).status == 0)
        #expect(try String(contentsOfFile: old, encoding: .utf8).contains("Cache workbench report"))
        let same = try bench(["report", folder.path + "/r.csv", "--out", folder.path + "/r.csv"])
        #expect(same.status == 2)
    }
}
