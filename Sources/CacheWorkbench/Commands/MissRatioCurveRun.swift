import WorkbenchSimulation
import WorkbenchReports
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// `bench mrc`: resolves the policy, the method and the capacities against the trace, runs
/// the curve (and, on request, the exact curve beside a sampled one to measure its error),
/// and renders the table and the CSV. The CLI only fills `Arguments`.
///
/// Methods: `exact` — for lru one pass of stack distances (`LRUMissRatioCurve`), for any
/// other policy a full replay per capacity (`PolicyMissRatioCurve.exact`); `shards` — lru
/// only, at a fixed rate or a fixed sample size, SHARDS_adj unless `--no-adjust`;
/// `minisim` — any policy (`PolicyMissRatioCurve.miniSim`). Without `--method`: lru exact;
/// others exact up to `exactRequestLimit` requests, else MiniSim at `defaultMiniSimRate`;
/// a `--sampling-rate` below 1 alone picks shards for lru and minisim for the others.
public struct MissRatioCurveRun {
    public struct Arguments {
        public var trace: String?
        public var format: String?
        public var skipBad = false
        public var formatOptions: [String: String] = [:]
        /// One policy or several, comma-separated (their curves come from one read).
        public var policy = "lru"
        /// `--method exact|shards|minisim`; nil = the default above.
        public var method: String?
        /// `--capacity`: a list (as `bench run`); nil = `points` log-spaced.
        public var capacities: String?
        /// `--device NAME`: its RAM for `ram:P%` capacities.
        public var device: String?
        public var points = 100
        public var ignoreObjectSize = false
        /// `--sampling-rate`: nil = the method's default.
        public var samplingRate: String?
        /// `--sample-size N`: fixed-size SHARDS.
        public var sampleSize: String?
        /// SHARDS_adj (false: `--no-adjust`).
        public var adjust = true
        /// Also compute the exact curve and report the sampled one's error against it.
        public var againstExact = false
        public var csv: String?
        /// `--jobs`: cores the curves' simulators are spread over (nil: every core).
        public var jobs: Int?

        public init() {}
    }

    public struct Outcome {
        public var table: String
        public var notes: [String]
    }

    public enum Method: String, Sendable { case exact, shards, minisim }

    /// Non-lru policies replay exactly (one replay per capacity) up to this many requests.
    public static let exactRequestLimit = 1_000_000
    /// Above it, MiniSim at this rate (libCacheSim's mrcProfiler example rate).
    public static let defaultMiniSimRate = 0.01

    /// One curve whatever computed it: per capacity, what the table and the CSV show.
    struct Curve {
        var kind: BackendKind
        var method: Method
        var rate: Double
        struct Row {
            var capacity: Int
            var simulatedCapacity: Int
            var hits: Int
            var objectMiss: Double
            var byteMiss: Double
            var tooLarge: Int
        }
        var rows: [Row]
        var traceRequests: Int
        var sampledRequests: Int
        var sizeChanges = 0
        var skippedRows = 0
        /// SHARDS at a fixed size: its largest sample set and its final rate.
        var largestSampleSet: Int?
        var finalRate: Double?
    }

    private let arguments: Arguments
    private let trace: TraceFile
    private let path: String
    /// The policies, in the order given.
    private let kinds: [BackendKind]
    private let requestedMethod: Method?
    private let rate: Double?
    private let sampleSize: Int?
    private let workers: Int

    /// Whether `kind` is plain LRU, whose curve comes from stack distances.
    private static func isLRU(_ kind: BackendKind) -> Bool { kind.name == "lru" && kind.variant.isEmpty }

