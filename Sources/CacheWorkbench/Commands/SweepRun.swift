import WorkbenchSimulation
import WorkbenchReports
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Dispatch
import Foundation

/// `bench sweep`: every backend at every capacity of a list or a range, the points run on
/// several cores at once, each point a replay of its own (`RunPlan` with one backend and
/// one capacity), so the rows equal a serial `bench run` of the same points apart from
/// the measured columns (latency, throughput, memory, run ids).
///
/// With a regular `--csv FILE`, each finished row is appended to `FILE.partial` at once
/// (synced), so an interrupted sweep keeps its finished points and `--resume` runs only the
/// rest; at the end `FILE` is written whole, rows in plan order, and the journal removed.
public struct SweepRun {
    public struct Arguments {
        public var run = RunSetup.Arguments()
        /// Capacities for a range `A..B`.
        public var points = 12
        public var spacing = "log"
        /// Replays at once; nil = one per core.
        public var jobs: Int?
        public var resume = false
        /// Run only these points (a shard of a plan); nil = all.
        public var onlyPoints: Set<Int>?
        /// The plan this sweep runs (`SweepPlan.identity`), written in every row's
        /// `plan_id`; nil outside a plan.
        public var planID: String?
        /// Rows of an earlier complete results file of this shard, by point, that start its
        /// new journal (its failed ones run again); nil = none.
        public var carriedRows: [Int: String]?
        /// Untimed simulator points fed from one read of the trace (`FannedOutSweep`);
        /// false replays each point with its own read.
        public var fanOut = true

        public init() {}
    }

    public struct Outcome {
        /// The rows run by this invocation, in plan order.
        public var results: [RunResult]
        public var resumedRows: Int
        public var table: String
        public var notes: [String]
        public var anyFailed: Bool
    }

    /// One replay of the sweep.
    struct Point {
        var index: Int
        var backend: BackendKind
        var capacity: Capacity
    }

    private var plan: RunPlan
    private let csvPath: String?
    private let journal: SweepJournal?
    /// The CSV's claim (`OutputLock`): a `bench run` or another sweep on it is refused.
    private let outputLocks: [OutputLock]
    private let jobs: Int
    private let points: [Point]
    private let onlyPoints: Set<Int>?
    private let planID: String?
    private let fanOut: Bool
    /// The options the journal's fingerprint is made of (`fingerprint`), kept for a journal
    /// whose identity line waits for the trace's facts (`JournalIdentity`).
    private let runArguments: RunSetup.Arguments

