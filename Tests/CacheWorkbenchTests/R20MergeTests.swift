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

/// The adversarial review of issue 20's fixes: an input is never an output (the plan's
/// trace, a report's inputs named as such), one document on standard output, failed points
/// are never finished ones (shards, merge), merge checks `capacity_bytes`, a refused
/// `--resume` names the option that differs, and a range says when its points repeat.
@Suite("20 review: outputs, shards, merge and journals", .serialized, .onTestWorkers)
struct R20MergeTests {
    static let handTrace = "time,key,size\n0,A,4\n1,B,4\n2,A,4\n3,C,4\n"

    /// One line of error, exit 2.
    private func refused(_ run: (status: Int32, out: String, err: String)) -> Bool {
        run.status == 2 && run.err.hasPrefix("bench: error: ") && run.err.filter { $0 == "\n" }.count == 1
    }

    /// A plan of `backends` at 4 and 8 bytes over the hand trace, and its one shard run.
    private func plannedShard(_ folder: TemporaryFolder, backends: String = "lru,fifo", environment: [String: String]? = nil) throws
        -> (trace: String, plan: String, shard: String, run: (status: Int32, out: String, err: String)) {
        let trace = folder.file("t.csv", Self.handTrace)
        let plan = folder.path + "/p.json"
        let made = try bench(["sweep", "--trace", trace, "--backend", backends, "--capacity", "4,8", "--no-timing", "--plan", plan])
        #expect(made.status == 0, "\(made.err)")
        let run = try bench(["sweep", "--plan", plan, "--shard", "0/1"], environment: environment)
        return (trace, plan, folder.path + "/p.shard-0-of-1.csv", run)
    }

    // MARK: 2

    @Test("20 review 2: merge --csv naming the plan's trace is refused as sweep --plan's --csv is; the trace is untouched")
    func mergeOutputIsPlanTrace() throws {
        let folder = TemporaryFolder()
        let (trace, plan, shard, run) = try plannedShard(folder)
        #expect(run.status == 0, "\(run.err)")
        let merge = try bench(["merge", "--plan", plan, shard, "--csv", trace])
        #expect(refused(merge) && merge.err.contains("is the same file as the trace"), "\(merge)")
        #expect(try String(contentsOfFile: trace, encoding: .utf8) == Self.handTrace)
        // Named another way (relative to the plan's folder), it is still the trace.
        let relative = try bench(["merge", "--plan", "p.json", "p.shard-0-of-1.csv", "--csv", "./t.csv"], in: folder.path)
        #expect(refused(relative) && relative.err.contains("the trace"), "\(relative)")
        #expect(try String(contentsOfFile: trace, encoding: .utf8) == Self.handTrace)
        // Nor does a plan's run write its results over the plan.
        let before = try String(contentsOfFile: plan, encoding: .utf8)
        let over = try bench(["sweep", "--plan", plan, "--csv", plan])
        #expect(refused(over) && over.err.contains("the plan this runs"), "\(over)")
        #expect(try String(contentsOfFile: plan, encoding: .utf8) == before)
    }

    // MARK: 3