    public init(_ arguments: Arguments) throws {
        let kinds = try BackendRegistry.list(parsing: arguments.policy)
        guard !kinds.isEmpty, kinds.allSatisfy({ $0.name == "lru" || BackendRegistry.policyNames.contains($0.name) }) else {
            throw WorkbenchError("--policy \(ErrorText.quote(arguments.policy)): give policies of `bench list --group policies` (lru, fifo, s3fifo, arc, …), comma-separated")
        }
        var seen = Set<String>()
        for kind in kinds where !seen.insert(kind.label).inserted { throw WorkbenchError("--policy names \(kind.label) twice") }
        self.kinds = kinds
        let others = kinds.filter { !Self.isLRU($0) }
        let hasLRU = others.count < kinds.count
        guard (2...10_000).contains(arguments.points) else { throw WorkbenchError("--points must be from 2 to 10000, not \(arguments.points)") }
        requestedMethod = try arguments.method.map { text in
            guard let method = Method(rawValue: text.lowercased()) else { throw WorkbenchError("--method must be exact, shards or minisim, not \(ErrorText.quote(text))") }
            return method
        }
        rate = try arguments.samplingRate.map(ReplayOptionText.samplingRate)
        sampleSize = try arguments.sampleSize.map(ReplayOptionText.sampleSize)
        if let jobs = arguments.jobs, jobs < 1 { throw WorkbenchError("--jobs must be at least 1, not \(jobs)") }
        workers = arguments.jobs ?? CurveFanOut.defaultWorkers
        self.arguments = arguments
        path = try arguments.trace ?? BundledTrace.path()
        trace = try TraceFile(path: path, format: arguments.format.map(TraceFormat.named), skipBadRows: arguments.skipBad, formatOptions: arguments.formatOptions)
        if let csv = arguments.csv { try OutputFile.check(outputs: [("--csv", csv)], inputs: [path]) }
        // Checks that need no trace: the method's options.
        if sampleSize != nil, rate != nil { throw WorkbenchError("--sample-size and --sampling-rate: give one (SHARDS at a fixed size adapts its rate)") }
        if requestedMethod == .shards, let other = others.first {
            throw WorkbenchError("--method shards follows LRU stack distances; for \(other.label) use --method minisim or exact")
        }
        if sampleSize != nil, !(others.isEmpty && (requestedMethod ?? .shards) == .shards) {
            throw WorkbenchError("--sample-size is fixed-size SHARDS (lru alone, --method shards)")
        }
        if requestedMethod == .exact, rate != nil { throw WorkbenchError("--method exact samples nothing: drop --sampling-rate") }
        if !arguments.adjust, !(hasLRU && (requestedMethod == .shards || (requestedMethod == nil && (sampleSize != nil || (rate ?? 1) < 1)))) {
            throw WorkbenchError("--no-adjust applies to SHARDS (lru, --method shards)")
        }
        if requestedMethod == .minisim || (requestedMethod == nil && !others.isEmpty && rate != nil) {
            try Self.checkMiniSimRate(rate ?? Self.defaultMiniSimRate)
        }
    }

    /// MiniSim scales misses by ⌊1/R⌋ (libCacheSim's `sampling_ratio_inv`): R must be 1/k.
    static func checkMiniSimRate(_ rate: Double) throws {
        let inverse = 1 / rate
        guard abs(inverse - inverse.rounded()) <= 1e-9 * inverse else {
            throw WorkbenchError("--sampling-rate \(rate): MiniSim keeps 1 key in 1/R (libCacheSim's spatial sampler), so 1/R must be whole (0.1, 0.01, 0.001, 0.5, 1)")
        }
    }

    /// The method and rate that run for `kind`, on a trace of `requests` requests.
    func resolvedMethod(_ kind: BackendKind, requests: Int) -> (Method, Double) {
        let isLRU = Self.isLRU(kind)
        switch requestedMethod {
        case .exact: return (.exact, 1)
        case .shards: return (.shards, rate ?? (sampleSize != nil ? 1 : Self.defaultMiniSimRate))
        case .minisim: return (.minisim, rate ?? Self.defaultMiniSimRate)
        case nil:
            if isLRU { return sampleSize != nil || (rate ?? 1) < 1 ? (.shards, rate ?? 1) : (.exact, 1) }
            if let rate { return rate < 1 ? (.minisim, rate) : (.exact, 1) }
            return requests <= Self.exactRequestLimit ? (.exact, 1) : (.minisim, Self.defaultMiniSimRate)
        }
    }

