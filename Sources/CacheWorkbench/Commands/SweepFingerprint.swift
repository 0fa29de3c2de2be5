import WorkbenchSimulation
import WorkbenchReports
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// What `--resume` checks before continuing a sweep's journal (`SweepJournal`, line 1):
/// every `bench sweep` option that can change a row, each under its own name, with the
/// trace's checksum, the capacities the range makes and, for a plan's run, the plan's
/// identity and the shard's points. Every option of the command is classified: in the
/// fingerprint (`fingerprintFields`), in it through the capacities
/// (`optionsThroughCapacities`), or listed with the reason it changes no row
/// (`optionsNotChangingRows`); `Trust2JournalTests` enumerates the command's options and
/// fails on one that is in none of them, so a new option cannot slip past `--resume`.
///
/// Complexity: O(options + points).
extension SweepRun {
    /// Options whose values reach the fingerprint as the capacities they make.
    public static let optionsThroughCapacities: Set<String> = ["--capacity", "--points", "--spacing"]

    /// Options that change no row, and why.
    public static let optionsNotChangingRows: [String: String] = [
        "--csv": "where the rows are written (the journal is named after it)",
        "--jobs": "how many points run at once: only the measured columns (time, memory) change, as they do between any two runs",
        "--resume": "continues the journal instead of starting one",
        "--no-fan-out": "whether untimed points share one read of the trace: their counts are the same (SweepTests.fannedOut); only the measured columns change",
        "--plan": "a plan's run carries the plan's identity in the fingerprint (plan=) instead",
        "--shard": "a shard's points are in the fingerprint (points=)",
        "--json": "refused by bench sweep",
        "--timeline": "refused by bench sweep",
        "--cache-dir": "refused by bench sweep",
        "--disagreements": "refused by bench sweep",
        "--max-line-bytes": "a longer line stops the sweep with an error, never skipped (not even with --skip-bad): a finished row is the same under any limit",
    ]

    /// The trace formats' options (`TraceFile`'s): all in the fingerprint, set or not.
    static let formatOptionNames = ["columns", "header", "delimiter", "status", "drop-query", "images-only", "har-pages", "har-view", "har-runs"]

    /// `(option, value)` for every option in the fingerprint, named as on the command line
    /// (`--images-only`), unset ones with an empty value; then the sweep's own identity.
    static func fingerprintFields(
        _ arguments: RunSetup.Arguments, trace: String, checksum: String, backends: String, capacities: String, planID: String?, points: Set<Int>?
    ) -> [(option: String, value: String)] {
        let http = arguments.http
        var fields: [(String, String)] = [
            ("--trace", trace), ("checksum", checksum), ("--format", arguments.format ?? ""), ("--backend", backends), ("capacities", capacities),
            ("--cost", arguments.cost), ("--infer-dimensions", arguments.inferDimensions ?? "url"), ("--decoded-ratio", arguments.decodedRatio ?? ""),
            ("--device", arguments.device ?? ""), ("--url-units", arguments.urlUnits ?? ""), ("--estimate", arguments.estimate ?? ""), ("--display", arguments.display ?? ""),
            ("--ignore-obj-size", flag(arguments.ignoreObjectSize)), ("--consider-obj-metadata", flag(arguments.considerObjectMetadata)), ("--use-ttl", flag(arguments.useTTL)), ("--warmup", arguments.warmup ?? ""), ("--no-timing", flag(!arguments.timing)),
            ("--no-materialize", flag(!arguments.materialize)), ("--preload", flag(arguments.preload)), ("--seed", String(arguments.seed)),
            ("--sample-every", arguments.sampleEvery.map(String.init) ?? "auto"), ("--repeat", String(arguments.repeats)),
            ("--memory-warning", arguments.memoryWarning ?? ""), ("--warning-window", arguments.warningWindow.map(String.init) ?? "auto"),
            ("--background", arguments.background ?? ""),
            ("--skip-bad", flag(arguments.skipBad)), ("--keep", flag(arguments.keep)), ("--verify", flag(arguments.verify)),
            ("--mode", http.mode), ("--http-profile", http.profile ?? ""), ("--request-policy", http.requestPolicy ?? ""),
            ("--heuristic-fraction", http.heuristicFraction ?? ""), ("--revalidation", http.revalidation ?? ""), ("--on-304", http.on304 ?? ""),
            ("--entry-share-limit", http.entryShareLimit ?? ""), ("--http-key", http.httpKey ?? ""), ("--coalesce", flag(http.coalesce)),
            ("--max-active-downloads", http.maxActiveDownloads ?? ""), ("--origin-latency", http.originLatency ?? ""),
        ]
        // Every known format and backend option, and any other the dictionaries hold.
        // The line limit changes no row (`optionsNotChangingRows`), so it is left out.
        for name in Set(formatOptionNames).union(arguments.formatOptions.keys).sorted() where name != LineLengthLimit.optionName {
            fields.append(("--" + name, arguments.formatOptions[name] ?? ""))
        }
        for name in BackendRegistry.optionNames.union(arguments.backendOptions.keys).sorted() {
            fields.append(("--" + name, arguments.backendOptions[name] ?? ""))
        }
        fields.append(("plan", planID ?? ""))
        fields.append(("points", points.map { $0.sorted().map(String.init).joined(separator: ";") } ?? "all"))
        return fields
    }

    /// The journal's first line: the fields as `name=value`, CSV-quoted, on one line (a
    /// trace path with a line break in it is escaped as a row is, `CSVRowText.escape`).
    static func fingerprint(_ plan: RunPlan, arguments: RunSetup.Arguments, planID: String? = nil, points: Set<Int>? = nil) -> String {
        let fields = fingerprintFields(
            arguments, trace: plan.trace.label, checksum: plan.traceChecksum ?? "", backends: plan.backends.map(\.label).joined(separator: ","),
            // Each backend's own (a preset's device limit differs from the list).
            capacities: capacitiesText(plan), planID: planID, points: points)
        return SweepFingerprintDifference.fingerprintPrefix + CSVRowText.escape(fields.map { CSVReport.escape("\($0.option)=\($0.value)") }.joined(separator: " "))
    }

    private static func flag(_ on: Bool) -> String { on ? "on" : "off" }

    /// The capacities as before device limits (`a;b`), each preset's device limit after it.
    private static func capacitiesText(_ plan: RunPlan) -> String {
        let limits = plan.backends.compactMap { backend in plan.presetMemoryLimits[backend.name].map { "\(backend.name)=\($0.bytes)" } }
        return (plan.capacities.map(String.init(describing:)) + limits).joined(separator: ";")
    }
}