    public init(_ arguments: Arguments) throws {
        guard arguments.run.json == nil, arguments.run.timeline == nil, arguments.run.disagreements == nil else {
            throw WorkbenchError("bench sweep writes --csv; --json and --timeline belong to `bench run`, and so does --disagreements")
        }
        guard arguments.run.cacheDirectory == nil else {
            throw WorkbenchError("--cache-dir: every point of a sweep starts from a fresh folder; use `bench run` to reopen one")
        }
        guard let spacing = CapacitySweep.Spacing(rawValue: arguments.spacing.lowercased()) else {
            throw WorkbenchError("--spacing must be log or linear, not \(ErrorText.quote(arguments.spacing))")
        }
        // Timed points run one at a time unless asked: points in flight share the cores, the
        // caches and the heap, so their latencies would be contended.
        let jobs = arguments.jobs ?? (arguments.run.timing ? 1 : ProcessInfo.processInfo.activeProcessorCount)
        guard (1...256).contains(jobs) else { throw WorkbenchError("--jobs must be from 1 to 256, not \(jobs)") }
        self.jobs = jobs
        let capacities = try CapacitySweep.capacities(
            parsing: arguments.run.capacities, points: arguments.points, spacing: spacing, device: ReplayOptionText.device(arguments.run.device))
        if jobs > 1, case .above? = try arguments.run.memoryWarning.map(MemoryWarningSchedule.init(parsing:)) {
            throw WorkbenchError("--memory-warning above: reads the process's heap, which parallel points share; add --jobs 1")
        }
        var run = arguments.run
        run.parsedCapacities = capacities
        // --resume checks the journal's fingerprint (the trace's checksum) before any point,
        // rows carried into a new journal are written at once, and a plan's run is checked
        // against the plan's points (their checksum) first: the facts come first, unless the
        // plan carries them (`PlannedTraceFacts`: the replay's read checks them at its end).
        run.factsFirst = run.factsFirst || arguments.resume || arguments.carriedRows != nil || (arguments.planID != nil && run.plannedFacts == nil)
        plan = try RunSetup(run).plan
        runArguments = arguments.run
        csvPath = arguments.run.csv
        let built = plan
        points = built.backends.flatMap { backend in built.capacities(for: backend).map { (backend, $0) } }.enumerated().map {
            Point(index: $0.offset, backend: $0.element.0, capacity: $0.element.1)
        }
        onlyPoints = arguments.onlyPoints
        planID = arguments.planID
        fanOut = arguments.fanOut
        // Until the first points' pass gives the trace's checksum, the journal's identity line waits (`JournalIdentity`).
        let fingerprint = plan.factsPending ? nil : Self.fingerprint(plan, arguments: arguments.run, planID: arguments.planID, points: arguments.onlyPoints)
        // A sweep writing this journal is named as such (before the CSV's own lock, which it holds too).
        if let csv = csvPath { try SweepJournal.refuseIfLocked(csv + ".partial") }
        outputLocks = try OutputLock.claim([csvPath])
        if let csv = csvPath, !OutputFile.standardOutputNames.contains(csv), try OutputFile.kind(of: csv) != .special {
            journal = try SweepJournal(
                path: csv + ".partial", fingerprint: fingerprint, resume: arguments.resume,
                points: points.map { SweepJournalText.PlannedPoint(backend: $0.backend.label, capacity: $0.capacity.description) })
            if let carried = arguments.carriedRows { try journal?.carry(carried) }
        } else {
            if arguments.resume { throw WorkbenchError("--resume needs --csv FILE (a regular file): its finished rows are kept in FILE.partial") }
            journal = nil
        }
    }

