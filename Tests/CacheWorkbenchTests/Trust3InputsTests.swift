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

/// Issue 41, items 2.3, 1.3, 1.4, 2.4, 4.1, 5.1 and 6 (merge --against): bounded lines,
/// counted conversion losses, analysis of time that goes backwards, one rule for output
/// folders, neutralized CSV cells everywhere, pure machine output, and nothing written
/// before a bad --against is refused. Expected figures are hand counts in the comments.
private func refusedOnce(_ run: (status: Int32, out: String, err: String)) -> Bool {
    run.status == 2 && run.err.hasPrefix("bench: error: ") && run.err.filter { $0 == "\n" }.count == 1
}

/// Runs `command` through `sh -c` in `folder` (to make compressed inputs).
private func shell(_ command: String, in folder: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    process.currentDirectoryURL = URL(fileURLWithPath: folder)
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(command)")
}

private var benchPath: String {
    URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "")
        .deletingLastPathComponent().appendingPathComponent("bench").path
}

/// A three-request trace `t.csv` in `folder`, a sweep plan `p.json` of lru at 1 and 2
/// bytes over it, and its one shard run (`p.shard-0-of-1.csv`).
private func plannedShard(_ folder: TemporaryFolder) throws {
    folder.file("t.csv", "time,key,size\n0,a,1\n1,b,1\n2,a,1\n")
    let plan = try bench(["sweep", "--trace", "t.csv", "--backend", "lru", "--capacity", "1,2", "--no-timing", "--plan", "p.json"], in: folder.path)
    #expect(plan.status == 0, "\(plan.err)")
    let shard = try bench(["sweep", "--plan", "p.json", "--shard", "0/1"], in: folder.path)
    #expect(shard.status == 0, "\(shard.err)")
}

/// Every cell of a CSV text, split as RFC 4180.
private func cells(_ text: String) -> [[String]] {
    text.split(separator: "\n").map { CSVRowText.fields(of: String($0)) }
}

/// Whether a spreadsheet would run `cell` as a formula (OWASP's starts; a number is data).
private func isFormula(_ cell: String) -> Bool {
    guard let first = cell.unicodeScalars.first else { return false }
    return ["=", "+", "-", "@", "\t", "\r"].contains(first) && Double(cell) == nil
}

@Suite("Trust3Inputs line limit", .onTestWorkers)
struct Trust3InputsLineLimitTests {
    /// A reader of `text` in `format` under a limit, read to the end.
    private func read(_ text: String, format: String, limit: Int, name: String = "t.txt") throws -> [Request] {
        let folder = TemporaryFolder()
        let path = folder.file(name, text)
        let trace = try TraceFile(path: path, format: TraceFormat.named(format), formatOptions: ["max-line-bytes": String(limit)])
        return try InMemoryTrace.load(trace, keepKeyNames: true).requests
    }

    @Test("2.3: a line of exactly N bytes is read; N + 1 bytes is FILE:LINE: line longer than N bytes (CSV and a line format)")
    func exactBoundary() throws {
        // "0,abcdef,1" is 10 bytes; "1,abcdefg,1" is 11.
        #expect(try read("0,abcdef,1\n", format: "csv", limit: 10).count == 1)
        do {
            _ = try read("0,abcdef,1\n1,abcdefg,1\n", format: "csv", limit: 10)
            Issue.record("an 11-byte line under a 10-byte limit was read")
        } catch let error as TraceError {
            #expect(error.line == 2 && error.reason == "line longer than 10 bytes (no line end within them; --max-line-bytes raises the limit)", "\(error)")
        }
        // webcachesim "time id size": "1 22 333" is 8 bytes, "1 22 3333" 9; the last line without a line end.
        #expect(try read("1 22 333\n", format: "webcachesim", limit: 8).count == 1)
        do {
            _ = try read("1 22 333\n1 22 3333", format: "webcachesim", limit: 8)
            Issue.record("a 9-byte line under an 8-byte limit was read")
        } catch let error as TraceError {
            #expect(error.line == 2 && error.reason.hasPrefix("line longer than 8 bytes"))
        }
        // A quoted CSV row counts its inner line break: "0,\"a\nb\",1" is 9 bytes.
        #expect(try read("0,\"a\nb\",1\n", format: "csv", limit: 9).count == 1)
        #expect(throws: TraceError.self) { _ = try read("0,\"a\nb\",1\n", format: "csv", limit: 8) }
    }

