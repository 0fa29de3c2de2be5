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

/// Issue 20 ("Trust, second round"), the journal engineer's items: sweep journals are
/// locked, fingerprinted by every option that changes a row and checked row by row; a plan
/// has an identity its shards carry and `bench merge` checks; a point gets the same method
/// wherever it runs; the errors of plans, journals and merges say what is wrong.
@Suite("Trust 2: journals, plans, shards and merge", .onTestWorkers)
struct Trust2JournalTests {
    /// `bench` bounded to `seconds` (a hang is a failed test, exit 124).
    private func boundedBench(_ arguments: [String], seconds: Int = 30) throws -> (status: Int32, out: String, err: String) {
        try runBounded(seconds, try builtBench, arguments)
    }

    /// A plain `timestamp,key,size` trace of zipf requests.
    private func traceFile(_ folder: TemporaryFolder, name: String = "t.csv", requests: Int = 6_000) throws -> String {
        let path = folder.path + "/" + name
        try TraceExport.write(InMemoryTrace(label: "zipf", requests: zipfRequests(requests: requests, images: requests / 8)), to: path, shape: .plain)
        return path
    }

    /// `SweepTests`' sweep (lru, sieve and arc at 5 capacities: 15 points), one job.
    private func arguments(trace: String, csv: String, resume: Bool = false) -> SweepRun.Arguments {
        SweepTests.arguments(trace: trace, csv: csv, jobs: 1, resume: resume)
    }

    /// The same sweep on the command line.
    private func sweepCommand(trace: String, csv: String) -> [String] {
        ["sweep", "--trace", trace, "--backend", "lru,sieve,arc", "--capacity", "2%..60%", "--points", "5", "--no-timing", "--jobs", "1", "--csv", csv]
    }

    /// One line of error, exit 2.
    private func refused(_ run: (status: Int32, out: String, err: String)) -> Bool {
        run.status == 2 && run.err.hasPrefix("bench: error: ") && run.err.filter { $0 == "\n" }.count == 1
    }

    // MARK: 2.1

    @Test("20 §2.1: a second sweep on a journal being written is refused at once (with or without --resume), naming the pid; the journal is untouched")
    func journalLock() throws {
        let folder = TemporaryFolder()
        let trace = try traceFile(folder)
        let csv = folder.path + "/s.csv"
        let first = try SweepRun(arguments(trace: trace, csv: csv))  // the journal is open and locked from here
        let journal = csv + ".partial"
        let before = try Data(contentsOf: URL(fileURLWithPath: journal))
        let expected = "bench: error: \(journal): another sweep is writing this journal (pid \(getpid()))"
        let resumed = try boundedBench(sweepCommand(trace: trace, csv: csv) + ["--resume"])
        #expect(refused(resumed) && resumed.err.hasPrefix(expected), "\(resumed)")
        let fresh = try boundedBench(sweepCommand(trace: trace, csv: csv))
        #expect(refused(fresh) && fresh.err.hasPrefix(expected), "\(fresh)")
        #expect { _ = try SweepRun(arguments(trace: trace, csv: csv, resume: true)) } throws: { "\($0)".contains("another sweep is writing this journal") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == before)
        // The first sweep finishes normally, and then nothing holds the file.
        let outcome = try first.execute(progress: ProgressLine(enabled: false))
        #expect(outcome.results.count == 15 && !outcome.anyFailed)
        #expect(try csvRows(csv).map { $0["sweep_point"] } == (0..<15).map(String.init))
        #expect(!FileManager.default.fileExists(atPath: journal))
    }

    // MARK: 2.2