    public func execute(progress: ProgressLine) throws -> Outcome {
        // A sweep that stops before its first row leaves no journal (its identity line unwritten).
        var succeeded = false
        defer { if !succeeded { journal?.removeIfUnidentified() } }
        let environment = RunEnvironment.current()
        let identity = JournalIdentity(journal: journal, arguments: runArguments, planID: planID, points: onlyPoints)
        var plan = self.plan
        plan.applyGatheredFacts()  // read apart already (`makePlan`), when they were
        if plan.preload {
            progress.begin("preload")
            progress.show("reading \(plan.trace.label) into memory")
            try plan.preloadTrace()
        }
        progress.show("scanning \(plan.trace.label)")
        try plan.scanSummaries()
        progress.finish()
        for line in try plan.largeShareNotes() { progress.note(line) }  // said first: a refusal below rests on them
        try plan.checkMaterializedMemory(concurrent: min(jobs, max(1, points.count)))
        let journal = self.journal
        if let journal { try checkResumedRows(journal, plan: plan, environment: environment) }
        // To standard output, a pipe or a device (no journal): each row as it finishes.
        let stream: RowStream? = try csvPath.flatMap { path in journal == nil ? RowStream(try OutputFile(path)) : nil }
        try stream?.write(RunResult.columnNames.joined(separator: ","))
        // A failed point is run again on --resume (its new row replaces the failed one).
        let finished = (journal?.finishedRows ?? [:]).filter { !Self.isFailedRow($0.value) }
        let points = self.points.filter { onlyPoints?.contains($0.index) ?? true }
        var pending = points.filter { finished[$0.index] == nil }
        let state = SweepState(total: points.count, alreadyDone: finished.count)
        let started = MonotonicClock.now()
        // LRU's points from one pass of its exact curve, where that gives the same rows: fed
        // beside the fanned-out points in their read when there is one, else by its own.
        var curvePoints = 0
        let curveJob = lruCurveJob(plan, sweep: self.points, pending: pending)
        let onCurve = Set(curveJob?.points.map(\.index) ?? [])
        func finishCurve(_ job: LRUCurveJob, _ curve: LRUMissRatioCurve.Result) throws {
            plan.applyGatheredFacts()  // the pass that fed the curve gave them
            guard let fromCurve = lruPointsFromCurve(job, curve: curve, plan: plan, environment: environment) else { return }
            for point in pending where fromCurve[point.index] != nil {
                var result = fromCurve[point.index]!
                result.sweepPoint = point.index
                result.planID = self.planID
                let row = result.cells.map(CSVReport.field).joined(separator: ",")
                try state.finish(point, result: result, row: row) { _ in
                    try identity.write(plan)
                    try journal?.append(index: point.index, row: row)
                    try stream?.write(row)
                }
            }
            curvePoints = fromCurve.count
            pending.removeAll { fromCurve[$0.index] != nil }
        }
        // Untimed simulator points: one read of the trace feeds them all.
        var fanned = fanOut ? pending.filter { FannedOutSweep.fansOut(plan, $0.backend) && !onCurve.contains($0.index) } : []
        let fanWorkers = min(jobs, max(1, fanned.count))
        var passFigures: FannedOutSweep.PassFigures?
        // One point fans out too when lru's curve is fed beside it: one read for both.
        var feedsTogether = fanned.count > 1 || (fanned.count == 1 && curveJob != nil)
        // Or, a binary trace that fits in memory: read into it once, every point replayed from
        // it (the untimed ones each alone, one per core), where more than one read was to come.
        // Not with --no-fan-out, which asks for a read per point.
        let fannedIndices = Set(fanned.map(\.index))
        let replayedAlone = pending.filter { !onCurve.contains($0.index) && !fannedIndices.contains($0.index) }.count
        let readsToCome = replayedAlone + (feedsTogether || curveJob != nil ? 1 : 0)
        let replayed = pending.filter { !onCurve.contains($0.index) }.count
        var preloadNote: String?
        if fanOut, feedsTogether || readsToCome > 1 {
            preloadNote = try PreloadChoice.apply(
                &plan, points: replayed == 1 ? "the point was" : "the \(replayed) points were" + (fanned.isEmpty ? "" : " each"),
                how: fanned.isEmpty ? "" : ", the untimed ones alone rather than fed together from one streamed read"
            ) { [label = plan.trace.label] bytes in
                progress.begin("preload")
                progress.show("reading \(label) into memory (\(ByteCount.format(bytes)) of key records) for \(replayed) points")
            }
            if preloadNote != nil {
                progress.finish()
                (fanned, feedsTogether) = ([], false)
            }
        }
        if let curveJob, !feedsTogether { try finishCurve(curveJob, curveJob.computeAlone(plan)) }
        if feedsTogether {
            progress.begin("one read")
            let curve = curveJob
            passFigures = try FannedOutSweep.run(plan, points: fanned, workers: fanWorkers, environment: environment, curve: curve, progress: { fraction in
                progress.show("one read of \(plan.trace.label) feeding \(fanned.count + (curve == nil ? 0 : 1)) points on \(fanWorkers) cores · " + String(format: "%.0f%%", fraction * 100))
            }) { point, result in
                var result = result
                result.sweepPoint = point.index
                result.planID = self.planID
                result.pointsAtOnce = fanned.count
                let row = result.cells.map(CSVReport.field).joined(separator: ",")
                try state.finish(point, result: result, row: row) { _ in
                    try identity.write(plan)
                    try journal?.append(index: point.index, row: row)
                    try stream?.write(row)
                }
            }
            progress.finish()
            plan.applyGatheredFacts()  // the pass gave them
            let done = Set(fanned.map(\.index))
            pending.removeAll { done.contains($0.index) }
            if let curveJob, let passFigures { try finishCurve(curveJob, curveJob.pass.finish(skippedRows: passFigures.skippedRows)) }
        }
        // One worker per job, each taking the next pending point until none is left or a
        // point throws (a bad option or an unreadable trace stops the sweep; a backend
        // failure is a failed row).
        let runningPending = pending
        let planID = self.planID
        let atOnce = min(jobs, max(1, runningPending.count))
        // Each worker takes the next pending point (up to `limit`) until none is left or a
        // point throws.
        @Sendable func work(_ basePlan: RunPlan, upTo limit: Int, atOnce: Int, estimates: [Int: Double]) {
            while let point = state.next(runningPending, upTo: limit) {
                var single = basePlan
                single.backends = [point.backend]
                single.capacities = [point.capacity]
                single.firstRunIndex = point.index
                single.options.progress = nil
                single.checksMemory = false  // checked above, for the points that run at once
                single.checksBackendOptions = false  // checked for the whole sweep (RunSetup)
                do {
                    guard var result = try single.execute(environment: environment).first else { continue }
                    result.sweepPoint = point.index
                    result.planID = planID
                    result.pointsAtOnce = atOnce
                    let row = result.cells.map(CSVReport.field).joined(separator: ",")
                    try state.finish(point, result: result, row: row) { done in
                        try identity.write(single)
                        try journal?.append(index: point.index, row: row)
                        try stream?.write(row)
                        let elapsed = Double(MonotonicClock.now() - started) / 1e9
                        let left = state.secondsLeft(after: point, elapsed: elapsed, pending: runningPending, estimates: estimates)
                        progress.show(String(
                            format: "run %d/%d %@ %@ · %.0f%% · %@ left", done, state.total, point.backend.label,
                            ByteCount.format(result.capacityBytes), Double(done) / Double(state.total) * 100, ProgressLine.duration(left)))
                    }
                } catch {
                    state.fail(error)
                }
            }
        }
        var basePlan = plan
        var ranAlone = 0
        if basePlan.factsPending && !runningPending.isEmpty {
            // The trace's facts come from the first point's replay: it runs alone, and the
            // others, which need them for their rows, after it.
            work(basePlan, upTo: 1, atOnce: 1, estimates: [:])
            basePlan.applyGatheredFacts()
            ranAlone = 1
        }
        // The ETA prices each point by the plan's estimate (`SweepPlan.estimate`: requests ×
        // the backend's cost per request), not by count: a disk point costs many policy points.
        let (settledPlan, estimates) = (basePlan, pointEstimates(basePlan))
        let together = min(atOnce, max(1, runningPending.count - ranAlone))
        if state.error == nil {
            DispatchQueue.concurrentPerform(iterations: together) { _ in
                work(settledPlan, upTo: runningPending.count, atOnce: together, estimates: estimates)
            }
        }
        progress.finish()
        if let error = state.error { throw error }
        let results = state.results.sorted { $0.key < $1.key }.map(\.value)
        var rows = finished
        for (index, row) in state.rows { rows[index] = row }
        if let stream {
            try stream.file.commit()
        } else if let csvPath {
            let text = ([RunResult.columnNames.joined(separator: ",")] + points.compactMap { rows[$0.index] }).joined(separator: "\n") + "\n"
            try OutputFile.write(text, to: csvPath)
            try journal?.remove()
        }
        succeeded = true
        var notes = plan.allFactsNotes + TableReport.fallbackNotes(results)
        if together > 1 {
            notes.append("\(together) points ran at once (--jobs \(jobs)): latency, throughput and the heap and RSS columns include the other points in flight (process-wide; points_at_once in the CSV); hit ratios are exact. Without --jobs a timed sweep runs one point at a time")
        }
        if feedsTogether {
            let fed = fanned.count > 1 ? "\(fanned.count) untimed points were" : "1 untimed point was"
            let inMemory = fanned.count > 1 ? "all \(fanned.count)" : "it and lru's curve"
            notes.append("\(fed) fed from one read of the trace on \(fanWorkers) core(s), each row's counts those of its own bench run; req/s is each point's own feeding time, and the heap and RSS columns are the process's with \(inMemory) in memory (points_at_once). --no-fan-out reads the trace once per point" + (passFigures.map { $0.text.isEmpty ? "" : ". The pass: " + $0.text } ?? ""))
        }
        if let preloadNote { notes.append(preloadNote) }
        if curvePoints > 0 {
            notes.append("lru's \(curvePoints) points came from one pass of its exact miss-ratio curve (method = mattson: the same counts as replays, no time, memory or eviction figures)")
        }
        if let note = Self.repeatedCapacitiesNote(points.compactMap { rows[$0.index] }) { notes.append(note) }
        if !finished.isEmpty, let journal {
            notes.append("\(finished.count) of \(points.count) points were already finished in \(journal.path) and were not run again; the table shows the \(results.count) run now")
        }
        let anyFailed = results.contains(where: \.failed) || finished.values.contains { Self.isFailedRow($0) }
        let table = results.isEmpty ? "all \(points.count) points were already finished\n" : TableReport.render(results, environment: environment)
        return Outcome(results: results, resumedRows: finished.count, table: table, notes: notes, anyFailed: anyFailed)
    }