    @Test("2.3: a 20 MB line in a .gz stops at the default 16 MiB limit naming its line, under --skip-bad too; --max-line-bytes 32MiB reads on")
    func gzipLongLine() throws {
        let folder = TemporaryFolder()
        // Line 1 the header, line 2 a row, line 3: 20,000,000 bytes of 'a' with no line end.
        folder.file("head.csv", "time,key,size\n0,k,1\n")
        try shell("(cat head.csv; head -c 20000000 /dev/zero | tr '\\0' a) | gzip -1 > big.csv.gz", in: folder.path)
        for extra in [[], ["--skip-bad"]] {
            let stats = try runBounded(60, benchPath, ["stats", "big.csv.gz"] + extra, in: folder.path)
            #expect(refusedOnce(stats), "\(stats)")
            #expect(stats.err.hasPrefix("bench: error: big.csv.gz:3: line longer than 16777216 bytes"), "\(stats.err)")
        }
        // Raised past the line, the line is read, and is a bad row (one field, not three).
        let raised = try runBounded(60, benchPath, ["stats", "big.csv.gz", "--max-line-bytes", "32MiB"], in: folder.path)
        #expect(raised.status == 2 && raised.err.contains("big.csv.gz:3: ") && !raised.err.contains("line longer"), "\(raised.err)")
    }

    @Test("2.3: a .zst with NULs after three valid rows stops at line 5 (header, three rows, then the NULs)")
    func zstdNuls() throws {
        let folder = TemporaryFolder()
        folder.file("head.csv", "time,key,size\n0,a,1\n1,b,1\n2,c,1\n")
        try shell("(cat head.csv; head -c 20000000 /dev/zero) | zstd -q -1 -o nul.csv.zst", in: folder.path)
        let run = try runBounded(60, benchPath, ["run", "--trace", "nul.csv.zst", "--backend", "lru", "--capacity", "10", "--no-timing"], in: folder.path)
        #expect(refusedOnce(run), "\(run)")
        #expect(run.err.hasPrefix("bench: error: nul.csv.zst:5: line longer than 16777216 bytes"), "\(run.err)")
    }