    public func execute(progress: ProgressLine) throws -> Outcome {
        let cache = TraceFactsCache.standard()
        var obtained = TraceFacts.kept(trace, cache: cache)
        var gathered: (pass: TraceFactsPass, predicted: [(Method, Double)], curves: [Curve], seconds: Double)?
        if obtained == nil, let read = try gatherFactsWithCurves(cache: cache, progress: progress) {
            gathered = read
        } else if obtained == nil {
            // The working set the capacities are shares of, or the request count a method
            // rests on, before the curves: one read that also keeps them for the next command.
            progress.begin("scan \(path)")
            obtained = try TraceFacts.obtain(trace, cache: cache)
            progress.finish()
        }
        let summary = try gathered.map { try $0.pass.finish().summary(ignoreObjectSize: arguments.ignoreObjectSize) }
            ?? obtained?.facts.summary(ignoreObjectSize: arguments.ignoreObjectSize)
            ?? TraceSummary.scan(trace, costModel: .encoded, ignoreObjectSize: arguments.ignoreObjectSize)
        guard summary.requests > summary.droppedZeroSize else { throw WorkbenchError("\(path): no request with a size above 0") }
        try Self.checkTreeSums(summary, ignoreObjectSize: false, path: path)  // `summary` counts 1 per object with it
        let capacities = try resolveCapacities(summary)
        let methods = kinds.map { resolvedMethod($0, requests: summary.requests - summary.droppedZeroSize) }
        if arguments.againstExact && methods.allSatisfy({ $0.0 == .exact }) {
            throw WorkbenchError("--against-exact compares a sampled curve: give --method shards or minisim, --sampling-rate below 1 or --sample-size")
        }
        let started = MonotonicClock.now()
        var curves: [Curve]
        var seconds: Double
        if let gathered {
            curves = gathered.curves
            // A method guessed from the reader's count that the facts overturn (a trace of
            // more records than `exactRequestLimit`, but not of non-zero sizes): that curve
            // again, by the rule's method, from a read of its own.
            let wrong = methods.indices.filter { methods[$0] != gathered.predicted[$0] }
            if !wrong.isEmpty {
                let again = try compute(wrong.map { methods[$0] }, kinds: wrong.map { kinds[$0] }, capacities: capacities, summary: summary, progress: progress)
                for (index, curve) in zip(wrong, again) { curves[index] = curve }
            }
            seconds = gathered.seconds + Double(MonotonicClock.now() - started) / 1e9
        } else {
            curves = try compute(methods, capacities: capacities, summary: summary, progress: progress)
            seconds = Double(MonotonicClock.now() - started) / 1e9
        }
        var exact: [Curve]?
        if arguments.againstExact {
            // The exact curves of the sampled ones (an exact one is its own reference).
            let sampled = methods.indices.filter { methods[$0].0 != .exact }
            let references = try compute(sampled.map { _ in (Method.exact, 1.0) }, kinds: sampled.map { kinds[$0] }, capacities: capacities, summary: summary, progress: progress)
            exact = curves
            for (index, reference) in zip(sampled, references) { exact![index] = reference }
        }
        var notes = (obtained.map { TraceFactsNote.lines($0, trace: path) } ?? []) + (gathered?.pass.notes ?? [])
        for curve in curves where curve.sizeChanges > 0 {
            notes.append("\(curve.kind.label): \(curve.sizeChanges) requests change their key's size: the curve uses each request's own size, a replay keeps the stored size on a hit, so up to that many outcomes can differ from `bench run`")
        }
        if let skipped = curves.first?.skippedRows, skipped > 0 { notes.append("\(skipped) malformed rows skipped (--skip-bad)") }
        notes += try givenCapacities()?.compactMap(\.deviceRule) ?? []
        if let csv = arguments.csv { try OutputFile.write(csvText(curves, summary: summary, exact: exact), to: csv) }
        return Outcome(table: tableText(curves, summary: summary, exact: exact, seconds: seconds), notes: notes)
    }

