import WorkbenchSimulation
import WorkbenchReports
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// `bench run` as a value: the user's options checked and resolved into a `RunPlan`, then
/// executed and reported. The CLI only parses arguments into `Arguments`.
public struct RunSetup {
    /// The command line's values, as typed.
    public struct Arguments: Sendable {
        public var trace: String?
        public var format: String?
        public var formatOptions: [String: String] = [:]
        public var backends = "default"
        public var capacities = "100MB"
        /// false: `--capacity` was not given (`capacities` holds the default), so with
        /// `--device` each preset runs at its library's own memory limit on the device.
        public var capacityGiven = true
        /// `--device NAME` (`DeviceClass`): RAM for `ram:P%` capacities and the presets'
        /// limits, scale for `--url-units points`.
        public var device: String?
        /// `--url-units`: `pixels` (default) or `points` (URL sizes × the device's scale).
        public var urlUnits: String?
        /// `--display WxH@scale|recorded`: the size the app's library downsampled to.
        public var display: String?
        /// Capacities already parsed (a sweep's range); when set, `capacities` is not read.
        public var parsedCapacities: [Capacity]?
        public var cost = "auto"
        /// `url` (read dimensions from image-CDN URL conventions) or `off`; nil: not given (`url`).
        public var inferDimensions: String?
        /// Decoded bytes per encoded byte for requests without dimensions (pixel cost).
        public var decodedRatio: String?
        /// `--estimate`: the decoded-size estimate's point (`central`, `low`, `high`) or `off`; nil: central.
        public var estimate: String?
        public var ignoreObjectSize = false
        /// `--consider-obj-metadata`: libCacheSim's per-object metadata in the policies' capacity.
        public var considerObjectMetadata = false
        /// `--use-ttl`: objects expire by their requests' TTLs.
        public var useTTL = false
        /// `--warmup`: a request count (`100000`) or a share of the trace (`0.2`, `20%`).
        public var warmup: String?
        public var timing = true
        public var preload = false
        public var skipBad = false
        public var materialize = true
        public var seed: UInt64 = 1
        /// `--sample-every`; nil: scaled to the trace (`ShortTraceSampling`).
        public var sampleEvery: Int?
        /// `--repeat`: replays per point.
        public var repeats = 1
        public var backendOptions: [String: String] = [:]
        public var memoryWarning: String?
        /// `--warning-window`; nil: scaled to the trace (`ShortTraceSampling`).
        public var warningWindow: Int?
        /// `--background on|off`: replay a recording's background events (nil: on when it has them).
        public var background: String?
        /// `--disagreements FILE`: every request where a replay and the app's recorded outcome differ.
        public var disagreements: String?
        public var csv: String?
        public var json: String?
        public var timeline: String?
        public var cacheDirectory: String?
        public var keep = false
        public var verify = false
        /// `--mode` and the HTTP mode's options, as typed.
        public var http = ReplayOptionText.HTTPModeText()
        /// The command line, shell-quoted (`ShellQuoting`), for every row's `command` column.
        public var command: String?
        /// The caller needs the trace's facts before any replay (a sweep's `--resume`
        /// fingerprint, rows carried into a journal): they are read first when not kept.
        public var factsFirst = false
        /// The trace's facts a sweep plan carries (`PlannedTraceFacts`): when none are kept
        /// here, taken on trust for what needs them before the replay and checked by the
        /// replay's own read at its end, so a shard on another machine reads the trace once.
        public var plannedFacts: PlannedTraceFacts?

        public init() {}
    }

    public var plan: RunPlan
    public var csvPath: String?
    public var jsonPath: String?
    public var timelinePath: String?
    public var disagreementsPath: String?