    @Test("2.3: --max-line-bytes: a bad value and a format not read by lines are refused")
    func optionChecks() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", "time,key,size\n0,a,1\n")
        let zero = try bench(["stats", trace, "--max-line-bytes", "0"])
        #expect(refusedOnce(zero) && zero.err.contains("--max-line-bytes takes a size from 1 byte to 1TiB"), "\(zero.err)")
        let binary = folder.bytes("t.oracleGeneral.bin", [UInt8](repeating: 0, count: 24))
        let refused = try bench(["stats", binary, "--max-line-bytes", "4MiB"])
        #expect(refusedOnce(refused) && refused.err.contains("--max-line-bytes applies to text formats read line by line"), "\(refused.err)")
        let fine = try bench(["stats", trace, "--max-line-bytes", "64"])
        #expect(fine.status == 0, "\(fine.err)")
    }

    @Test("2.3 bounded input: 400 seeded CSVs under limits 1–40 fail with line longer than N exactly when a line exceeds N")
    func boundedInputs() throws {
        var random = SeededRandom(seed: 41)
        let folder = TemporaryFolder()
        let alphabet = Array("0123456789,ab\n\n\n\r")
        var readWhole = 0, refusedLong = 0
        for round in 0..<400 {
            let length = Int(random.next() % 120)
            let text = String((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            let limit = 1 + Int(random.next() % 40)
            // The oracle: the longest run of bytes before a line feed (a carriage return counts).
            let longest = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map(\.count).max() ?? 0
            let path = folder.file("r\(round).csv", text)
            let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map(\.count)
            do {
                let reader = try CSVTraceReader(path: path, options: ReadOptions(skipBadRows: true, maxLineBytes: limit))
                while try reader.nextChunk() != nil {}
                #expect(longest <= limit, "round \(round): a \(longest)-byte line read under a \(limit)-byte limit")
                readWhole += 1
            } catch let error as TraceError {
                // Any error at line L (a bad header is not skippable) means lines before L were
                // within the limit; line L itself is over it exactly when the error says so.
                let line = try #require(error.line)
                #expect(lines.prefix(line - 1).allSatisfy { $0 <= limit }, "round \(round): \(error)")
                #expect(error.reason.hasPrefix("line longer than \(limit) bytes") == (lines[line - 1] > limit), "round \(round): \(error)")
                if error.reason.hasPrefix("line longer") { refusedLong += 1 }
            }
        }
        // Both outcomes were exercised (not a test that passes with no input of one kind).
        #expect(readWhole >= 5 && refusedLong >= 20, "\(readWhole) read, \(refusedLong) refused as too long")
    }
}

@Suite("Trust3Inputs convert losses", .onTestWorkers)
struct Trust3InputsConvertTests {
    /// Row 1: fractional time, integer key. Row 2: text key, dimensions, set. Row 3:
    /// fractional time, text key, delete. Row 4: integer key, dimensions, get.
    static let mixed = "time,key,size,width,height,op\n0.5,10,100,,,get\n1,img/a,200,640,480,set\n2.25,img/b,300,,,delete\n3,42,400,10,20,get\n"

    @Test("1.3: convert to oracleGeneral, lcs and csv names every loss with its hand count, and only the real ones")
    func lossesPerTarget() throws {
        let folder = TemporaryFolder()
        folder.file("frac.csv", Self.mixed)
        let oracle = try bench(["convert", "frac.csv", "out.oracleGeneral"], in: folder.path)
        #expect(oracle.status == 0, "\(oracle.err)")
        // 2 fractional times (rows 1, 3); 2 text keys (rows 2, 3); 2 with dimensions (2, 4); 2 ops not get (2, 3).
        #expect(oracle.out == "frac.csv → out.oracleGeneral (oracle-general): 4 requests, 2 times cut to whole seconds, "
            + "2 keys' text replaced by its 64-bit digest (the target holds integer ids), "
            + "2 requests' width×height dropped (the target has no such fields), "
            + "2 set/delete ops dropped (oracleGeneral has no op: read back as gets)\n", "\(oracle.out)")
        let lcs = try bench(["convert", "frac.csv", "out.lcs"], in: folder.path)
        // lcs keeps the op: the same without it.
        #expect(lcs.out == "frac.csv → out.lcs (lcs): 4 requests, 2 times cut to whole seconds, "
            + "2 keys' text replaced by its 64-bit digest (the target holds integer ids), "
            + "2 requests' width×height dropped (the target has no such fields)\n", "\(lcs.out)")
        let csv = try bench(["convert", "frac.csv", "out.csv"], in: folder.path)
        #expect(csv.out == "frac.csv → out.csv (csv): 4 requests\n", "\(csv.out)")
        // A trace without loss says nothing more: integer keys, whole times, gets.
        folder.file("whole.csv", "time,key,size\n0,1,5\n1,2,5\n")
        let whole = try bench(["convert", "whole.csv", "w.oracleGeneral"], in: folder.path)
        #expect(whole.out == "whole.csv → w.oracleGeneral (oracle-general): 2 requests\n", "\(whole.out)")
    }

    @Test("1.3: a HAR converted to CSV says every entry's HTTP facts were dropped (count = the HAR's entries)")
    func harFactsDropped() throws {
        let folder = TemporaryFolder()
        let gen = try bench(["gen", "--format", "har", "--requests", "12", "--out", "s.har"], in: folder.path)
        #expect(gen.status == 0, "\(gen.err)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.path + "/s.har"))) as? [String: Any]
        let entries = ((json?["log"] as? [String: Any])?["entries"] as? [Any])?.count ?? -1
        let convert = try bench(["convert", "s.har", "s.csv"], in: folder.path)
        #expect(convert.status == 0, "\(convert.err)")
        #expect(convert.out.contains(": \(entries) requests, \(entries) requests' HTTP facts (status, caching headers, timings) dropped"), "\(entries) \(convert.out)")
    }

    @Test("1.3: what a target cannot hold is refused, not cut: a negative time to lcs and oracleGeneral")
    func refusedNotCut() throws {
        let folder = TemporaryFolder()
        folder.file("neg.csv", "time,key,size\n-1,1,5\n")
        for out in ["n.lcs", "n.oracleGeneral"] {
            let run = try bench(["convert", "neg.csv", out], in: folder.path)
            #expect(refusedOnce(run) && run.err.contains("request 1: time -1.0 does not fit"), "\(run.err)")
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/" + out))
        }
    }
}