    /// The columns a point determines before it runs, whatever its replay measures: what
    /// a resumed row must hold to be that point's. Not compared: the measured columns, the
    /// build's (git_rev, swift_version: a resume may use another build), `command` (a
    /// resume adds --resume), `capacity_rule` (an exact curve's rows word it apart) and `preloaded`.
    /// `backend_options` (the instance's own settings) is compared where the backend can be
    /// made without side effects (`settingsWithoutReplay`); for disk backends, Belady, PFOO-L
    /// and the learned policies the fingerprint pins the options it comes from.
    static let determinedColumns = [
        "trace", "trace_sha256", "mode", "backend", "variant", "cost_model", "capacity_bytes", "capacity_spec",
        "working_set_bytes", "seed", "timing", "materialized", "memory_warning_schedule", "pixel_rules",
        "ignore_obj_size", "model_of", "device", "unique_objects", "sweep_point", "plan_id", "http_settings",
    ]

    /// A point's `backend_options` as its run writes them (the instance's `settings`, read
    /// right after it is made, as `RunPlan` and the fanned-out sweep do), for the backends
    /// that can be made without side effects: not a disk backend (it needs a cache folder),
    /// not one that needs the trace's future (Belady) or the whole replay (PFOO-L), not an
    /// opt-in one (the learned policies start a Python process each, as the fanned-out sweep
    /// also excludes them). nil for those, or when making it fails (the point then fails on
    /// its own when run). O(the backend's set-up).
    static func settingsWithoutReplay(_ made: RunPlan.PreparedPoint) -> String? {
        let kind = made.backend
        guard !kind.storesBytes, !kind.needsFuture, !kind.needsWholeReplay, !BackendRegistry.optInNames.contains(kind.name),
              let instance = try? kind.make(made.config) else { return nil }
        defer { try? instance.close() }
        return instance.settings
    }