    public init(_ arguments: Arguments) throws {
        let costModel: CostModel?
        if arguments.cost.lowercased() == "auto" {
            costModel = nil
        } else if let model = CostModel(rawValue: arguments.cost.lowercased()) {
            costModel = model
        } else {
            throw WorkbenchError("unknown cost model '\(arguments.cost)'; known: auto, \(CostModel.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        try ReplayOptionText.checkPricingApplies(
            cost: costModel, inferDimensions: arguments.inferDimensions, decodedRatio: arguments.decodedRatio, urlUnits: arguments.urlUnits,
            estimate: arguments.estimate)
        let httpSettings = try ReplayOptionText.httpSettings(arguments.http)
        let path = try arguments.trace ?? BundledTrace.path(http: httpSettings != nil)
        var file = try TraceFile(
            path: path, format: arguments.format.map(TraceFormat.named), skipBadRows: arguments.skipBad, formatOptions: arguments.formatOptions)
        if httpSettings != nil { file = try file.readingHTTPStream() }
        let outputs = [("--csv", arguments.csv), ("--json", arguments.json), ("--timeline", arguments.timeline), ("--disagreements", arguments.disagreements)]
        try OutputFile.check(outputs: outputs.compactMap { option, path in path.map { (option, $0) } }, inputs: [path])
        let device = try ReplayOptionText.device(arguments.device)
        var options = ReplayOptions()
        options.pixelRules = try ReplayOptionText.pixelRules(
            inferDimensions: arguments.inferDimensions, decodedRatio: arguments.decodedRatio, urlUnits: arguments.urlUnits, device: device,
            estimate: arguments.estimate)
        options.display = try arguments.display.map(DisplayOption.init(parsing:))
        if options.display != nil && costModel == .encoded {
            throw WorkbenchError("--display shapes decoded bitmaps: it applies to --cost pixels (or auto), not encoded")
        }
        options.timing = arguments.timing
        // A refused --cache-dir makes nothing, the trace facts cache's folder included: checked
        // before the facts are read and kept (`takeFacts`, after every other check).
        if arguments.cacheDirectory?.isEmpty == true {
            throw WorkbenchError("--cache-dir is empty; name a new folder, an empty one, or one an earlier run made")
        }
        var disk = DiskRunOptions()
        disk.cacheDirectory = arguments.cacheDirectory
        try disk.checkCacheDirectory()
        options.materialize = arguments.materialize
        options.memoryWarnings = try arguments.memoryWarning.map(MemoryWarningSchedule.init(parsing:))
        let recording = try Self.recordingFacts(file)
        options.timeline = arguments.timeline != nil
        options.ignoreObjectSize = arguments.ignoreObjectSize
        if arguments.useTTL {
            if arguments.preload { throw WorkbenchError("--use-ttl replays whole requests (their TTLs); --preload keeps key records, which have none: leave --preload out") }
            if httpSettings != nil || ReplayOptionText.honoursOperations(arguments.http) { throw WorkbenchError("--use-ttl expires a demand-fill policy's objects by the trace's TTLs; --mode http has its own freshness rules and --mode ops its own sets") }
            options.usesTTL = true
        }
        if arguments.considerObjectMetadata {
            // libCacheSim turns it off there (cli_parser.c:327–331: no size above 1), silently.
            guard !arguments.ignoreObjectSize else {
                throw WorkbenchError("--consider-obj-metadata adds metadata bytes to each object's size in a byte capacity; under --ignore-obj-size capacities count objects (libCacheSim's cachesim turns the metadata off there)")
            }
            options.considersObjectMetadata = true
        }
        options.http = httpSettings
        options.operations = ReplayOptionText.honoursOperations(arguments.http)
        if options.http != nil {
            if arguments.warmup != nil { throw WorkbenchError("--warmup does not apply to --mode http: every request's answer is counted") }
            if arguments.cacheDirectory != nil {
                throw WorkbenchError("--cache-dir does not apply to --mode http: the stored responses' headers live in the replay, so a reopened cache would have bodies without them")
            }
        }
        if options.display == .recorded && recording == nil {
            throw WorkbenchError("--display recorded takes each request's display size from an app recording, and \(path) is not one; give a size, e.g. --display 120x90@3")
        }
        try RecordedReplaySetup.apply(lifecycle: recording?.lifecycle, background: arguments.background, trace: path, to: &options)
        if arguments.disagreements != nil && !options.comparesWithApp {
            throw WorkbenchError("--disagreements lists where a replay differs from the app's recorded outcomes: it needs a recording replayed in demand-fill mode, and \(path) \(recording == nil ? "is not a recording" : "is replayed with --mode \(ReplayMode(options).rawValue)")")
        }
        let capacities = try RecordedCapacityText.capacities(
            arguments.capacities, configuration: recording?.configuration, isRecording: recording != nil, trace: path)
        let warmup = try arguments.warmup.map(ReplayOptionText.warmup)
        options.warmupRequests = warmup?.count ?? 0
        // A span of trace time is a count of the trace's first requests: read once, here.
        if let seconds = warmup?.seconds { options.warmupRequests = try TraceSummary.requests(file, within: seconds) }
        let warmupFraction = warmup?.share
        plan = RunPlan(
            trace: file, backends: try BackendRegistry.list(parsing: arguments.backends),
            capacities: try arguments.parsedCapacities ?? Capacity.list(parsing: capacities.text, device: device), options: options, preload: arguments.preload,
            traceChecksum: nil)
        plan.costModel = costModel
        // libCacheSim rates or re-inserts an object at a hit's new size in these policies, where
        // the workbench keeps the size it stored: said when the trace has such hits (one read).
        let atNewSize = plan.backends.map(\.name).filter(ObjectSizeChangeNote.policies.contains)
        if !atNewSize.isEmpty && !options.ignoreObjectSize, let note = ObjectSizeChangeNote.line(atNewSize, changes: try TraceSummary.sizeChanges(file)) {
            plan.factsNotes.append(note)
        }
        // Each backend's metadata size, or its refusal, before any row.
        if options.considersObjectMetadata {
            for backend in plan.backends {
                _ = try ObjectMetadataBytes.bytes(for: backend.name)
                if backend.variantOptions["prefetch"] != nil { throw ObjectMetadataBytes.prefetchRefusal }
            }
        }
        if options.usesTTL { for backend in plan.backends { if let refusal = ExpiryRules.refusal(for: backend.name) { throw refusal } } }
        plan.knownPricesPixels = try plan.autoPricesPixels()
        plan.device = device
        if let device, !arguments.capacityGiven {
            plan.defaultCapacityRule = "no --capacity: the default \(arguments.capacities) (only the presets have a library limit on \(device.name))"
            for backend in plan.backends {
                if let preset = TierPreset.named(backend.name) { plan.presetMemoryLimits[backend.name] = preset.memoryLimit(device) }
            }
        }
        if arguments.parsedCapacities == nil, let rule = capacities.rule { plan.defaultCapacityRule = rule }
        plan.backendOptions = arguments.backendOptions
        plan.seed = arguments.seed
        plan.warmupFraction = warmupFraction
        plan.command = arguments.command
        guard (1...1_000).contains(arguments.repeats) else { throw WorkbenchError("--repeat must be from 1 to 1000, not \(arguments.repeats)") }
        if arguments.repeats > 1 && arguments.cacheDirectory != nil {
            throw WorkbenchError("--repeat replays each point from a fresh cache; --cache-dir reopens one, so they do not go together")
        }
        plan.repeats = arguments.repeats
        plan.disk = disk  // its folder checked above, before the facts were kept
        plan.disk.keep = arguments.keep
        plan.disk.verify = arguments.verify
        if arguments.cacheDirectory != nil, Set(plan.backends.map(\.name)).count < plan.backends.count {
            throw WorkbenchError("--cache-dir keeps one folder per backend: list one variant of each")
        }
        if arguments.cacheDirectory != nil && plan.capacities.count > 1 {
            throw WorkbenchError("--cache-dir takes one capacity: each replay would start from the previous one's files")
        }
        try plan.checkBackendOptions()
        if let split = try HARRunSplit.of(file, httpMode: httpSettings != nil) {
            plan.harRuns = split
            if split.mode == .cold {
                // A cold run starts empty: nothing is warmed, and no folder is reopened.
                if arguments.warmup != nil { throw WorkbenchError("--warmup does not apply to --har-runs cold: each run starts from an empty cache, as the recording tool loaded it; use --har-runs visits to warm one cache") }
                if arguments.cacheDirectory != nil { throw WorkbenchError("--cache-dir reopens a warm folder, and --har-runs cold starts each run from an empty cache; use --har-runs visits") }
                plan.coldRuns = split.ranges
            }
        }
        try Self.takeFacts(file, into: &plan, arguments: arguments, httpMode: httpSettings != nil, recording: recording != nil)
        csvPath = arguments.csv
        jsonPath = arguments.json
        timelinePath = arguments.timeline
        disagreementsPath = arguments.disagreements
    }

    /// The trace's checksum and working set (`TraceFacts`) and the short-trace sampling rule
    /// they scale, once every option is checked (a refused command reads nothing for them):
    /// kept from an earlier read; else gathered by the first replay's read (`TraceFactsPass`)
    /// when nothing needs them before it (`factsWaitForReplay`), the sampling rule then from
    /// the first `ShortTraceSampling.countLimit` requests; else read now, and kept.
    static func takeFacts(_ file: TraceFile, into plan: inout RunPlan, arguments: Arguments, httpMode: Bool, recording: Bool) throws {
        let cache = TraceFactsCache.standard()
        let reading = TraceFactsCache.reading(file)
        var obtained = TraceFacts.kept(file, cache: cache)
        // A plan's facts, when none are kept here: trusted until the replay's read checks them.
        var planned: TraceFacts?
        if obtained == nil, let carried = arguments.plannedFacts, let identity = TraceFileIdentity.of(path: file.path) {
            if let refusal = carried.refusal(identity, reading: reading) { throw TraceError(path: file.path, line: nil, reason: refusal) }
            if try factsWaitForReplay(plan, arguments: arguments, httpMode: httpMode, recording: recording, summaryKnown: true),
               let pass = TraceFactsPass(file, cache: cache) {
                pass.expected = carried.facts(for: identity)
                (plan.factsPass, planned) = (pass, pass.expected)
            }
        }
        if obtained == nil, planned == nil, try factsWaitForReplay(plan, arguments: arguments, httpMode: httpMode, recording: recording),
           let pass = TraceFactsPass(file, cache: cache) {
            plan.factsPass = pass
        } else if obtained == nil, planned == nil {
            obtained = try TraceFacts.obtain(file, cache: cache)
        }
        // Not given: scaled to a short trace (its replayed requests, up to a bound: from the
        // facts, except in --mode http, which counts HEAD requests too and reads a HAR).
        let counted: Int
        if arguments.sampleEvery != nil && arguments.warningWindow != nil {
            counted = ShortTraceSampling.countLimit
        } else if !httpMode, let summary = (obtained?.facts ?? planned)?.summary {
            counted = min(summary.requests - summary.droppedZeroSize, ShortTraceSampling.countLimit)
        } else {
            counted = try ShortTraceSampling.countRequests(file, httpMode: httpMode)
        }
        let sampling = ShortTraceSampling(requests: counted, sampleEvery: arguments.sampleEvery, warningWindow: arguments.warningWindow)
        plan.options.sampling = sampling
        plan.options.memorySampleInterval = sampling.sampleEvery
        plan.options.warningWindow = sampling.warningWindow
        if let obtained {
            plan.traceChecksum = obtained.facts.sha256
            plan.knownSummaries[.encoded] = obtained.facts.summary(ignoreObjectSize: plan.options.ignoreObjectSize)
            plan.factsNotes = TraceFactsNote.lines(obtained, trace: file.path)
            plan.plannableFacts = PlannedTraceFacts(obtained.facts, reading: reading)
        } else if let planned {
            plan.traceChecksum = planned.sha256
            plan.knownSummaries[.encoded] = planned.summary(ignoreObjectSize: plan.options.ignoreObjectSize)
            plan.factsNotes = [TraceFactsNote.fromPlan(planned, trace: file.path)]
            plan.plannableFacts = arguments.plannedFacts
        } else if plan.factsPass == nil {
            plan.traceChecksum = try TraceChecksum.sha256(path: file.path)  // a file whose identity cannot be taken
        }
    }

    /// Whether the trace's facts can wait for the first replay's read: nothing before the
    /// replay needs the working set or the request count. Not with `%` capacities or
    /// `--warmup` as a share (the working set, the count), a pixel cost model or a backend
    /// holding materialized payloads (their working set, the memory check before the run),
    /// `--preload` (its read into memory comes first), `--mode http`, a recording or a
    /// HAR's runs, or when the caller needs them first (`factsFirst`). O(backends).
    /// With `summaryKnown` (a plan's facts, `PlannedTraceFacts`), the working set and the
    /// request count are known before the replay: `%` capacities and shares may wait too.
    static func factsWaitForReplay(_ plan: RunPlan, arguments: Arguments, httpMode: Bool, recording: Bool, summaryKnown: Bool = false) throws -> Bool {
        guard !arguments.factsFirst, !httpMode, !recording, plan.harRuns == nil, !plan.preload,
              summaryKnown || (plan.warmupFraction == nil && !plan.capacities.contains(where: \.needsWorkingSet)) else { return false }
        let pricesPixels = try plan.autoPricesPixels()
        return plan.backends.allSatisfy { backend in
            plan.costModel(for: backend, pricesPixels: pricesPixels) == .encoded && !(plan.options.materialize && backend.holdsPayloads)
        }
    }

    /// A recording's lifecycle events and cache configuration (`AppRecordingReader.facts`,
    /// read with the trace's own options so positions count the replayed requests); nil
    /// for a trace of any other format. O(file).
    static func recordingFacts(_ file: TraceFile) throws -> (lifecycle: [RecordedLifecycleEvent], configuration: RecordedCacheConfiguration?)? {
        guard file.format.name == "app-recording" else { return nil }
        let facts = try AppRecordingReader.facts(path: file.path, options: ReadOptions(
            keepKeyNames: false, skipBadRows: file.skipBadRows, formatOptions: file.formatOptions, maxLineBytes: file.maxLineBytes))
        return (facts.lifecycle, facts.configuration)
    }

    public struct Outcome {
        public var results: [RunResult]
        public var table: String
        /// Where the trace's checksum and working set came from (`TraceFactsNote`), said
        /// after the run (before it, a refusal would no longer be one line).
        public var factsNotes: [String] = []
        public var anyFailed: Bool { results.contains(where: \.failed) }
        /// Requests priced by the encoded-size fallback under pixel cost, per run: said on
        /// stderr as well as under the table and in the CSV.
        public var fallbackNotes: [String] {
            TableReport.fallbackNotes(results)
        }
    }

    public func execute(progress: ProgressLine) throws -> Outcome {
        // Before any work: a second run writing the same file is refused at once (`OutputLock`).
        let locks = try OutputLock.claim([csvPath, jsonPath, timelinePath, disagreementsPath])
        defer { withExtendedLifetime(locks) {} }
        let environment = RunEnvironment.current()
        var plan = self.plan
        plan.options.progress = { progress.update($0) }
        // Points in run order (one backend label each), for "k/N" and the ETA.
        let order = plan.backends.flatMap { backend in plan.capacities(for: backend).map { _ in backend.label } }
        var eta = PointETA()
        var started = MonotonicClock.now()
        var point = 0
        let rows = try csvPath.map(FinishedRowsCSV.init(path:))
        let results = try plan.execute(environment: environment, notice: progress.note, willRun: { backend, capacity in
            point += 1
            started = MonotonicClock.now()
            let label = "\(backend.label) \(ByteCount.format(capacity))"
            if order.count > 1 {
                progress.begin("\(point)/\(order.count) " + label, secondsAfter: eta.seconds(for: order.dropFirst(point)))
            } else {
                progress.begin(label)
            }
        }, didFinish: { result in
            eta.finished(backend: order[min(point, order.count) - 1], seconds: Double(MonotonicClock.now() - started) / 1e9)
            try rows?.append(result)
        })
        progress.finish()
        try rows?.finish()
        if let jsonPath { try OutputFile.write(JSONReport.render(results, environment: environment), to: jsonPath) }
        if let timelinePath { try OutputFile.write(TimelineReport.render(results), to: timelinePath) }
        if let disagreementsPath { try OutputFile.write(AgreementReport.csv(results), to: disagreementsPath) }
        return Outcome(results: results, table: TableReport.render(results, environment: environment), factsNotes: plan.allFactsNotes)
    }
}
