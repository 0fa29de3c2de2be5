import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// One command's worth of replays: every backend at every capacity over one trace, in
/// that order, each from the start of the trace.
public struct RunPlan: Sendable {
    public var trace: any Trace
    public var backends: [BackendKind]
    public var capacities: [Capacity]
    /// Timing, sampling, warnings, timeline. Its cost model is replaced per backend when
    /// `costModel` is nil, and `materialize` applies to backends that hold payloads.
    public var options: ReplayOptions
    /// nil = auto: `pixels` for backends that hold payloads when the pixel rules price the
    /// trace's images (`pricesPixels`: a decoded image is what a memory cache holds),
    /// `encoded` otherwise.
    public var costModel: CostModel?
    /// Backend options by name (`key-hash` → `cf`); each backend takes the ones it knows.
    public var backendOptions: [String: String] = [:]
    /// Read the whole trace into memory first, so replays measure cache work only.
    public var preload: Bool
    /// SHA-256 of the trace file (or nil for a trace made in memory), for the results.
    public var traceChecksum: String?
    /// Seed for randomized backends, recorded in the results.
    public var seed: UInt64 = 1
    /// Folders for the disk backends.
    public var disk = DiskRunOptions()
    /// `--warmup` as a share of the replayed requests (resolved on the trace); a count goes
    /// straight into `options.warmupRequests`.
    public var warmupFraction: Double?
    /// The index of this plan's first run in its run ids (a sweep runs one point per plan).
    public var firstRunIndex = 0
    /// Working-set scans already made, by cost model (a sweep scans once for all points).
    public var knownSummaries: [CostModel: TraceSummary] = [:]
    /// Where the trace's checksum and working set came from when that is worth saying
    /// (the cache, and when; a cache that could not be written), for stderr (`TraceFactsNote`).
    public var factsNotes: [String] = []
    /// The trace's facts still to come from the first replay's read (`TraceFactsPass`):
    /// set by `RunSetup` when no fact is needed before the replay and none is kept. Until
    /// the pass finishes, `traceChecksum` is nil and `knownSummaries` lacks the encoded
    /// summary; no row is made before (`execute` applies them after its first replay).
    public var factsPass: TraceFactsPass?
    /// The trace's facts as a sweep plan carries them (`SweepPlan.traceFacts`), once known
    /// before the replay (kept, read first, or from the plan this runs); nil otherwise.
    public var plannableFacts: PlannedTraceFacts?
    /// `autoPricesPixels()` once asked, so the trace's first chunk is read for it once.
    public var knownPricesPixels: Bool?
    /// Seconds the trace took to read into memory when `preloadTrace()` already did it.
    public var loadSeconds: Double?
    /// Replays per point (`--repeat`): timing figures are the median over them.
    public var repeats = 1
    /// `--device` without `--capacity`: each preset's own memory limit on the device, by
    /// backend name; those backends run at it instead of `capacities`.
    public var presetMemoryLimits: [String: DeviceMemoryLimit] = [:]
    /// `--device` without `--capacity`: what the other backends' default capacity rests on.
    public var defaultCapacityRule: String?
    /// `--device`, recorded in every row.
    public var device: DeviceClass?
    /// `--har-runs cold` (`HARRunSplit`): each run's requests as positions in the trace, each
    /// run replayed from a fresh backend and the row combined over them (`ColdRuns`); nil
    /// replays the trace whole.
    public var coldRuns: [Range<Int>]?
    /// A HAR with two or more runs: how they are replayed (`--har-runs`), for every row; nil
    /// for any other trace.
    public var harRuns: HARRunSplit?

    /// The capacities `backend` runs at: its preset's device limit, else `capacities`.
    public func capacities(for backend: BackendKind) -> [Capacity] {
        presetMemoryLimits[backend.name].map { [.bytes($0.bytes)] } ?? capacities
    }
    /// The command line that made the plan (the `command` column), shell-quoted.
    public var command: String?

    public init(
        trace: any Trace, backends: [BackendKind], capacities: [Capacity], options: ReplayOptions = ReplayOptions(),
        preload: Bool = false, traceChecksum: String? = nil
    ) {
        self.trace = trace
        self.backends = backends
        self.capacities = capacities
        self.options = options
        self.costModel = nil
        self.preload = preload
        self.traceChecksum = traceChecksum
    }