    /// The trees sum live sizes in Ints: refused when unique keys × the largest size could
    /// pass 2^63 (before any curve when the facts are known, else at the chunk that gets there).
    static func checkTreeSums(_ summary: TraceSummary, ignoreObjectSize: Bool, path: String) throws {
        guard LRUMissRatioCurve.sumsFit(summary, ignoreObjectSize: ignoreObjectSize) else {
            throw WorkbenchError("\(path): \(summary.uniqueKeys) keys of up to \(summary.largestSize) bytes could sum above 2^63 bytes; curves are limited to that")
        }
    }

    /// The first command on a file version (no facts kept) whose curves need nothing of the
    /// whole trace before they start: capacities given, none a share of the working set; no
    /// offline policy (they read the trace on their own); each method known without the
    /// request count, or guessed from the reader's count of records (a fixed-size binary
    /// format's is exact; checked once the facts are in, `execute`). The curves' read then
    /// gives the facts (`TraceFactsPass`), and the command reads the trace once. nil when
    /// this does not apply: the facts are read first. O(one read).
    private func gatherFactsWithCurves(
        cache: TraceFactsCache?, progress: ProgressLine
    ) throws -> (pass: TraceFactsPass, predicted: [(Method, Double)], curves: [Curve], seconds: Double)? {
        guard let given = try givenCapacities(), !given.contains(where: \.needsWorkingSet), !arguments.againstExact,
              !kinds.contains(where: { $0.needsFuture || $0.needsWholeReplay }),
              let pass = TraceFactsPass(trace, cache: cache, rowsMeasureMemory: false) else { return nil }
        let countFree = requestedMethod != nil || rate != nil
        let source = try pass.open(keepKeyNames: kinds.contains { !Self.isLRU($0) && $0.needsKeyNames })
        let records = source.expectedCount
        guard countFree || kinds.allSatisfy(Self.isLRU) || records != nil else { return nil }
        // Any count past `exactRequestLimit` guesses the same; nothing is read yet.
        let predicted = kinds.map { resolvedMethod($0, requests: records ?? 0) }
        let capacities = try resolveCapacities(TraceSummary())
        let started = MonotonicClock.now()
        let curves = try compute(
            predicted, capacities: capacities, summary: nil,
            reading: OpenedTrace(label: trace.label, source: BoundedSource(source, pass: pass, ignoreObjectSize: arguments.ignoreObjectSize, path: path)),
            progress: progress)
        // The facts' own work (summarizing chunks, hashing bytes) ran on the reading thread
        // between the curves' blocks: not the curves' time.
        let nanoseconds = MonotonicClock.now() - started
        return (pass, predicted, curves, Double(nanoseconds - min(nanoseconds, pass.summarizingNanoseconds)) / 1e9)
    }