@Suite("Trust3Inputs analyze time order", .onTestWorkers)
struct Trust3InputsAnalyzeTests {
    @Test("1.4: time 500, 1000, 0: span 1000 s, backwards at 1 row, reuse time clamped to 0, 3 complete 300 s windows")
    func backwards() throws {
        let folder = TemporaryFolder()
        folder.file("b.csv", "time,key,size\n500,A,1\n1000,B,1\n0,A,1\n")
        let run = try bench(["analyze", "b.csv", "--csv", "out"], in: folder.path)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("time span             1000 s\n"), "\(run.out)")
        #expect(run.out.contains("goes backwards at 1 of 3 requests"), "\(run.out)")
        // From the earliest time: 500 closes window 0 (holding it), 1000 closes [300,600) and
        // [600,900); the 0 lands in [900,1200), unfinished. Rates 1, 1, 0 per 300 s.
        #expect(run.out.contains("request rate          min 0.0000, max 0.0033 req/s over 3 complete 300 s windows"), "\(run.out)")
        let summary = Dictionary(uniqueKeysWithValues: try csvRows(folder.path + "/out/summary.csv").map { ($0["figure"]!, $0["value"]!) })
        #expect(summary["time_span_seconds"] == "1000" && summary["time_backwards_rows"] == "1" && summary["reuse_times_clamped"] == "1")
        // A's re-request at 0 after 500: reuse time 0, bin 0; nothing negative anywhere.
        let reuse = try csvRows(folder.path + "/out/reuse_time.csv")
        #expect(reuse.count == 1 && reuse[0]["bin"] == "0" && reuse[0]["requests"] == "1", "\(reuse)")
        let rate = try csvRows(folder.path + "/out/rate.csv")
        #expect(rate.map { $0["start_seconds"]! } == ["0", "300", "600", "900"] && rate.map { $0["requests"]! } == ["1", "1", "0", "1"], "\(rate)")
    }

    @Test("1.4: an ordered trace says nothing about time order and keeps its figures")
    func ordered() throws {
        let analysis = try TraceAnalysis.compute(requests: [Request(time: 10, id: 1, size: 1), Request(time: 20, id: 1, size: 1)])
        #expect(analysis.timeBackwardsRows == 0 && analysis.reuseTimesClamped == 0 && analysis.endTime == 10 && analysis.startTime == 10)
        #expect(!analysis.text(label: "t").contains("time order"))
    }
}

@Suite("Trust3Inputs output folders", .onTestWorkers)
struct Trust3InputsOutputFolderTests {
    /// Every command that writes files into a folder: analyze --csv DIR and plot --out DIR.
    @Test("2.4: a FIFO planted at a name a folder-writing command writes is refused at once, and nothing is written", arguments: ["summary.csv", "size.csv"])
    func fifoInAnalyzeFolder(name: String) throws {
        let folder = TemporaryFolder()
        folder.file("t.csv", "time,key,size\n0,a,1\n1,a,1\n")
        try FileManager.default.createDirectory(atPath: folder.path + "/out", withIntermediateDirectories: false)
        #expect(mkfifo(folder.path + "/out/" + name, 0o644) == 0)
        let run = try runBounded(20, benchPath, ["analyze", "t.csv", "--csv", "out"], in: folder.path)
        #expect(refusedOnce(run) && run.err.contains("out/\(name): not a regular file (a FIFO, device or socket)"), "\(run)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/out") == [name])
    }