    /// Every given option must be taken by at least one chosen backend.
    public func checkBackendOptions() throws {
        for name in backendOptions.keys.sorted() where !backends.contains(where: { $0.options.contains { $0.name == name } }) {
            let takers = BackendRegistry.all.filter { $0.options.contains { $0.name == name } }.map(\.name)
            throw WorkbenchError("--\(name) applies to \(takers.joined(separator: ", ")), and none of those backends was chosen")
        }
    }

    /// Runs every replay; `willRun` is told before each (for progress labels).
    public func execute(
        environment: RunEnvironment, notice: (String) -> Void = { _ in }, willRun: (BackendKind, Int) -> Void = { _, _ in },
        didFinish: (RunResult) throws -> Void = { _ in }
    ) throws -> [RunResult] {
        if checksBackendOptions { try checkBackendOptions() }
        let keepKeyNames = keepsKeyNames
        var plan = self
        plan.applyGatheredFacts()  // given by an earlier pass (a sweep's first point, its fanned-out read)
        if preload { try plan.preloadTrace() }
        // Several replays of a binary trace that fits in memory: one read into it for all.
        let replays = backends.count * capacities.count * max(1, repeats)
        let points = backends.count * capacities.count
        if replays > 1, coldRuns == nil,
           let note = try PreloadChoice.apply(&plan, points: points == 1 ? "its \(replays) repeats were each" : "the \(points) points were each") {
            notice(note)
        }
        let trace = plan.trace
        let loadSeconds = plan.loadSeconds
        let pricesPixels = try autoPricesPixels()
        if options.http != nil { try Self.checkHTTPFacts(trace) }
        if options.operations { try Self.checkOperations(trace) }
        // Offline policies read the future: one pass for every request's next access.
        let nextAccess = backends.contains(where: \.needsFuture) ? try NextAccess.compute(trace) : nil
        let runTraces = try coldRuns.map { try Self.runTraces(trace, ranges: $0, keepKeyNames: keepKeyNames) }
        var results: [RunResult] = []
        // The facts come from the first replay's read only when it streams the trace file
        // itself; a preloaded trace or cold runs (read into memory above) read them apart.
        if plan.factsPending && (plan.loadSeconds != nil || runTraces != nil) { try plan.settleFacts() }
        // Every row carries the trace's unique objects (the ceiling), so the trace is scanned once per cost model.
        try plan.scanSummaries()
        if checksMemory {
            for line in try plan.largeShareNotes() { notice(line) }  // said first: a refusal below rests on them
            try plan.checkMaterializedMemory(concurrent: 1)
        }
        for backend in backends {
            let warmed = { (count: Int) in try TraceSummary.uniqueKeys(trace, firstRequests: count) }
            for prepared in try plan.preparedPoints(backend, trace: trace, summaries: plan.knownSummaries, pricesPixels: pricesPixels, nextAccess: nextAccess, warmedKeys: warmed) {
                // Prepared before the first replay gave the facts, when it did: the row's summary now.
                var point = plan.withKnownSummary(prepared)
                willRun(backend, point.bytes)
                // `--repeat K`: K independent replays of the point; the row keeps the median
                // of each timing figure (`RepeatSpread`), the counts of the first (all equal).
                var runs: [ReplayOnce] = []
                for _ in 0..<max(1, repeats) {
                    // The first replay's reader gives the trace's facts (`factsPass`).
                    let gathering = plan.factsPass.flatMap { $0.isOpen ? $0 : nil }
                    let run = try replayPoint(
                        backend, config: point.config, capacity: point.bytes, options: point.options, trace: trace, runs: runTraces,
                        keepKeyNames: keepKeyNames, gathering: gathering)
                    runs.append(run)
                    if let gathering {
                        try gathering.finish()
                        plan.applyGatheredFacts()
                        point = plan.withKnownSummary(point)
                    }
                    if run.tally.failure != nil { break }
                }
                let combined = RepeatSpread.combine(runs.map(\.tally))
                var tally = combined.0
                let cost = try warningCost(of: tally, backend, config: point.config, capacity: point.bytes, options: point.options, trace: trace, runs: runTraces, keepKeyNames: keepKeyNames)
                if case .failure(let reason) = cost { tally.failure = reason }
                results.append(plan.result(
                    point, tally: tally, spread: combined.1, warningCost: cost.measured, settings: runs[0].settings,
                    measurement: runs[runs.count - 1].measurement, runIndex: firstRunIndex + results.count,
                    trace: trace, loadSeconds: loadSeconds, environment: environment))
                // Cold runs: each run's first request for an object is compulsory.
                if let runTraces, !options.operations { results[results.count - 1].compulsoryMisses = runTraces.reduce(0) { $0 + $1.uniqueObjects } }
                try didFinish(results[results.count - 1])
            }
        }
        return results
    }