    /// The curves of `kinds` (all the policies by default) by `methods`: LRU's stack distances
    /// and online policies' replays from one read (`CurveFanOut`), offline policies after it.
    /// `summary` nil: the facts come from this read (`gatherFactsWithCurves`), which
    /// `reading` then is; the trees are sized as the reader guesses.
    private func compute(
        _ methods: [(Method, Double)], kinds: [BackendKind]? = nil, capacities: [Int], summary: TraceSummary?, reading: (any Trace)? = nil,
        progress: ProgressLine
    ) throws -> [Curve] {
        let kinds = kinds ?? self.kinds
        let stage = { (text: String) in progress.finish(); progress.begin(text) }
        defer { progress.finish() }
        var jobs: [CurveFanOut.Job] = []
        var fed: [Int] = []  // the policies fed from the shared read, in job order
        for (index, kind) in kinds.enumerated() {
            let (method, rate) = methods[index]
            if Self.isLRU(kind), method != .minisim {
                let sampled = method == .shards
                let expectedKeys = summary.map { summary in
                    (sampled ? sampleSize : nil).map { min($0, summary.uniqueKeys) } ?? Int(Double(summary.uniqueKeys) * min(1, rate * 1.1))
                }
                jobs.append(.stackDistances(
                    capacities: capacities, samplingRate: sampled ? rate : 1, sampleSize: sampled ? sampleSize : nil, adjusted: arguments.adjust,
                    expectedRequests: summary?.requests, expectedKeys: expectedKeys.map { $0 + 16 }))
                fed.append(index)
            } else if !kind.needsFuture && !kind.needsWholeReplay {
                jobs.append(.replays(kind, capacities: capacities, rate: rate))
                fed.append(index)
            }
        }
        var curves = [Curve?](repeating: nil, count: kinds.count)
        if !jobs.isEmpty {
            progress.begin("curves")
            let results = try CurveFanOut.run(
                jobs, trace: reading ?? trace, ignoreObjectSize: arguments.ignoreObjectSize, workers: workers, stage: stage,
                progress: { fraction in progress.show(fraction.map { String(format: "%.0f%%", $0 * 100) } ?? "") })
            for (index, result) in zip(fed, results) {
                curves[index] = curve(result, kind: kinds[index], method: methods[index].0, rate: methods[index].1)
            }
        }
        // Offline policies (their requests' next accesses first) and PFOO-L: a replay per capacity.
        for (index, kind) in kinds.enumerated() where curves[index] == nil {
            let (method, rate) = methods[index]
            let result = method == .exact
                ? try PolicyMissRatioCurve.exact(kind, trace: trace, capacities: capacities, ignoreObjectSize: arguments.ignoreObjectSize, stage: stage)
                : try PolicyMissRatioCurve.miniSim(kind, trace: trace, capacities: capacities, rate: rate, ignoreObjectSize: arguments.ignoreObjectSize, stage: stage)
            curves[index] = curve(.replays(result), kind: kind, method: method, rate: rate)
        }
        return curves.map { $0! }
    }

    /// A computed curve as the table and the CSV show it.
    private func curve(_ result: CurveFanOut.Curve, kind: BackendKind, method: Method, rate: Double) -> Curve {
        switch result {
        case let .stackDistances(result):
            var curve = Curve(
                kind: kind, method: method, rate: rate,
                rows: result.points.map { point in
                    .init(capacity: point.capacity, simulatedCapacity: point.capacity, hits: point.hits, objectMiss: result.objectMissRatio(point) ?? 0,
                          byteMiss: result.byteMissRatio(point) ?? 0, tooLarge: point.tooLarge)
                },
                traceRequests: result.traceRequests, sampledRequests: result.requests, sizeChanges: result.sizeChanges, skippedRows: result.skippedRows)
            if result.sampleSize != nil {
                curve.largestSampleSet = result.largestSampleSet
                curve.finalRate = result.finalRate
            }
            return curve
        case let .replays(result):
            return Curve(
                kind: kind, method: method, rate: rate,
                rows: result.points.map { point in
                    .init(capacity: point.capacity, simulatedCapacity: point.simulatedCapacity, hits: point.hits,
                          objectMiss: result.objectMissRatio(point) ?? 0, byteMiss: result.byteMissRatio(point) ?? 0, tooLarge: point.tooLarge)
                },
                traceRequests: result.traceRequests, sampledRequests: result.sampledRequests, skippedRows: result.skippedRows)
        }
    }

    /// The sentence under the table saying what ran for `curve`'s policy.
    private func describe(_ curve: Curve) -> String {
        let kind = curve.kind
        let isLRU = Self.isLRU(kind)
        let chosen = requestedMethod == nil ? " (default for \(kind.label)\(isLRU ? "" : " on \(curve.traceRequests) requests: exact up to \(Self.exactRequestLimit)"))" : ""
        switch curve.method {
        case .exact where isLRU:
            return "exact LRU stack distances\(chosen): \(curve.sampledRequests) requests"
        case .exact:
            let fed = kind.needsFuture || kind.needsWholeReplay ? "" : ", all from one read"
            return "exact: one full \(kind.label) replay per capacity\(chosen): \(curve.traceRequests) requests each\(fed)"
        case .shards:
            let adjusted = arguments.adjust ? "SHARDS_adj" : "plain SHARDS (no adjustment)"
            if let sampleSize {
                return "\(adjusted) with a fixed sample size of \(sampleSize) keys\(chosen): \(curve.sampledRequests) of \(curve.traceRequests) requests sampled, at most \(curve.largestSampleSet ?? 0) keys held, final rate \(String(format: "%.6g", curve.finalRate ?? 1))"
            }
            return "\(adjusted) at rate \(curve.rate)\(chosen): \(curve.sampledRequests) of \(curve.traceRequests) requests sampled"
        case .minisim:
            return "MiniSim (\(kind.label)) at rate \(curve.rate)\(chosen): \(curve.sampledRequests) of \(curve.traceRequests) requests sampled, one mini cache of capacity × \(curve.rate) per capacity, misses × \(KeySampling.inverse(of: curve.rate))"
        }
    }