    @Test("2.4: plot --out refuses the same FIFO by the same rule, before drawing")
    func fifoInPlotFolder() throws {
        let folder = TemporaryFolder()
        folder.file("t.csv", "time,key,size\n0,a,1\n1,a,1\n")
        let made = try bench(["analyze", "t.csv", "--csv", "a"], in: folder.path)
        #expect(made.status == 0, "\(made.err)")
        try FileManager.default.createDirectory(atPath: folder.path + "/charts", withIntermediateDirectories: false)
        for name in AnalysisCharts.names.sorted() { #expect(mkfifo(folder.path + "/charts/" + name, 0o644) == 0) }
        let plot = try runBounded(20, benchPath, ["plot", "a/summary.csv", "--out", "charts"], in: folder.path)
        #expect(refusedOnce(plot) && plot.err.contains(": not a regular file (a FIFO, device or socket)"), "\(plot)")
    }

    @Test("2.4: sweep --plan --shard's default results file beside the plan follows the rule: a FIFO there is refused at once")
    func fifoShardResults() throws {
        let folder = TemporaryFolder()
        folder.file("t.csv", "time,key,size\n0,a,1\n1,a,1\n")
        let plan = try bench(["sweep", "--trace", "t.csv", "--backend", "lru", "--capacity", "1,2", "--no-timing", "--plan", "p.json"], in: folder.path)
        #expect(plan.status == 0, "\(plan.err)")
        #expect(mkfifo(folder.path + "/p.shard-0-of-1.csv", 0o644) == 0)
        let run = try runBounded(20, benchPath, ["sweep", "--plan", "p.json", "--shard", "0/1"], in: folder.path)
        #expect(refusedOnce(run) && run.err.contains("p.shard-0-of-1.csv: not a regular file (a FIFO, device or socket)"), "\(run)")
    }

    @Test("2.4: analyze --csv - is refused (a folder of files is not standard output)")
    func standardOutputFolder() throws {
        let folder = TemporaryFolder()
        folder.file("t.csv", "time,key,size\n0,a,1\n")
        let run = try bench(["analyze", "t.csv", "--csv", "-"], in: folder.path)
        #expect(refusedOnce(run) && run.err.contains("standard output cannot hold them"), "\(run.err)")
    }
}

@Suite("Trust3Inputs CSV cells", .serialized, .onTestWorkers)
struct Trust3InputsCSVCellTests {
    static let name = "=cmd|' -C calc'!A0.csv"

