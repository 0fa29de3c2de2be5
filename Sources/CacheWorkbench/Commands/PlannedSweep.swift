import WorkbenchSimulation
import WorkbenchReports
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// One run of a plan (`bench sweep --plan FILE [--shard I/N]`): the plan's own sweep,
/// checked against the plan (same workbench revision, same trace checksum, the same points
/// in the same order), narrowed to the shard's points, writing its own results file, every
/// row carrying the plan's identity (`plan_id`). A shard whose results file is already
/// complete (and of this plan) is not run again, except its failed points; an interrupted
/// one continues from its journal.
public struct PlannedSweep {
    /// What to run, ready for `SweepRun`; nil when the shard already finished.
    public var arguments: SweepRun.Arguments?
    /// Where the results go (the shard's file beside the plan by default).
    public var resultsPath: String
    /// The points this run covers.
    public var points: [Int]
    /// Points whose rows in an existing results file failed: run again now.
    public var rerunning: [Int] = []

    /// `sweep` is the plan's command parsed by the CLI; `csv` and `jobs` are this run's.
    public init(plan: SweepPlan, planPath: String, sweep: SweepRun.Arguments, shard: ShardSpec?, csv: String?, jobs: Int?) throws {
        let revision = RunEnvironment.current().gitRevision
        guard revision == plan.revision else {
            throw WorkbenchError("\(planPath): written by workbench \(plan.revision), and this is \(revision); build that revision to run it, or write the plan again")
        }
        var arguments = sweep
        arguments.jobs = jobs
        arguments.run.plannedFacts = plan.traceFacts  // used only when none are kept here
        let identity = try plan.identity()
        arguments.planID = identity
        let points = shard.map { plan.shard($0.index, of: $0.count) } ?? plan.points.map(\.index)
        arguments.onlyPoints = shard == nil ? nil : Set(points)
        guard let results = csv ?? shard.map({ SweepPlan.shardResultsPath(plan: planPath, index: $0.index, count: $0.count) }) else {
            throw WorkbenchError("bench sweep --plan \(planPath) without --shard runs every point here: name the results file with --csv")
        }
        // A name the workbench chose (beside the plan) follows the output-folder rule.
        if csv == nil { try OutputFolder.checkEntry(results) }
        // The plan is an input too (the trace is checked with the sweep's own outputs).
        try OutputFile.check(outputs: [("--csv", results)], inputs: [planPath], inputName: { "\($0), the plan this runs" })
        arguments.run.csv = results
        self.resultsPath = results
        self.points = points
        arguments.resume = FileManager.default.fileExists(atPath: results + ".partial")
        if shard != nil, let finished = try Self.finishedRows(results, planID: identity, planPath: planPath) {
            guard finished.keys.sorted() == points else {
                throw WorkbenchError("\(results) exists and does not hold shard \(shard!.index)/\(shard!.count)'s \(points.count) points; remove it to run the shard again")
            }
            // A failed row is not a finished point: the shard runs it again (as --resume
            // does a failed journal row), the file's other rows kept through the journal.
            rerunning = finished.filter { SweepRun.isFailedRow($0.value) }.keys.sorted()
            guard !rerunning.isEmpty else {
                self.arguments = nil
                return
            }
            if !arguments.resume { arguments.carriedRows = finished }
        }
        // The sweep the command makes now must be the plan's: same points, same trace.
        var check = arguments  // no results file: building it must not start a journal
        check.run.csv = nil
        check.resume = false
        let made = try SweepRun(check).makePlan(command: plan.command, revision: revision, estimates: false)
        guard made.points.count == plan.points.count else {
            throw WorkbenchError("\(planPath): its command now makes \(made.points.count) points, not the plan's \(plan.points.count)")
        }
        for (now, var planned) in zip(made.points, plan.points) {
            planned.estimate = now.estimate  // estimates are the plan's own
            guard now != planned else { continue }
            throw WorkbenchError("\(planPath): \(Self.difference(now: now, planned: planned))")
        }
        self.arguments = arguments
    }

    /// `bench sweep … --plan FILE` for a new FILE: the sweep's plan written there (its
    /// command from the command line's arguments, the trace made absolute), nothing run;
    /// `notes` are where its trace's facts came from (`TraceFactsNote`), for stderr.
    public static func writePlan(_ arguments: SweepRun.Arguments, commandLine: [String], to path: String) throws -> (plan: SweepPlan, notes: [String]) {
        let trace = try arguments.run.trace ?? BundledTrace.path(http: arguments.run.http.mode.lowercased() == "http")
        var arguments = arguments
        arguments.run.factsFirst = true  // every point names the trace's checksum: nothing else is read
        let sweep = try SweepRun(arguments)
        let plan = try sweep.makePlan(
            command: SweepPlan.command(from: commandLine, trace: URL(fileURLWithPath: trace).standardizedFileURL.path),
            revision: RunEnvironment.current().gitRevision)
        try OutputFile.write(try plan.encoded(), to: path)
        return (plan, sweep.factsNotes)
    }

    /// What differs between a point as the plan's command makes it now and as the plan
    /// holds it: each differing field, now and in the plan.
    static func difference(now: SweepPlan.Point, planned: SweepPlan.Point) -> String {
        if now.traceSHA256 != planned.traceSHA256 && now.trace == planned.trace {
            return "the trace \(planned.trace) changed (SHA-256 \(now.traceSHA256.prefix(12))…, the plan has \(planned.traceSHA256.prefix(12))…); restore it, or write the plan again"
        }
        let fields: [(String, String, String)] = [
            ("trace path", now.trace, planned.trace), ("trace SHA-256", now.traceSHA256, planned.traceSHA256), ("backend", now.backend, planned.backend),
            ("capacity", now.capacity, planned.capacity), ("seed", now.seed, planned.seed), ("mode", now.mode, planned.mode),
        ]
        let differing = fields.filter { $0.1 != $0.2 }.map { "its \($0.0) is \(ErrorText.quote($0.1)) from the plan's command, the plan's point has \(ErrorText.quote($0.2))" }
        return "point \(planned.index) differs from what the plan's command makes: \(differing.joined(separator: "; ")); the plan was edited or damaged: write it again"
    }

    /// The rows of a complete results file by sweep point (as CSV lines); nil when there is
    /// none. A file holding rows of another plan (or of no plan) is refused, not taken as finished.
    static func finishedRows(_ path: String, planID: String, planPath: String) throws -> [Int: String]? {
        guard FileManager.default.fileExists(atPath: path), !OutputFile.standardOutputNames.contains(path),
              try OutputFile.kind(of: path) == .regular else { return nil }
        let table = try ResultsTable.read(path)
        let planColumn = table.column("plan_id")!
        if let other = table.rows.indices.first(where: { table.rows[$0][planColumn] != planID }) {
            let found = table.rows[other][planColumn]
            throw WorkbenchError("\(path):\(table.lines[other]): a row of \(found.isEmpty ? "no plan (plan_id empty)" : "another plan (plan_id \(found.prefix(12))…)"), and \(planPath) is \(planID.prefix(12))…: this file is not this plan's results; remove it or name another with --csv")
        }
        let point = table.column("sweep_point")!
        var rows: [Int: String] = [:]
        for (position, row) in table.rows.enumerated() {
            guard let index = Int(row[point]), rows[index] == nil else {
                throw WorkbenchError("\(path):\(table.lines[position]): sweep_point \(ErrorText.quote(row[point])) is not a new point of this shard; remove the file to run the shard again")
            }
            rows[index] = row.map(CSVReport.escape).joined(separator: ",")
        }
        return rows
    }
}