    /// `--capacity` parsed (nil when not given). O(capacities).
    private func givenCapacities() throws -> [Capacity]? {
        try arguments.capacities.map { try Capacity.list(parsing: $0, device: ReplayOptionText.device(arguments.device)) }
    }

    private func resolveCapacities(_ summary: TraceSummary) throws -> [Int] {
        var values: [Int]
        if let given = try givenCapacities() {
            values = given.map { $0.resolve(workingSetBytes: summary.workingSetBytes) }
        } else {
            // Log-spaced from 1/10,000 of the working set (at least 1) to all of it.
            let top = Double(min(summary.workingSetBytes, ByteTotal(SizeLimits.largestCapacity)))
            let bottom = max(1, top / 10_000)
            values = (0..<arguments.points).map { step in
                Int((bottom * pow(top / bottom, Double(step) / Double(arguments.points - 1))).rounded())
            }
        }
        values = Array(Set(values.map { max(1, $0) })).sorted()
        return values
    }

    private func unit(_ capacity: Int) -> String { arguments.ignoreObjectSize ? "\(capacity) obj" : ByteCount.format(capacity) }

    /// A ratio as the run table prints it (`TableReport.percent`: two decimals and `%`); the
    /// CSV keeps the ratio itself.
    private func percent(_ ratio: Double) -> String { TableReport.percent(ratio) }

    private func share(_ capacity: Int, _ summary: TraceSummary) -> Double { Double(capacity) / summary.workingSetBytes.asDouble }

    private func tableText(_ curves: [Curve], summary: TraceSummary, exact: [Curve]?, seconds: Double) -> String {
        let several = curves.count > 1
        let width = max(8, (curves.map(\.kind.label.count).max() ?? 0) + 2)
        var lines = [(several ? "policy".padding(width) : "") + "capacity".padding(16) + "of WS".padding(9, left: true) + "miss ratio".padding(12, left: true)
                     + "byte miss".padding(12, left: true) + "too large".padding(11, left: true) + (exact != nil ? "exact miss".padding(12, left: true) : "")]
        var errorLines: [String] = []
        for (number, curve) in curves.enumerated() {
            var errors: [Double] = []
            for (index, row) in curve.rows.enumerated() {
                var line = (several ? curve.kind.label.padding(width) : "") + unit(row.capacity).padding(16)
                    + String(format: "%.3f%%", share(row.capacity, summary) * 100).padding(9, left: true)
                    + percent(row.objectMiss).padding(12, left: true)
                    + percent(row.byteMiss).padding(12, left: true) + String(row.tooLarge).padding(11, left: true)
                if let exact {
                    let reference = exact[number].rows[index].objectMiss
                    errors.append(abs(row.objectMiss - reference))
                    line += percent(reference).padding(12, left: true)
                }
                lines.append(line)
            }
            if !errors.isEmpty, curve.method != .exact {
                let mean = errors.reduce(0, +) / Double(errors.count)
                errorLines.append(String(format: "%@error against the exact curve: mean %.5f, max %.5f (absolute object miss ratio, %d capacities)",
                                         several ? "\(curve.kind.label): " : "", mean, errors.max() ?? 0, errors.count))
            }
        }
        lines.append("")
        let workingSet = arguments.ignoreObjectSize ? "\(summary.workingSetBytes) objects" : ByteCount.format(summary.workingSetBytes)
        let count = curves[0].rows.count
        if several {
            lines.append("trace \(path): working set \(workingSet); \(curves.count) policies at \(count) capacities in \(String(format: "%.2f", seconds)) s")
            for curve in curves { lines.append("\(curve.kind.label): \(describe(curve))") }
        } else {
            lines.append("trace \(path): \(describe(curves[0])); working set \(workingSet); \(count) capacities in \(String(format: "%.2f", seconds)) s")
        }
        lines += errorLines
        return lines.joined(separator: "\n") + "\n"
    }