    @Test("20 §2.2: every bench sweep option is classified: in the fingerprint, through the capacities, or listed as changing no row")
    func everyOptionClassified() throws {
        let help = try boundedBench(["sweep", "--experimental-dump-help"])
        #expect(help.status == 0, "\(help.err)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(help.out.utf8)) as? [String: Any])
        let command = try #require(document["command"] as? [String: Any])
        let options = try #require(command["arguments"] as? [[String: Any]]).compactMap { argument -> String? in
            let names = (argument["names"] as? [[String: Any]]) ?? []
            return names.first { $0["kind"] as? String == "long" }.flatMap { $0["name"] as? String }.map { "--" + $0 }
        }.filter { $0 != "--help" && $0 != "--version" }
        #expect(options.count > 60 && options.contains("--images-only") && options.contains("--jobs"))
        let fingerprinted = Set(SweepRun.fingerprintFields(
            RunSetup.Arguments(), trace: "t", checksum: "c", backends: "lru", capacities: "10%", planID: nil, points: nil).map(\.option))
        let outside = Set(SweepRun.optionsNotChangingRows.keys)
        let unclassified = options.filter { option in
            [fingerprinted.contains(option), SweepRun.optionsThroughCapacities.contains(option), outside.contains(option)].filter { $0 }.count != 1
        }
        #expect(unclassified.isEmpty, "classify these in SweepFingerprint.swift (fingerprint, or optionsNotChangingRows with a reason): \(unclassified)")
        // Every name the classification uses is a real option (no stale entries).
        let named = fingerprinted.filter { $0.hasPrefix("--") }.union(outside).union(SweepRun.optionsThroughCapacities)
        #expect(named.subtracting(options).isEmpty, "\(named.subtracting(options).sorted())")
        // The trace-reading options of the issue are in it, and a changed value changes it.
        for option in ["--images-only", "--status", "--drop-query", "--columns", "--header", "--delimiter", "--preload", "--verify", "--keep"] {
            #expect(fingerprinted.contains(option), "\(option)")
        }
    }

    @Test("20 §2.2: --resume refuses a journal made without the trace-reading option now given (--images-only, --status, --drop-query, --preload)")
    func readingOptionsInFingerprint() throws {
        let folder = TemporaryFolder()
        let har = folder.path + "/s.har"
        let gen = try boundedBench(["gen", "--format", "har", "--requests", "300", "--seed", "3", "--out", har])
        #expect(gen.status == 0, "\(gen.err)")
        let csv = folder.path + "/h.csv"
        var base = arguments(trace: har, csv: csv)
        base.run.backends = "lru"
        base.run.capacities = "10%,50%"
        let command = ["sweep", "--trace", har, "--backend", "lru", "--capacity", "10%,50%", "--no-timing", "--jobs", "1", "--csv", csv, "--resume"]
        for extra in [["--images-only"], ["--status", "2xx"], ["--drop-query"], ["--preload"]] {
            _ = try SweepRun(base)  // an interrupted sweep's journal: identity and header, no rows
            let run = try boundedBench(command + extra)
            #expect(refused(run) && run.err.contains("\(csv).partial:1: made by a different sweep"), "\(extra): \(run)")
            try FileManager.default.removeItem(atPath: csv + ".partial")
        }
        // The same command continues it (the journal made here is the CLI's own sweep).
        _ = try SweepRun(base)
        let same = try boundedBench(command)
        #expect(same.status == 0, "\(same.err)")
        #expect(try csvRows(csv).count == 2)
    }

    @Test("20 §2.2: --resume refuses a journal made with other libcachesim-csv reading options (--columns, --header, --delimiter)")
    func csvReadingOptionsInFingerprint() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("l.txt", (0..<400).map { "\($0),k\($0 % 37),\(100 + $0 % 7)" }.joined(separator: "\n") + "\n")
        let csv = folder.path + "/l.csv"
        var base = arguments(trace: trace, csv: csv)
        base.run.format = "libcachesim-csv"
        base.run.formatOptions = ["columns": "time=1,key=2,size=3"]
        base.run.backends = "lru"
        base.run.capacities = "10%,50%"
        let command = ["sweep", "--trace", trace, "--format", "libcachesim-csv", "--backend", "lru", "--capacity", "10%,50%", "--no-timing", "--jobs", "1", "--csv", csv, "--resume"]
        for extra in [["--columns", "key=2,size=3"], ["--columns", "time=1,key=2,size=3", "--header", "off"], ["--columns", "time=1,key=2,size=3", "--delimiter", ","]] {
            _ = try SweepRun(base)
            let run = try boundedBench(command + extra)
            #expect(refused(run) && run.err.contains("made by a different sweep"), "\(extra): \(run)")
            try FileManager.default.removeItem(atPath: csv + ".partial")
        }
        _ = try SweepRun(base)
        #expect(try boundedBench(command + ["--columns", "time=1,key=2,size=3"]).status == 0)
    }

    /// The whole sweep run once to `whole.csv` (its lines), and what a `--resume` of it
    /// into `r.csv` takes: its arguments and its journal's first line.
    private func finishedSweep(_ folder: TemporaryFolder) throws -> (whole: String, lines: [String], resume: SweepRun.Arguments, fingerprint: String) {
        let trace = try traceFile(folder)
        let whole = folder.path + "/whole.csv"
        _ = try SweepRun(arguments(trace: trace, csv: whole)).execute(progress: ProgressLine(enabled: false))
        let lines = try String(contentsOfFile: whole, encoding: .utf8).split(separator: "\n").map(String.init)
        let resume = arguments(trace: trace, csv: folder.path + "/r.csv", resume: true)
        var setup = resume.run
        setup.parsedCapacities = try CapacitySweep.capacities(parsing: resume.run.capacities, points: resume.points, spacing: .log)
        return (whole, lines, resume, SweepRun.fingerprint(try RunSetup(setup).plan, arguments: resume.run))
    }

    // MARK: 2.3

    @Test("20 §2.3: a journaled row whose sweep_point, backend or capacity is not its index's point is refused, naming the line")
    func rowsCheckedAgainstPoints() throws {
        let folder = TemporaryFolder()
        let (_, lines, resume, fingerprint) = try finishedSweep(folder)
        let csv = folder.path + "/r.csv"
        let header = lines[0].split(separator: ",").map(String.init)
        let column = { (name: String) in header.firstIndex(of: name)! }
        let edit = { (point: Int, name: String, value: String) -> String in
            var fields = CSVRowText.fields(of: lines[point + 1])
            fields[column(name)] = value
            return fields.map(CSVReport.escape).joined(separator: ",")
        }
        // Point 5's row (sieve) journaled as point 1 (lru); point 2's row with another
        // backend or capacity.
        let cases: [(row: String, index: Int, what: String)] = [
            (lines[6], 1, "sweep_point '5'"), (edit(2, "backend", "arc"), 2, "backend 'arc'"), (edit(2, "capacity_spec", "50%"), 2, "capacity_spec '50%'"),
        ]
        for (row, index, what) in cases {
            _ = folder.file("r.csv.partial", [fingerprint, lines[0], "0\t\(lines[1])", "\(index)\t\(row)"].joined(separator: "\n") + "\n")
            #expect { _ = try SweepRun(resume) } throws: {
                "\($0)".contains("\(csv).partial:4: ") && "\($0)".contains("point \(index)") && "\($0)".contains(what)
            }
        }
        // Rows that are their points' are kept.
        _ = folder.file("r.csv.partial", [fingerprint, lines[0], "0\t\(lines[1])", "5\t\(lines[6])"].joined(separator: "\n") + "\n")
        let outcome = try SweepRun(resume).execute(progress: ProgressLine(enabled: false))
        #expect(outcome.resumedRows == 2 && outcome.results.count == 13)
    }

    // MARK: 2.4

    /// A plan of `extra` options in `folder` (lru and arc at 2 capacities), its shard 0 of 1 run.
    private func plannedAndRun(_ folder: TemporaryFolder, trace: String, name: String, extra: [String] = []) throws -> (plan: String, shard: String) {
        let plan = folder.path + "/\(name).json"
        let made = try boundedBench(["sweep", "--trace", trace, "--backend", "lru,arc", "--capacity", "1%,20%", "--no-timing", "--plan", plan] + extra)
        #expect(made.status == 0, "\(made.err)")
        let run = try boundedBench(["sweep", "--plan", plan, "--shard", "0/1"])
        #expect(run.status == 0, "\(run.err)")
        return (plan, SweepPlan.shardResultsPath(plan: plan, index: 0, count: 1))
    }

    /// Plans a and b of the same sweep, b with --warmup 40%, each run as one shard.
    private func twoPlans(_ folder: TemporaryFolder) throws -> (trace: String, a: (plan: String, shard: String), b: (plan: String, shard: String)) {
        let trace = try traceFile(folder, requests: 2_000)
        return (trace, try plannedAndRun(folder, trace: trace, name: "a"), try plannedAndRun(folder, trace: trace, name: "b", extra: ["--warmup", "40%"]))
    }

    @Test("20 §2.4: shard rows carry the plan's identity; merge refuses rows of another plan (--warmup 40%) or of none, naming file and line")
    func planIdentity() throws {
        let folder = TemporaryFolder()
        let (trace, a, b) = try twoPlans(folder)
        let idA = Set(try csvRows(a.shard).map { $0["plan_id"] ?? "" })
        let idB = Set(try csvRows(b.shard).map { $0["plan_id"] ?? "" })
        #expect(idA.count == 1 && idA.first!.count == 64 && idB.count == 1 && idA != idB)
        #expect(idA.first == (try SweepPlan.read(path: a.plan).identity()))
        let mixed = try boundedBench(["merge", "--plan", a.plan, b.shard])
        #expect(refused(mixed) && mixed.err.contains("\(b.shard):2: a row of another plan"), "\(mixed)")
        // A plain sweep's rows have no plan.
        let plain = folder.path + "/plain.csv"
        #expect(try boundedBench(["sweep", "--trace", trace, "--backend", "lru", "--capacity", "1%", "--no-timing", "--csv", plain]).status == 0)
        let none = try boundedBench(["merge", "--plan", a.plan, plain])
        #expect(refused(none) && none.err.contains("\(plain):2: a row of no plan"), "\(none)")
        // Its own shard merges.
        #expect(try boundedBench(["merge", "--plan", a.plan, a.shard]).status == 0)
    }

    @Test("20 §2.4: a finished shard file of another plan is refused, not taken as 'nothing to run'")
    func finishedShardOfAnotherPlan() throws {
        let folder = TemporaryFolder()
        let (_, a, b) = try twoPlans(folder)
        let before = try String(contentsOfFile: b.shard, encoding: .utf8)
        let run = try boundedBench(["sweep", "--plan", a.plan, "--shard", "0/1", "--csv", b.shard])
        #expect(refused(run) && run.err.contains("\(b.shard):2: a row of another plan") && !run.err.contains("nothing to run"), "\(run)")
        #expect(try String(contentsOfFile: b.shard, encoding: .utf8) == before)
        // Its own finished shard is still skipped.
        let again = try boundedBench(["sweep", "--plan", a.plan, "--shard", "0/1"])
        #expect(again.status == 0 && again.err.contains("nothing to run"))
    }

    // MARK: 2.5

    @Test("20 §2.5: the README's merge --against workflow: a plan run in 3 shards, each with one lru point, equals the plan run here")
    func mergeAgainstLocal() throws {
        let folder = TemporaryFolder()
        let trace = try traceFile(folder, requests: 2_000)
        let plan = folder.path + "/plan.json"
        let made = try boundedBench(["sweep", "--trace", trace, "--backend", "lru,arc", "--capacity", "1%..50%", "--points", "3", "--no-timing", "--plan", plan])
        #expect(made.status == 0, "\(made.err)")
        let shards = (0..<3).map { SweepPlan.shardResultsPath(plan: plan, index: $0, count: 3) }
        for shard in 0..<3 {
            let run = try boundedBench(["sweep", "--plan", plan, "--shard", "\(shard)/3"])
            #expect(run.status == 0, "\(run.err)")
        }
        // Each shard holds a lone lru point: where the issue saw `replay` against `mattson`.
        #expect(try shards.allSatisfy { try csvRows($0).filter { $0["backend"] == "lru" }.count == 1 })
        let local = folder.path + "/local.csv"
        #expect(try boundedBench(["sweep", "--plan", plan, "--csv", local]).status == 0)
        let merged = folder.path + "/sweep.csv"
        let merge = try boundedBench(["merge", "--plan", plan] + shards + ["--csv", merged, "--against", local])
        #expect(merge.status == 0 && merge.err.contains("equal"), "\(merge.err)")
        #expect(try csvRows(merged).filter { $0["backend"] == "lru" }.map { $0["method"] } == ["mattson", "mattson", "mattson"])
    }

    @Test("20 §2.5: a --resume that has one lru point left takes it from the curve, as the whole sweep did")
    func resumedLonePointSameMethod() throws {
        let folder = TemporaryFolder()
        let (whole, lines, resume, fingerprint) = try finishedSweep(folder)
        let csv = folder.path + "/r.csv"
        // Every point but one of lru's (3) is finished.
        _ = folder.file("r.csv.partial", ([fingerprint, lines[0]] + ([0, 1, 2] + Array(4..<15)).map { "\($0)\t\(lines[$0 + 1])" }).joined(separator: "\n") + "\n")
        let outcome = try SweepRun(resume).execute(progress: ProgressLine(enabled: false))
        #expect(outcome.results.map(\.method) == ["mattson"])
        let unmeasured = { (rows: [[String: String]]) in rows.map { $0.filter { !ShardMerge.measuredColumns.contains($0.key) } } }
        #expect(unmeasured(try csvRows(csv)) == unmeasured(try csvRows(whole)))
    }

    // MARK: 2.6

    @Test("20 §2.6: a trace path with a line break resumes its own journal, kept on one line")
    func newlineInTracePath() throws {
        let folder = TemporaryFolder()
        let trace = try traceFile(folder, name: "a\nb.csv")
        let csv = folder.path + "/n.csv"
        _ = try SweepRun(arguments(trace: trace, csv: csv))
        let journal = try String(contentsOfFile: csv + ".partial", encoding: .utf8)
        let journalLines = journal.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(journalLines.count == 3 && journalLines[0].hasPrefix("# bench sweep journal") && journalLines[1].hasPrefix("run_id,"))
        let resumed = try boundedBench(sweepCommand(trace: trace, csv: csv) + ["--resume"])
        #expect(resumed.status == 0, "\(resumed.err)")
        let rows = try ResultsTable.read(csv)
        #expect(rows.rows.count == 15 && rows.rows.allSatisfy { $0[rows.column("trace")!] == trace })
    }

    // MARK: 4.4

    /// A plan of lru and arc at 1% and 5% written in `folder`, with its text and trace.
    private func writtenPlan(_ folder: TemporaryFolder) throws -> (plan: String, text: String, trace: String) {
        let trace = try traceFile(folder, requests: 2_000)
        let plan = folder.path + "/p.json"
        #expect(try boundedBench(["sweep", "--trace", trace, "--backend", "lru,arc", "--capacity", "1%,5%", "--no-timing", "--plan", plan]).status == 0)
        return (plan, try String(contentsOfFile: plan, encoding: .utf8), trace)
    }

    @Test("20 §4.4: a plan point whose trace path changed names the trace path, the command's and the plan's")
    func planTracePathMessage() throws {
        let folder = TemporaryFolder()
        let (plan, text, trace) = try writtenPlan(folder)
        try text.replacingOccurrences(of: "\"trace\" : \"\(trace)\"", with: "\"trace\" : \"/elsewhere/t.csv\"").write(toFile: plan, atomically: true, encoding: .utf8)
        let run = try boundedBench(["sweep", "--plan", plan, "--shard", "0/1"])
        #expect(refused(run) && run.err.contains("point 0") && run.err.contains("trace path") && run.err.contains(trace) && run.err.contains("/elsewhere/t.csv"), "\(run)")
        #expect(!run.err.contains("is now lru at 1%, the plan has lru at 1%"))
    }

    @Test("20 §4.4: a point index of 1e20 is named as out of range in its field, not as bad JSON")
    func planIndexOutOfRange() throws {
        let folder = TemporaryFolder()
        let (plan, text, _) = try writtenPlan(folder)
        #expect(text.contains("\"index\" : 1,"))
        try text.replacingOccurrences(of: "\"index\" : 1,", with: "\"index\" : 1e20,").write(toFile: plan, atomically: true, encoding: .utf8)
        let run = try boundedBench(["sweep", "--plan", plan, "--shard", "0/1"])
        #expect(refused(run) && run.err.contains("\(plan):1: ") && run.err.contains("points[1].index") && run.err.contains("out of range"), "\(run)")
        #expect(!run.err.contains("valid JSON"))
    }

    @Test("20 §4.4: a journal cut in its first or second line is called truncated, with how to recover, not another sweep's")
    func truncatedJournalMessage() throws {
        let folder = TemporaryFolder()
        let trace = try traceFile(folder)
        let csv = folder.path + "/s.csv"
        _ = try SweepRun(arguments(trace: trace, csv: csv))
        let whole = try Data(contentsOf: URL(fileURLWithPath: csv + ".partial"))
        let firstLine = whole.firstIndex(of: 0x0A)!
        for (cut, line) in [(20, 1), (firstLine + 10, 2)] {
            try whole.prefix(cut).write(to: URL(fileURLWithPath: csv + ".partial"))
            let run = try boundedBench(sweepCommand(trace: trace, csv: csv) + ["--resume"])
            #expect(refused(run) && run.err.contains("\(csv).partial:\(line): truncated") && run.err.contains("remove it"), "\(run)")
            #expect(!run.err.contains("different sweep"))
        }
    }

    @Test("20 §4.4: merge --csv naming one of its inputs says so (not 'the trace')")
    func mergeOutputIsInput() throws {
        let folder = TemporaryFolder()
        let trace = try traceFile(folder, requests: 2_000)
        let a = try plannedAndRun(folder, trace: trace, name: "a")
        let before = try String(contentsOfFile: a.shard, encoding: .utf8)
        let run = try boundedBench(["merge", "--plan", a.plan, "--csv", a.shard, a.shard])
        #expect(refused(run) && run.err.contains("--csv \(a.shard) is the same file as \(a.shard), one of the merge's inputs"), "\(run)")
        #expect(!run.err.contains("the trace"))
        #expect(try String(contentsOfFile: a.shard, encoding: .utf8) == before)
    }

    // MARK: fuzzing

    @Test("20 fuzz: journal inputs (Fuzz/corpus/journal, Fuzz/crashes/journal) parse into their points' rows or fail cleanly; escapes stay one reversible line")
    func journalFuzzInputs() throws {
        let inputs = FuzzRegressionTests.inputs("journal")
        #expect(inputs.count >= 4)
        let columns = ["sweep_point", "backend", "variant", "capacity_spec", "status"]
        let points = [
            SweepJournalText.PlannedPoint(backend: "lru", capacity: "10%"), SweepJournalText.PlannedPoint(backend: "nscache[key-hash=cf]", capacity: "64MiB"),
            SweepJournalText.PlannedPoint(backend: "arc", capacity: "1000"),
        ]
        var parsed = 0
        for path in inputs {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            guard let kind = bytes.first else { continue }
            let rest = Array(bytes.dropFirst())
            if kind % 2 == 0 {
                guard let journal = try? SweepJournalText.parse(rest, path: path, fingerprint: "# fp", columns: columns, points: points) else { continue }
                parsed += 1
                #expect(journal.completeBytes <= rest.count && (journal.completeBytes == 0 || rest[journal.completeBytes - 1] == 0x0A))
                for (index, row) in journal.rows {
                    #expect(SweepJournalText.mismatch(CSVRowText.fields(of: row), columns: columns, index: index, planned: points[index]) == nil, "\(path)")
                }
            } else {
                let text = String(decoding: rest, as: UTF8.self)
                let escaped = CSVRowText.escape(text)
                #expect(!escaped.unicodeScalars.contains("\n") && Array(CSVRowText.unescape(escaped).unicodeScalars) == Array(text.unicodeScalars), "\(path)")
            }
        }
        // The seed of an interrupted, resumed journal keeps its three points (the last of a
        // point twice) and cuts the half-written line.
        #expect(parsed >= 1)
        let resumed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: FuzzRegressionTests.root.path + "/Fuzz/corpus/journal/resumed")).dropFirst())
        let journal = try SweepJournalText.parse(resumed, path: "resumed", fingerprint: "# fp", columns: columns, points: points)
        #expect(journal.rows.keys.sorted() == [0, 1, 2] && journal.completeBytes == resumed.count - 6)
    }
}