    /// One point of the plan made ready to replay: its backend's configuration and the
    /// replay's options, as every replay of it (and a fanned-out sweep) uses them.
    package struct PreparedPoint {
        package var backend: BackendKind
        package var capacity: Capacity
        package var bytes: Int
        var model: CostModel
        var summary: TraceSummary
        package var config: BackendConfig
        package var options: ReplayOptions
        var warmedKeys: Int
    }

    /// `backend`'s points (its capacities), resolved against the trace's working set under
    /// its cost model. Needs `scanSummaries()` first (`summaries`). `warmedKeys` counts the
    /// distinct keys of the first N requests (a scan of them unless the caller remembers).
    package func preparedPoints(
        _ backend: BackendKind, trace: any Trace, summaries: [CostModel: TraceSummary], pricesPixels: Bool, nextAccess: NextAccess?,
        warmedKeys: (Int) throws -> Int = { _ in 0 }
    ) throws -> [PreparedPoint] {
        let model = costModel(for: backend, pricesPixels: pricesPixels)
        let capacities = capacities(for: backend)
        // Facts still to come from the pass: an empty summary until then (`withKnownSummary`
        // replaces it before any row is made; RunSetup defers only byte capacities).
        guard let summary = summaries[model] ?? (factsPending && model == .encoded ? TraceSummary() : nil) else {
            throw WorkbenchError("\(trace.label): no working-set scan under --cost \(model.rawValue) was made before its points")
        }
        if summary.workingSetBytes == 0, capacities.contains(where: \.needsWorkingSet) {
            throw WorkbenchError("\(trace.label): a % capacity needs a working set, but the trace has no request with a size above 0")
        }
        var runOptions = options
        runOptions.costModel = model
        runOptions.seed = seed
        if let warmupFraction {
            runOptions.warmupRequests = Int((Double(summary.requests - summary.droppedZeroSize) * warmupFraction).rounded(.down))
        }
        runOptions.materialize = options.materialize && backend.holdsPayloads
        // A preset's library decodes, downsamples and pads its own way (pixel cost only).
        runOptions.bitmap = model == .pixels ? TierPreset.named(backend.name).map { BitmapPricing(bitmap: $0.bitmap, display: options.display) } : nil
        // Warned runs keep each request's outcome, for the counterfactual of `warningCost`;
        // every run of a trace short enough keeps them for the report's paired test.
        let counted = summary.requests - summary.droppedZeroSize - runOptions.warmupRequests
        runOptions.recordOutcomes = options.memoryWarnings != nil || counted <= OutcomeBits.pairedRequestLimit
        if factsPending && options.memoryWarnings == nil {
            // The count comes with the facts, after the replay: kept until past the limit.
            runOptions.recordOutcomes = true
            runOptions.outcomesUpTo = OutcomeBits.pairedRequestLimit
        }
        let warmedKeys = runOptions.warmupRequests > 0 ? try warmedKeys(runOptions.warmupRequests) : 0
        return capacities.map { capacity in
            let bytes = capacity.resolve(workingSetBytes: summary.workingSetBytes)
            var config = BackendConfig(capacityBytes: bytes, seed: seed, options: backendOptions)
            let (ignoreSize, pricesPixels, rules, bitmap) = (runOptions.ignoreObjectSize, model == .pixels, runOptions.pixelRules, runOptions.bitmap)
            config.memoryCost = { ReplayOptions.price($0, ignoreObjectSize: ignoreSize, pricesPixels: pricesPixels, rules: rules, bitmap: bitmap).cost }
            config.diskCost = { ignoreSize ? 1 : $0.size }
            config.countsObjects = ignoreSize
            config.considersObjectMetadata = runOptions.considersObjectMetadata
            config.usesTTL = runOptions.usesTTL
            config.materialize = runOptions.materialize
            if backend.needsFuture { config.nextAccess = nextAccess }
            return PreparedPoint(
                backend: backend, capacity: capacity, bytes: bytes, model: model, summary: summary, config: config,
                options: runOptions, warmedKeys: warmedKeys)
        }
    }