    private func csvText(_ curves: [Curve], summary: TraceSummary, exact: [Curve]?) -> String {
        var lines = ["trace,policy,method,sampling_rate,ignore_obj_size,capacity_bytes,capacity_share,requests,sampled_requests,hits,object_miss_ratio,byte_miss_ratio,too_large,size_changes,exact_object_miss_ratio,sample_size,shards_adjusted,simulated_capacity"]
        let name = CSVReport.escape(path)
        for (number, curve) in curves.enumerated() {
            let method = curve.method
            let methodName = switch method {
            case .exact: Self.isLRU(curve.kind) ? "mattson" : "replay"
            case .shards: "shards"
            case .minisim: "minisim"
            }
            for (index, row) in curve.rows.enumerated() {
                let exactMiss = exact.map { String($0[number].rows[index].objectMiss) } ?? ""
                let cells: [String] = [  // typed: untyped, this literal took the type checker 1.4 s
                    name, CSVReport.escape(curve.kind.label), methodName, String(method == .shards && sampleSize != nil ? curve.finalRate ?? 1 : curve.rate),
                    arguments.ignoreObjectSize ? "true" : "false",
                    String(row.capacity), String(share(row.capacity, summary)), String(curve.traceRequests), String(curve.sampledRequests),
                    String(row.hits), String(row.objectMiss), String(row.byteMiss),
                    String(row.tooLarge), String(curve.sizeChanges), exactMiss,
                    method == .shards ? sampleSize.map(String.init) ?? "" : "", method == .shards ? (arguments.adjust ? "true" : "false") : "",
                    String(row.simulatedCapacity),
                ]
                lines.append(cells.joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A reader already opened, handed to `CurveFanOut` as the trace it opens once (the facts
/// pass's reader in `MissRatioCurveRun.gatherFactsWithCurves`).
private final class OpenedTrace: Trace, @unchecked Sendable {
    let label: String
    private var source: (any RequestSource)?

    init(label: String, source: any RequestSource) { (self.label, self.source) = (label, source) }

    func open(keepKeyNames: Bool) throws -> any RequestSource {
        guard let source else { throw WorkbenchError("\(label): the curves' reader was opened twice") }
        self.source = nil
        return source
    }
}

/// The facts pass's reader, stopped by the chunk after which the curves' trees could sum
/// above 2^63 bytes (`MissRatioCurveRun.checkTreeSums` on the requests read so far, counted
/// before the chunk is returned), so no curve is fed past it. O(1) per chunk.
private final class BoundedSource: RequestSource {
    let source: any RequestSource
    let pass: TraceFactsPass
    /// The pass summarizes encoded sizes; the curves count each object as 1 with it.
    let ignoreObjectSize: Bool
    let path: String

    init(_ source: any RequestSource, pass: TraceFactsPass, ignoreObjectSize: Bool, path: String) {
        (self.source, self.pass, self.ignoreObjectSize, self.path) = (source, pass, ignoreObjectSize, path)
    }

    func nextChunk() throws -> ArraySlice<Request>? {
        guard let chunk = try source.nextChunk() else { return nil }
        if let sofar = pass.summarySoFar { try MissRatioCurveRun.checkTreeSums(sofar, ignoreObjectSize: ignoreObjectSize, path: path) }
        return chunk
    }

    var progress: Double? { source.progress }
    var skippedRows: Int { source.skippedRows }
    var expectedCount: Int? { source.expectedCount }
}