    @Test("4.1: every command that writes a CSV neutralizes a trace named =cmd|…: no cell a spreadsheet would run")
    func everyWriter() throws {
        let folder = TemporaryFolder()
        folder.file(Self.name, "time,key,size\n0,a,1\n1,b,1\n2,a,1\n")
        var written: [String: String] = [:]
        // The commands that write CSVs naming the trace (or user text): run (results and
        // timeline), sweep, mrc, analyze, price, a planned shard and merge.
        let commands: [(String, [String], [String])] = [
            ("run", ["run", "--trace", Self.name, "--backend", "lru", "--capacity", "2", "--no-timing", "--csv", "run.csv", "--timeline", "timeline.csv"], ["run.csv", "timeline.csv"]),
            ("sweep", ["sweep", "--trace", Self.name, "--backend", "lru", "--capacity", "1,2", "--no-timing", "--csv", "sweep.csv"], ["sweep.csv"]),
            ("mrc", ["mrc", "--trace", Self.name, "--points", "2", "--csv", "mrc.csv"], ["mrc.csv"]),
            ("analyze", ["analyze", Self.name, "--csv", "an"], TraceAnalysis.csvFileNames.map { "an/" + $0 }),
            ("price", ["price", Self.name, "--csv", "price.csv"], ["price.csv"]),
            ("plan", ["sweep", "--trace", Self.name, "--backend", "lru", "--capacity", "1,2", "--no-timing", "--plan", "p.json"], []),
            ("shard", ["sweep", "--plan", "p.json", "--shard", "0/1"], ["p.shard-0-of-1.csv"]),
            ("merge", ["merge", "--plan", "p.json", "p.shard-0-of-1.csv", "--csv", "merged.csv"], ["merged.csv"]),
        ]
        // Not results: `gen` and `convert` write trace data, keys as they are (docs/promises.md);
        // the experiments' cells are the workbench's own names and numbers.
        for (label, arguments, outputs) in commands {
            let run = try bench(arguments, in: folder.path)
            #expect(run.status == 0, "\(label): \(run.err)")
            for output in outputs {
                written[output] = (try? String(contentsOfFile: folder.path + "/" + output, encoding: .utf8)) ?? ""
            }
        }
        for (file, text) in written {
            #expect(!text.isEmpty, "\(file) was not written")
            for row in cells(text) { for cell in row { #expect(!isFormula(cell), "\(file): \(cell)") } }
        }
        // The trace cell is kept, behind a quote: summary.csv's and the results' alike.
        #expect(written["an/summary.csv"]?.contains("trace,'=cmd|' -C calc'!A0.csv\n") == true, "\(written["an/summary.csv"] ?? "")")
        #expect(written["run.csv"]?.contains(",'=cmd|' -C calc'!A0.csv,") == true)
    }
}

@Suite("Trust3Inputs machine output", .serialized, .onTestWorkers)
struct Trust3InputsMachineOutputTests {
    /// Whether `text` is one JSON document and nothing else.
    private func isJSON(_ text: String) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
    }

    /// Whether `text` is a CSV whose every row has the header's field count and whose header
    /// starts with `first`.
    private func isCSV(_ text: String, first: String) -> Bool {
        let rows = cells(text)
        guard let header = rows.first, header.first == first, text.hasSuffix("\n") else { return false }
        return rows.allSatisfy { $0.count == header.count }
    }

    @Test("5.1: every command with a machine output on standard output prints that document alone")
    func everyCommand() throws {
        let folder = TemporaryFolder()
        try plannedShard(folder)
        let cases: [(arguments: [String], kind: String, first: String)] = [
            (["analyze", "t.csv", "--json", "-"], "json", ""),
            (["stats", "t.csv", "--json"], "json", ""),
            (["list", "--json"], "json", ""),
            (["run", "--trace", "t.csv", "--backend", "lru", "--capacity", "2", "--no-timing", "--json", "-"], "json", ""),
            (["run", "--trace", "t.csv", "--backend", "lru", "--capacity", "2", "--no-timing", "--csv", "-"], "csv", "run_id"),
            (["run", "--trace", "t.csv", "--backend", "lru", "--capacity", "2", "--no-timing", "--timeline", "-"], "csv", ""),
            (["sweep", "--trace", "t.csv", "--backend", "lru", "--capacity", "1,2", "--no-timing", "--csv", "-"], "csv", "run_id"),
            (["mrc", "--trace", "t.csv", "--points", "2", "--csv", "-"], "csv", "trace"),
            (["price", "t.csv", "--csv", "-"], "csv", ""),
            (["merge", "--plan", "p.json", "p.shard-0-of-1.csv"], "csv", "run_id"),
            (["convert", "t.csv", "-"], "csv", "time"),
            (["gen", "--requests", "5", "--out", "-"], "csv", "time"),
            (["experiment", "similar-keys", "--n", "100", "--lookups", "100", "--csv", "-"], "csv", ""),
            (["experiment", "purge", "--entries", "100", "--rounds", "1", "--csv", "-"], "csv", "backend"),
        ]
        for (arguments, kind, first) in cases {
            let run = try runBounded(120, benchPath, arguments, in: folder.path)
            #expect(run.status == 0, "\(arguments): \(run.err)")
            if kind == "json" {
                #expect(isJSON(run.out), "\(arguments): stdout is not one JSON document: \(run.out.suffix(300))")
            } else {
                // A header given as "" is checked only for a consistent field count.
                let header = cells(run.out).first?.first ?? "?"
                #expect(isCSV(run.out, first: first.isEmpty ? header : first), "\(arguments): stdout is not one CSV: \(run.out.suffix(300))")
            }
        }
    }
}

@Suite("Trust3Inputs merge against", .onTestWorkers)
struct Trust3InputsMergeTests {
    @Test("6: merge --against a missing or malformed file is refused before the merged CSV is written", arguments: ["missing.csv", "bad.csv"])
    func againstCheckedFirst(against: String) throws {
        let folder = TemporaryFolder()
        try plannedShard(folder)
        folder.file("bad.csv", "not,a,results,file\n")
        let toStdout = try bench(["merge", "--plan", "p.json", "p.shard-0-of-1.csv", "--against", against], in: folder.path)
        #expect(refusedOnce(toStdout) && toStdout.err.contains(against), "\(toStdout.err)")
        #expect(toStdout.out.isEmpty, "merged rows written before the refusal: \(toStdout.out.prefix(200))")
        let toFile = try bench(["merge", "--plan", "p.json", "p.shard-0-of-1.csv", "--against", against, "--csv", "m.csv"], in: folder.path)
        #expect(toFile.status == 2 && !FileManager.default.fileExists(atPath: folder.path + "/m.csv"))
    }
}