    /// Refuses a resumed row whose determined columns (`determinedColumns`) differ from what
    /// this sweep writes for its point (a row not run by this sweep, or edited since), naming
    /// the journal line. The expected cells are those of the point's row made by
    /// `RunPlan.result` from an empty tally, written by the same writer. Needs
    /// `scanSummaries()`. O(resumed rows × columns).
    func checkResumedRows(_ journal: SweepJournal, plan: RunPlan, environment: RunEnvironment) throws {
        guard !journal.finishedRows.isEmpty else { return }
        let pricesPixels = try plan.autoPricesPixels()
        let columns = RunResult.columnNames
        var expected: [Int: [String]] = [:]
        var checked: [Int: Bool] = [:]  // points whose backend_options is compared too
        for backend in plan.backends {
            let prepared = try plan.preparedPoints(backend, trace: plan.trace, summaries: plan.knownSummaries, pricesPixels: pricesPixels, nextAccess: nil)
            for point in points where point.backend.label == backend.label && journal.finishedRows[point.index] != nil {
                guard let made = prepared.first(where: { $0.capacity == point.capacity }) else { continue }
                var result = plan.result(
                    made, tally: ReplayTally(), spread: nil, warningCost: nil, settings: "", measurement: nil, runIndex: point.index,
                    trace: plan.trace, loadSeconds: nil, environment: environment)
                result.sweepPoint = point.index
                result.planID = planID
                var cells = result.cells.map(CSVReport.field).map { CSVRowText.fields(of: $0).first ?? "" }
                if let http = columns.firstIndex(of: "http_settings") { cells[http] = CSVReport.neutralized(plan.options.http?.description ?? "") }
                if let settings = Self.settingsWithoutReplay(made), let column = columns.firstIndex(of: "backend_options") {
                    cells[column] = CSVRowText.fields(of: CSVReport.field(.text(settings))).first ?? ""
                    checked[point.index] = true
                }
                expected[point.index] = cells
            }
        }
        for (index, row) in journal.finishedRows.sorted(by: { $0.key < $1.key }) {
            guard let want = expected[index] else { continue }
            let fields = CSVRowText.fields(of: row)
            for name in Self.determinedColumns + (checked[index] == true ? ["backend_options"] : []) {
                guard let column = columns.firstIndex(of: name), column < fields.count, fields[column] != want[column] else { continue }
                let at = journal.finishedLines[index].map { "\(journal.path):\($0)" } ?? "\(journal.path) (a row carried from the results file)"
                throw WorkbenchError("\(at): the row journaled as point \(index) has \(name) \(ErrorText.quote(fields[column])), this sweep's point \(index) has \(ErrorText.quote(want[column])); the journal is damaged or edited: remove that line (the point runs again) or the file")
            }
        }
    }