    @Test("20 review 3: at most one output on standard output, whatever its name; otherwise one line, exit 2")
    func oneDocumentOnStandardOutput() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("hand.csv", Self.handTrace)
        for (first, second) in [("--json", "-"), ("--timeline", "-"), ("--json", "/dev/stdout"), ("--timeline", "/proc/self/fd/1")] {
            let run = try bench(["run", "--trace", trace, "--backend", "lru", "--capacity", "8", "--csv", "-", first, second])
            #expect(refused(run) && run.err.contains("name standard output") && run.out.isEmpty, "\(first) \(second): \(run)")
        }
        #expect(throws: WorkbenchError.self) { try OutputFile.check(outputs: [("--json", "/dev/fd/1"), ("--csv", "-")], inputs: []) }
        // One is fine.
        try OutputFile.check(outputs: [("--csv", "-"), ("--json", folder.path + "/r.json")], inputs: [])
    }

    // MARK: 4

    @Test("20 review 4: a failed point is not finished: the shard runs it again (the others kept), merge names it and exits 1")
    func failedPointsRunAgain() throws {
        let folder = TemporaryFolder()
        // A regular file as TMPDIR: `files` cannot make its folder, so its points fail.
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = folder.file("not-a-folder", "")
        let (_, plan, shard, first) = try plannedShard(folder, backends: "lru,files", environment: environment)
        #expect(first.status == 1, "\(first)")
        let failedCopy = folder.path + "/failed.shard-0-of-1.csv"
        try FileManager.default.copyItem(atPath: shard, toPath: failedCopy)
        let failedRows = try csvRows(shard)
        #expect(failedRows.filter { $0["status"] != "ok" }.map { $0["sweep_point"] } == ["2", "3"])
        // Merged as they are, but named, and exit 1 (never "merged" and success).
        let merged = folder.path + "/m.csv"
        let merge = try bench(["merge", "--plan", plan, failedCopy, "--csv", merged])
        #expect(merge.status == 1 && merge.err.contains("2 of 4 points failed") && merge.err.contains("2 (files 4B"), "\(merge)")
        #expect(try csvRows(merged).count == 4)
        // Run again (a working TMPDIR): only the failed points, the lru rows kept as they were.
        let again = try bench(["sweep", "--plan", plan, "--shard", "0/1"])
        #expect(again.status == 0 && again.err.contains("holds 2 failed points (2, 3); running them again"), "\(again)")
        let rows = try csvRows(shard)
        #expect(rows.map { $0["sweep_point"] } == ["0", "1", "2", "3"] && rows.allSatisfy { $0["status"] == "ok" }, "\(rows.map { $0["status"] ?? "" })")
        #expect(rows[0]["run_id"] == failedRows[0]["run_id"] && rows[1]["run_id"] == failedRows[1]["run_id"])
        #expect(!FileManager.default.fileExists(atPath: shard + ".partial"))
        // Now it is finished, and merges.
        let finished = try bench(["sweep", "--plan", plan, "--shard", "0/1"])
        #expect(finished.status == 0 && finished.err.contains("nothing to run"), "\(finished)")
        let good = try bench(["merge", "--plan", plan, shard, "--csv", merged])
        #expect(good.status == 0 && !good.err.contains("failed"), "\(good)")
    }

    // MARK: 13

    @Test("20 review 13: a refused --resume names each differing option, the command's value and the journal's")
    func resumeRefusalNamesTheOption() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("hand.csv", Self.handTrace)
        let other = folder.file("the other trace.csv", Self.handTrace)
        var journaled = RunSetup.Arguments()
        journaled.trace = trace
        journaled.backends = "lru"
        journaled.capacities = "4,8"
        journaled.timing = false
        let fingerprint = { (arguments: RunSetup.Arguments) in SweepRun.fingerprint(try RunSetup(arguments).plan, arguments: arguments) }
        let journal = try fingerprint(journaled) + "\n" + RunResult.columnNames.joined(separator: ",") + "\n"
        let points = [SweepJournalText.PlannedPoint(backend: "lru", capacity: "4B"), .init(backend: "lru", capacity: "8B")]
        let refusal = { (now: RunSetup.Arguments) throws -> String in
            do {
                _ = try SweepJournalText.parse(Array(journal.utf8), path: "s.csv.partial", fingerprint: try fingerprint(now), columns: RunResult.columnNames, points: points)
            } catch {
                return "\(error)"
            }
            return "accepted"
        }
        var changed = journaled
        changed.skipBad = true
        changed.seed = 2
        let both = try refusal(changed)
        #expect(both.contains("s.csv.partial:1: made by a different sweep: --seed is '2' here, '1' in the journal"), "\(both)")
        #expect(both.contains("--skip-bad is on here, off in the journal"), "\(both)")
        // A path with spaces is one value, not several.
        var moved = journaled
        moved.trace = other
        let path = try refusal(moved)
        #expect(path.contains("--trace is '") && path.components(separatedBy: " here, ").count == 2 && !path.contains("--seed"), "\(path)")
    }

    // MARK: 9

    @Test("20 review 9: report's --out naming one of its inputs says so, not \"the trace\"")
    func reportNamesItsInputs() throws {
        let folder = TemporaryFolder()
        let results = folder.file("r.csv", "not read\n")
        let timeline = folder.file("tl.csv", "not read\n")
        for (arguments, named) in [(["report", results, "--out", results], results), (["report", results, "--timeline", timeline, "--out", timeline], timeline)] {
            let run = try bench(arguments)
            #expect(refused(run) && run.err.contains("is the same file as \(named), one of the report's inputs") && !run.err.contains("trace"), "\(run)")
        }
    }

    // MARK: 10

    @Test("20 review 10: merge refuses a row whose capacity_bytes its capacity does not make, and names a misplaced column")
    func mergeChecksCapacityBytes() throws {
        let folder = TemporaryFolder()
        let (_, plan, shard, run) = try plannedShard(folder)
        #expect(run.status == 0, "\(run.err)")
        var lines = try String(contentsOfFile: shard, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = CSVRowText.fields(of: lines[0])
        var fields = CSVRowText.fields(of: lines[1])  // point 0: lru at 4B
        fields[header.firstIndex(of: "capacity_bytes")!] = "8"
        lines[1] = fields.map(CSVReport.escape).joined(separator: ",")
        let edited = folder.file("edited.csv", lines.joined(separator: "\n") + "\n")
        let merge = try bench(["merge", "--plan", plan, edited, "--csv", folder.path + "/m.csv"])
        #expect(refused(merge) && merge.err.contains("edited.csv:2: point 0's capacity_bytes is 8, which is 8B, not its capacity_spec '4B'"), "\(merge)")
        // Two columns swapped: where they part, not only the count.
        var swapped = header
        let (hits, misses) = (header.firstIndex(of: "hits")!, header.firstIndex(of: "misses")!)
        swapped.swapAt(hits, misses)
        #expect { _ = try ResultsTable.parse(swapped.joined(separator: ",") + "\n", path: "s.csv", columns: header) } throws: {
            "\($0)".contains("column \(hits + 1) is 'misses', expected 'hits'")
        }
        // Shares: the row's part of its working set, within the spec's rounding.
        #expect(ShardMerge.capacityMismatch(bytes: "105", spec: "10.5%", workingSet: "1000") == nil)
        #expect(ShardMerge.capacityMismatch(bytes: "1053", spec: "10.53%", workingSet: "10000") == nil)
        #expect(ShardMerge.capacityMismatch(bytes: "1054", spec: "10.53%", workingSet: "10000") == nil)  // 10.534% written as 10.53%
        #expect(ShardMerge.capacityMismatch(bytes: "200", spec: "10.5%", workingSet: "1000") != nil)
        #expect(ShardMerge.capacityMismatch(bytes: "976563", spec: "953.67KiB", workingSet: "") == nil)  // a size written rounded
        #expect(ShardMerge.capacityMismatch(bytes: "x", spec: "4B", workingSet: "") != nil)
    }

    // MARK: 11

    @Test("20 review 11: a range keeps every point asked for, and says when rounding makes some equal (sizes and shares alike)")
    func rangeRepeatsAreSaid() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("hand.csv", "time,key,size\n0,A,1\n1,B,1\n2,A,1\n3,C,1\n")
        let ranges: [(capacity: String, extra: [String])] = [("1..20", ["--ignore-obj-size"]), ("10%..20%", [])]
        for (capacity, extra) in ranges {
            let csv = folder.path + "/s.csv"
            let run = try bench(["sweep", "--trace", trace, "--backend", "lru,fifo", "--capacity", capacity, "--points", "12", "--no-timing", "--csv", csv] + extra)
            #expect(run.status == 0, "\(run)")
            let rows = try csvRows(csv)
            #expect(rows.count == 24, "\(capacity): \(rows.count) rows")
            let distinct = Set(rows.filter { $0["backend"] == "lru" }.map { $0["capacity_bytes"]! }).count
            #expect(run.err.contains("bench: note: some points resolve to the same capacity") && run.err.contains("lru: 12 points asked, \(distinct) distinct capacit"), "\(capacity): \(run.err)")
        }
        // Distinct points: no note.
        let run = try bench(["sweep", "--trace", trace, "--backend", "lru", "--capacity", "1..3", "--points", "3", "--no-timing", "--ignore-obj-size", "--csv", folder.path + "/d.csv"])
        #expect(run.status == 0 && !run.err.contains("same capacity"), "\(run)")
    }
}