    /// The row of a replayed point.
    package func result(
        _ point: PreparedPoint, tally: ReplayTally, spread: RepeatSpread?, warningCost: WarningCost?, settings: String,
        measurement: DiskMeasurement?, runIndex: Int, trace: any Trace, loadSeconds: Double?, environment: RunEnvironment
    ) -> RunResult {
        var tally = tally
        tally.latencyRecorders = nil  // summarized; a histogram per row would add up in a sweep
        // Kept for the `outcome_bits` cell when they cover every counted request within the
        // limit (a warned run's past it were kept for the counterfactual alone).
        if tally.outcomes.count != tally.requests || tally.requests > OutcomeBits.pairedRequestLimit || tally.failure != nil {
            tally.outcomes = OutcomeBits()
        }
        let backend = point.backend
        // Under --mode ops a first request may be a set, and a get of a key never set
        // always misses: "misses no cache avoids" is not the first-request count, so
        // compulsory_misses is left empty rather than wrong.
        var result = RunResult(
            runID: environment.runID(index: runIndex), trace: trace.label, traceChecksum: traceChecksum,
            mode: ReplayMode(options), httpSettings: options.http, backend: backend.name, backendOptions: settings, variant: backend.variant, holdsPayloads: backend.holdsPayloads,
            costModel: point.model, pixelRules: options.pixelRules, materialized: point.options.materialize, capacity: point.capacity, capacityBytes: point.bytes,
            workingSetBytes: point.summary.workingSetBytes, seed: seed, timing: options.timing,
            memoryWarningSchedule: options.memoryWarnings, warningWindow: options.warningWindow,
            ignoreObjectSize: options.ignoreObjectSize, loadSeconds: loadSeconds, tally: tally,
            environment: environment, disk: measurement, verify: disk.verify, spread: spread,
            warningCost: warningCost, sampling: options.sampling, sampleEvery: max(1, options.memorySampleInterval),
            capacityRule: presetMemoryLimits[backend.name].map { "\(backend.name)'s memory limit: \($0.rule)" } ?? point.capacity.deviceRule ?? defaultCapacityRule, device: device?.name, uniqueObjects: point.summary.uniqueKeys, compulsoryMisses: options.operations ? nil : point.summary.uniqueKeys - point.warmedKeys, command: command)
        result.harRuns = harRuns
        result.flagOptions = backendOptions
            .filter { name, _ in backend.options.contains { $0.name == name } && backend.variantOptions[name] == nil }
            .sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ";")
        return result
    }

    /// The row of an lru point read off the exact curve (`method` mattson) instead of
    /// replayed: `measured` is the curve's point at `bytes`. O(1).
    package func curvePointResult(
        index: Int, capacity: Capacity, bytes: Int, backend: String, measured: LRUMissRatioCurve.Point,
        curve: LRUMissRatioCurve.Result, environment: RunEnvironment
    ) -> RunResult {
        var tally = ReplayTally()
        tally.traceRequests = curve.traceRequests + curve.droppedZeroSize + curve.skippedRows
        tally.requests = curve.requests
        tally.hits = measured.hits
        tally.requestedBytes = curve.requestedBytes
        tally.hitBytes = measured.hitBytes
        tally.tooLarge = measured.tooLarge
        tally.droppedZeroSize = curve.droppedZeroSize
        tally.skippedRows = curve.skippedRows
        var result = RunResult(
            runID: environment.runID(index: index), trace: trace.label, traceChecksum: traceChecksum,
            mode: .demandFill, backend: backend, backendOptions: "", holdsPayloads: false, costModel: .encoded,
            pixelRules: options.pixelRules, materialized: false, capacity: capacity, capacityBytes: bytes,
            workingSetBytes: knownSummaries[.encoded]?.workingSetBytes, seed: seed, timing: false, memoryWarningSchedule: nil,
            ignoreObjectSize: options.ignoreObjectSize, loadSeconds: loadSeconds, tally: tally, environment: environment)
        result.method = "mattson"
        result.capacityRule = capacity.deviceRule
        result.device = device?.name
        result.uniqueObjects = curve.uniqueKeys  // no warm-up here: every first request is compulsory
        result.compulsoryMisses = curve.uniqueKeys
        result.command = command
        result.harRuns = harRuns  // replayed as visits (cold points are replays of their own)
        return result
    }

    /// Refuses, before any replay, a plan whose materialized points would hold more payload
    /// memory than the machine has available, `concurrent` points at a time
    /// (`MaterializedMemoryEstimate`). Needs `scanSummaries()` first.
    public func checkMaterializedMemory(concurrent: Int) throws {
        guard options.materialize, backends.contains(where: \.holdsPayloads) else { return }
        let pricesPixels = try autoPricesPixels()
        try materializedPeak(pricesPixels: pricesPixels, concurrent: concurrent)
            .check(availableBytes: MaterializedMemoryEstimate.availableBytes(), preloadedTrace: preload)
    }

    /// A `%` capacity that resolves to more than 1 GiB, said in bytes before the run starts
    /// (1% of a decoded working set can be far more memory than a user expects), once per
    /// share and cost model. Needs `scanSummaries()` first.
    public func largeShareNotes() throws -> [String] {
        let pricesPixels = try autoPricesPixels()
        var notes: [String] = []
        for backend in backends {
            let model = costModel(for: backend, pricesPixels: pricesPixels)
            guard let workingSet = knownSummaries[model]?.workingSetBytes, !options.ignoreObjectSize else { continue }
            for capacity in capacities(for: backend) where capacity.needsWorkingSet {
                let bytes = capacity.resolve(workingSetBytes: workingSet)
                guard bytes > 1 << 30 else { continue }
                let note = "\(capacity) of the trace's working set under --cost \(model.rawValue) (\(ByteCount.format(workingSet))) is \(ByteCount.format(bytes)) (\(bytes) bytes)"
                if !notes.contains(note) { notes.append(note) }
            }
        }
        return notes
    }

    /// The payload memory this plan's materialized points hold at their peak, `concurrent` at a time.
    func materializedPeak(pricesPixels: Bool, concurrent: Int) -> MaterializedMemoryEstimate {
        var points: [MaterializedMemoryEstimate.Point] = []
        for backend in backends where options.materialize && backend.holdsPayloads {
            guard let workingSet = knownSummaries[costModel(for: backend, pricesPixels: pricesPixels)]?.workingSetBytes else { continue }
            for capacity in capacities(for: backend) {
                let bytes = capacity.resolve(workingSetBytes: workingSet)
                points.append(.init(label: "\(backend.label) at \(capacity)", bytes: ByteTotal(bytes) < workingSet ? bytes : Int(clamping: workingSet)))
            }
        }
        return MaterializedMemoryEstimate(points: points, concurrent: concurrent)
    }

    /// False for a sweep's single-point plans: the sweep checks all its points at once.
    public var checksMemory = true
    /// False for a sweep's one-backend point plans: the sweep checked the options against all
    /// its backends (`--purge-target` taken by autopurge is no error at lru's point).
    public var checksBackendOptions = true

    /// The counterfactual of a warned point (`WarningCost`): the same replay without warnings,
    /// untimed (its counts are what is compared, and a replay's counts do not depend on
    /// timing), from a fresh backend. Not made for an unwarned or failed run, nor with
    /// `--cache-dir` (the warned run changed the folder the counterfactual would reopen).
    private func warningCost(
        of warned: ReplayTally, _ backend: BackendKind, config: BackendConfig, capacity bytes: Int, options warnedOptions: ReplayOptions,
        trace: any Trace, runs: [InMemoryTrace]?, keepKeyNames: Bool
    ) throws -> CounterfactualOutcome {
        guard warnedOptions.memoryWarnings != nil, warned.failure == nil else { return .notMade }
        guard disk.cacheDirectory == nil || !backend.storesBytes else { return .notMade }
        var options = warnedOptions
        options.memoryWarnings = nil
        options.comparesWithApp = false  // the counterfactual is measured, not checked against the app
        options.timing = false
        options.timeline = false
        options.progress = nil
        options.recordOutcomes = true
        let run = try replayPoint(backend, config: config, capacity: bytes, options: options, trace: trace, runs: runs, keepKeyNames: keepKeyNames)
        if let failure = run.tally.failure { return .failure("the replay without warnings (to measure their cost) failed: \(failure)") }
        return .measured(WarningCost(warned: warned, counterfactual: run.tally))
    }

    enum CounterfactualOutcome {
        case notMade
        case measured(WarningCost)
        case failure(String)

        var measured: WarningCost? {
            if case .measured(let cost) = self { return cost }
            return nil
        }
    }

    /// One replay's tally, the backend's settings and, for a disk backend, its I/O.
    struct ReplayOnce {
        var tally = ReplayTally()
        var settings = ""
        var measurement: DiskMeasurement?
    }

    /// Replays the trace once (`replayOnce`), or under `--har-runs cold` each run once, each
    /// against a fresh backend (and folder), combined into one tally (`ColdRuns`). An offline
    /// policy gets each run's own next accesses: a run's replay counts positions from its start.
    private func replayPoint(
        _ backend: BackendKind, config: BackendConfig, capacity bytes: Int, options: ReplayOptions, trace: any Trace, runs: [InMemoryTrace]?,
        keepKeyNames: Bool, gathering: TraceFactsPass? = nil
    ) throws -> ReplayOnce {
        guard let runs else {
            return try replayOnce(backend, config: config, capacity: bytes, options: options, trace: trace, keepKeyNames: keepKeyNames, gathering: gathering)
        }
        var options = options
        options.keepsLatencyRecorders = true
        var parts: [ReplayOnce] = []
        for run in runs {
            var config = config
            if backend.needsFuture { config.nextAccess = try NextAccess.compute(run) }
            let part = try replayOnce(backend, config: config, capacity: bytes, options: options, trace: run, keepKeyNames: keepKeyNames)
            parts.append(part)
            if part.tally.failure != nil { break }
        }
        var combined = ReplayOnce()
        combined.tally = ColdRuns.combine(parts.map(\.tally))
        combined.settings = parts.first?.settings ?? ""
        combined.measurement = ColdRuns.combine(parts.map(\.measurement))
        return combined
    }

    /// Each run of `ranges` as a trace of its own, in memory (read once for every point).
    static func runTraces(_ trace: any Trace, ranges: [Range<Int>], keepKeyNames: Bool) throws -> [InMemoryTrace] {
        let whole = try InMemoryTrace.load(trace, keepKeyNames: keepKeyNames)
        guard ranges.first?.lowerBound == 0, ranges.last?.upperBound == whole.requests.count else {
            throw WorkbenchError("\(trace.label): its runs were found among \(ranges.last?.upperBound ?? 0) requests, and the replay reads \(whole.requests.count)")
        }
        return ranges.map { InMemoryTrace(label: trace.label, requests: Array(whole.requests[$0]), skippedRows: whole.skippedRows) }
    }

    /// Replays the trace once against a fresh backend (a fresh folder for a disk backend).
    /// With `gathering`, the trace is read through the facts pass (`TraceFactsPass`), and the
    /// time it spent summarizing chunks is left out of the replay's wall time.
    private func replayOnce(
        _ backend: BackendKind, config: BackendConfig, capacity bytes: Int, options runOptions: ReplayOptions, trace: any Trace, keepKeyNames: Bool,
        gathering: TraceFactsPass? = nil
    ) throws -> ReplayOnce {
        var config = config
        var run = ReplayOnce()
        var folder: DiskRunOptions.Folder?
        defer { folder.map(disk.release) }  // after the measurement below, or on a throw
        do {
            if backend.storesBytes {
                let made = try disk.folder(for: backend.name)
                folder = made
                config.disk = DiskContext(
                    directory: made.path, probe: DiskIOProbe(failWritesAfterBytes: disk.failWritesAfterBytes), verify: disk.verify)
            }
            let instance = try backend.make(config)
            run.settings = instance.settings
            let summarizedBefore = gathering?.summarizingNanoseconds ?? 0
            let source = try gathering?.open(keepKeyNames: keepKeyNames) ?? trace.open(keepKeyNames: keepKeyNames)
            let replayer = Replayer(source: source, capacity: bytes, options: runOptions)
            run.tally = try instance.replay(with: replayer)
            if let gathering {
                run.tally.wallSeconds = max(0, run.tally.wallSeconds - Double(gathering.summarizingNanoseconds - summarizedBefore) / 1e9)
            }
            do {
                try instance.close()
            } catch {
                run.tally.failure = run.tally.failure ?? String(describing: error)
            }
        } catch let error as TraceError {
            throw error
        } catch let error as WorkbenchError {
            throw error  // a bad option: every run of this backend would fail the same way
        } catch let error as Interrupted {
            throw error  // SIGINT/SIGTERM: the command stops; the folder goes in the defer above
        } catch {
            run.tally.failure = String(describing: error)
        }
        if let folder, let probe = config.disk?.probe {
            var info = stat()
            run.measurement = DiskMeasurement(
                folder: folder.path, kept: !folder.temporary || disk.keep, io: backend.probesIO ? probe.totals : nil,
                footprintBytes: DiskFootprint.allocatedBytes(under: folder.path),
                createdFolders: folder.missing.filter { lstat($0, &info) == 0 })
        }
        return run
    }

    /// Whether requests keep their key text: backends that store by name need it, so does
    /// reading image-URL conventions under pixel cost, and so does the HTTP mode (a
    /// profile's key is made from the URL), and so do a recording's disagreements with the app
    /// (listed by key).
    package var keepsKeyNames: Bool {
        backends.contains { $0.needsKeyNames } || (mayPricePixels && (options.pixelRules.inferFromURL || options.pixelRules.needsImageType))
            || options.http != nil || options.comparesWithApp
    }

    /// Reads the trace into memory now (once for many plans made from this one).
    /// A binary trace whose facts are still to come gives them in the same read
    /// (`TraceFactsPass`): one read, not two.
    public mutating func preloadTrace() throws {
        guard loadSeconds == nil else { return }
        let started = MonotonicClock.now()
        if let pass = factsPass, pass.isOpen, let bytes = try InMemoryTrace.packedBytes(trace),
           let packed = try InMemoryTrace.packed(from: try pass.open(keepKeyNames: false), count: bytes / MemoryLayout<KeyRecord>.stride, label: trace.label) {
            trace = packed
            try pass.finish(rowsReadBeside: false)
            applyGatheredFacts()
        } else {
            trace = try InMemoryTrace.preload(trace, keepKeyNames: keepsKeyNames)
        }
        loadSeconds = Double(MonotonicClock.now() - started) / 1e9
        preload = false
    }

    /// Scans the trace once per cost model the backends use, when a capacity or the warm-up
    /// needs the working set, and keeps the scans for `execute`.
    /// Once for all points: every row carries the trace's unique objects.
    public mutating func scanSummaries() throws {
        let pricesPixels = try autoPricesPixels()
        for backend in backends {
            let model = costModel(for: backend, pricesPixels: pricesPixels)
            if knownSummaries[model] == nil && !(model == .encoded && factsPending) {
                knownSummaries[model] = try TraceSummary.scan(trace, costModel: model, rules: options.pixelRules, ignoreObjectSize: options.ignoreObjectSize)
            }
        }
    }

    /// The facts are still to come from the pass (`factsPass`).
    public var factsPending: Bool { factsPass.map { $0.facts == nil } ?? false }

    /// The pass's facts in the plan, once it has them: the checksum and encoded summary the
    /// rows carry. O(1).
    public mutating func applyGatheredFacts() {
        guard let pass = factsPass, let facts = pass.facts, traceChecksum == nil else { return }
        traceChecksum = facts.sha256
        plannableFacts = PlannedTraceFacts(facts, reading: TraceFactsCache.reading(pass.file))
        knownSummaries[.encoded] = facts.summary(ignoreObjectSize: options.ignoreObjectSize)
    }

    /// The facts now, from a read of their own when the pass has not given them (a step that
    /// needs them before any replay: writing a plan, a preloaded trace). O(file) then, else O(1).
    public mutating func settleFacts() throws {
        if let pass = factsPass, pass.facts == nil { try pass.finish() }
        applyGatheredFacts()
    }

    /// `point` with the working-set summary its model now has (after the pass), for its row.
    package func withKnownSummary(_ point: PreparedPoint) -> PreparedPoint {
        var point = point
        if let summary = knownSummaries[point.model] { point.summary = summary }
        return point
    }

    /// What the command says on stderr about the trace's facts: where they came from, and
    /// what the pass said (`TraceFactsPass.notes`).
    public var allFactsNotes: [String] { factsNotes + (factsPass?.notes ?? []) }

    /// Whether `--cost auto` prices pixels (`pricesPixels(_:rules:)`, a read of the trace's
    /// first chunk), asked only when no cost model was given and a backend holds payloads:
    /// the other backends' rows are encoded either way, so a plan of simulators reads
    /// nothing for it. Remembered once known (`knownPricesPixels`, set by `RunSetup`).
    package func autoPricesPixels() throws -> Bool {
        guard costModel == nil, backends.contains(where: \.holdsPayloads) else { return false }
        if let knownPricesPixels { return knownPricesPixels }
        return try Self.pricesPixels(trace, rules: options.pixelRules)
    }

    /// Whether some row may price pixels: asked for, or `auto` with a backend that holds
    /// payloads (whose URL conventions and image types then need the key's text).
    var mayPricePixels: Bool {
        costModel.map { $0 == .pixels } ?? backends.contains(where: \.holdsPayloads)
    }

    /// The cost model a backend's rows use: the one asked for, else pixels for backends
    /// that hold payloads when the pixel rules price the trace's images (`pricesPixels`),
    /// else encoded.
    package func costModel(for backend: BackendKind, pricesPixels: Bool) -> CostModel {
        costModel ?? (backend.holdsPayloads && pricesPixels ? .pixels : .encoded)
    }

    /// `--mode http` answers from recorded responses: the trace must have them (HAR).
    static func checkHTTPFacts(_ trace: any Trace) throws {
        guard let chunk = try trace.open(keepKeyNames: false).nextChunk(), chunk.contains(where: { $0.http != nil }) else {
            throw WorkbenchError("\(trace.label): --mode http needs recorded responses with their headers (a HAR trace, or `bench gen --format har`); this trace has none")
        }
    }

    /// `--mode ops` honours each request's op: the trace must say them (a reader that reads
    /// ops: twitter, cachelib, lcs v2+, vscsi, a CSV with an op column).
    package static func checkOperations(_ trace: any Trace) throws {
        let source = try trace.open(keepKeyNames: false)
        _ = try source.nextChunk()  // a CSV knows its columns after its first line
        guard source.carriesOperations else {
            throw WorkbenchError("\(trace.label): --mode ops needs a trace that says each request's op (get, set, delete: twitter, cachelib, lcs version 2 or later, vscsi, or a CSV with an op column); this one does not")
        }
    }

    /// Whether `--cost auto` charges memory backends decoded bitmaps: the trace's first
    /// requests include one the pixel rules price by more than its encoded size's fallback —
    /// its dimensions, a recorded cost, a URL convention, a ratio or the decoded-size estimate
    /// (issue 43: an image without dimensions is no longer charged its encoded size, 16–37×
    /// below its bitmap; the notes say how many rows rest on which rule). O(first chunk).
    static func pricesPixels(_ trace: any Trace, rules: PixelCostRules) throws -> Bool {
        guard let chunk = try trace.open(keepKeyNames: rules.inferFromURL || rules.needsImageType).nextChunk() else { return false }
        return chunk.contains { $0.hasDimensions || rules.cost(of: $0).source != .encoded }
    }
}