    /// Each point's estimated cost (`SweepPlan.estimate`), by point index; needs the plan's
    /// summaries (`scanSummaries`). 0 for a point whose summary is missing.
    func pointEstimates(_ plan: RunPlan) -> [Int: Double] {
        let pricesPixels = (try? plan.autoPricesPixels()) ?? false
        var estimates: [Int: Double] = [:]
        for point in points {
            guard let summary = plan.knownSummaries[plan.costModel(for: point.backend, pricesPixels: pricesPixels)] else { continue }
            estimates[point.index] = SweepPlan.estimate(
                point.backend, requests: summary.requests, capacityBytes: point.capacity.resolve(workingSetBytes: summary.workingSetBytes),
                materialized: plan.options.materialize && point.backend.holdsPayloads)
        }
        return estimates
    }

    /// Where the trace's checksum and working set came from (`TraceFactsNote`), for stderr.
    public var factsNotes: [String] { plan.allFactsNotes }

    /// What a journal's identity line waiting for the trace's facts is made of.
    struct JournalIdentity: Sendable {
        let journal: SweepJournal?
        let arguments: RunSetup.Arguments
        let planID: String?
        let points: Set<Int>?

        /// Writes the journal's identity line once the trace's facts are known (before its
        /// first row; `SweepJournal.identify`). O(options).
        func write(_ plan: RunPlan) throws {
            guard let journal, !journal.identified else { return }
            var settled = plan
            settled.applyGatheredFacts()
            guard settled.traceChecksum != nil else { throw WorkbenchError("\(journal.path): the sweep's first row came before the trace's checksum") }
            try journal.identify(SweepRun.fingerprint(settled, arguments: arguments, planID: planID, points: points))
        }
    }

    /// The sweep as a plan (`SweepPlan`): every point, to be run elsewhere as shards.
    /// With `estimates`, the trace is scanned once per cost model (requests, working set)
    /// to price each point (`SweepPlan.estimate`); without, every estimate is 0.
    public func makePlan(command: [String], revision: String, estimates: Bool = true) throws -> SweepPlan {
        var plan = self.plan
        // Every point names the trace's checksum: read now when not kept (nor carried by the plan this runs).
        if plan.traceChecksum == nil { try plan.settleFacts() }
        let trace = URL(fileURLWithPath: plan.trace.label).standardizedFileURL.path
        let mode = ReplayMode(plan.options).rawValue
        let pricesPixels = estimates ? try plan.autoPricesPixels() : false
        var summaries = plan.knownSummaries  // the encoded one from the trace's facts (`RunSetup`)
        return SweepPlan(revision: revision, command: command, points: try points.map { point in
            var estimate = 0.0
            if estimates {
                let model = plan.costModel(for: point.backend, pricesPixels: pricesPixels)
                let summary = try summaries[model] ?? TraceSummary.scan(
                    plan.trace, costModel: model, rules: plan.options.pixelRules, ignoreObjectSize: plan.options.ignoreObjectSize)
                summaries[model] = summary
                estimate = SweepPlan.estimate(
                    point.backend, requests: summary.requests, capacityBytes: point.capacity.resolve(workingSetBytes: summary.workingSetBytes),
                    materialized: plan.options.materialize && point.backend.holdsPayloads)
            }
            return SweepPlan.Point(
                index: point.index, trace: trace, traceSHA256: plan.traceChecksum ?? "", backend: point.backend.label,
                capacity: point.capacity.description, seed: String(plan.seed), mode: mode, estimate: estimate)
        }, traceFacts: plan.plannableFacts)
    }

    /// A resumed row whose status column says it failed.
    static func isFailedRow(_ row: String) -> Bool {
        guard let column = RunResult.columnNames.firstIndex(of: "status") else { return false }
        let fields = CSVRowText.fields(of: row)
        return column < fields.count && fields[column] != "ok"
    }
}

/// The workers' shared state, behind one lock.
private final class SweepState: @unchecked Sendable {
    let total: Int
    let alreadyDone: Int
    private let lock = NSLock()
    private var nextPending = 0
    private(set) var results: [Int: RunResult] = [:]
    private(set) var rows: [Int: String] = [:]
    private(set) var error: Error?

    init(total: Int, alreadyDone: Int) {
        self.total = total
        self.alreadyDone = alreadyDone
    }

    /// The next of `pending` not yet taken, among its first `limit`.
    func next(_ pending: [SweepRun.Point], upTo limit: Int) -> SweepRun.Point? {
        lock.lock()
        defer { lock.unlock() }
        guard error == nil, nextPending < min(limit, pending.count) else { return nil }
        nextPending += 1
        return pending[nextPending - 1]
    }

    /// Records a finished point and, still under the lock, journals it and shows progress.
    func finish(_ point: SweepRun.Point, result: RunResult, row: String, _ report: (Int) throws -> Void) throws {
        lock.lock()
        defer { lock.unlock() }
        results[point.index] = result
        rows[point.index] = row
        try report(alreadyDone + rows.count)
    }

    /// The estimated cost replayed here so far and still to replay (`SweepPlan.estimate`).
    private var costDone = 0.0
    private var costLeft: Double?

    /// Seconds left: the cost still to replay at the rate (cost per second) of what was
    /// replayed here so far. Called from `finish`'s report, under the lock. O(1) after the
    /// first call, which sums `pending` once.
    func secondsLeft(after point: SweepRun.Point, elapsed: Double, pending: [SweepRun.Point], estimates: [Int: Double]) -> Double {
        let cost = estimates[point.index] ?? 0
        costDone += cost
        costLeft = (costLeft ?? pending.reduce(0) { $0 + (estimates[$1.index] ?? 0) }) - cost
        guard costDone > 0 else { return .nan }  // "?": nothing priced yet
        return max(0, costLeft!) * elapsed / costDone
    }

    func fail(_ failure: Error) {
        lock.lock()
        defer { lock.unlock() }
        if error == nil { error = failure }
    }
}
