import Foundation

/// `bench mrc`: resolves the capacities against the trace, runs the one-pass curve (and,
/// on request, the exact curve beside a sampled one to measure SHARDS' error), and renders
/// the table and the CSV. The CLI only fills `Arguments`.
public struct MissRatioCurveRun {
    public struct Arguments {
        public var trace: String?
        public var format: String?
        public var skipBad = false
        public var formatOptions: [String: String] = [:]
        public var policy = "lru"
        /// `--capacity`: a list (as `bench run`); nil = `points` log-spaced.
        public var capacities: String?
        /// `--device NAME`: its RAM for `ram:P%` capacities.
        public var device: String?
        public var points = 100
        public var ignoreObjectSize = false
        /// `--sampling-rate`: 1 = exact; below 1 = SHARDS.
        public var samplingRate = "1"
        /// Also compute the exact curve and report the sampled one's error against it.
        public var againstExact = false
        public var csv: String?

        public init() {}
    }

    public struct Outcome {
        public var table: String
        public var notes: [String]
    }

    private let arguments: Arguments
    private let trace: TraceFile
    private let path: String
    private let samplingRate: Double

    public init(_ arguments: Arguments) throws {
        guard arguments.policy.lowercased() == "lru" else {
            throw WorkbenchError("--policy \(ErrorText.quote(arguments.policy)): one-pass curves exist for lru (stack distances); for other policies run `bench run --backend NAME --capacity LIST`")
        }
        guard (2...10_000).contains(arguments.points) else { throw WorkbenchError("--points must be from 2 to 10000, not \(arguments.points)") }
        let rate = try ReplayOptionText.samplingRate(arguments.samplingRate)
        samplingRate = rate
        if arguments.againstExact && rate == 1 { throw WorkbenchError("--against-exact compares a sampled curve: give --sampling-rate below 1") }
        self.arguments = arguments
        path = try arguments.trace ?? BundledTrace.path()
        trace = try TraceFile(path: path, format: arguments.format.map(TraceFormat.named), skipBadRows: arguments.skipBad, formatOptions: arguments.formatOptions)
        if let csv = arguments.csv { try OutputFile.check(outputs: [("--csv", csv)], inputs: [path]) }
    }

    public func execute(progress: ProgressLine) throws -> Outcome {
        progress.begin("scan \(path)")
        let summary = try TraceSummary.scan(trace, costModel: .encoded, ignoreObjectSize: arguments.ignoreObjectSize)
        progress.finish()
        guard summary.requests > summary.droppedZeroSize else { throw WorkbenchError("\(path): no request with a size above 0") }
        // The trees sum live sizes in Ints.
        guard ByteTotal(summary.uniqueKeys) * ByteTotal(summary.largestSize) <= ByteTotal(Int.max) else {
            throw WorkbenchError("\(path): \(summary.uniqueKeys) keys of up to \(summary.largestSize) bytes could sum above 2^63 bytes; curves are limited to that")
        }
        let capacities = try resolveCapacities(summary)
        let run = { (rate: Double) throws -> LRUMissRatioCurve.Result in
            progress.begin(rate < 1 ? "SHARDS at \(rate)" : "stack distances")
            defer { progress.finish() }
            return try LRUMissRatioCurve.compute(
                try trace.open(keepKeyNames: false), capacities: capacities, ignoreObjectSize: arguments.ignoreObjectSize, samplingRate: rate,
                expectedRequests: summary.requests, expectedKeys: Int(Double(summary.uniqueKeys) * min(1, rate * 1.1)) + 16,
                progress: { fraction in progress.show(fraction.map { String(format: "%.0f%%", $0 * 100) } ?? "") })
        }
        let started = MonotonicClock.now()
        let curve = try run(samplingRate)
        let seconds = Double(MonotonicClock.now() - started) / 1e9
        var exact: LRUMissRatioCurve.Result?
        if arguments.againstExact { exact = try run(1) }
        var notes: [String] = []
        if curve.sizeChanges > 0 {
            notes.append("\(curve.sizeChanges) requests change their key's size: the curve uses each request's own size, a replay keeps the stored size on a hit, so up to that many outcomes can differ from `bench run`")
        }
        if curve.skippedRows > 0 { notes.append("\(curve.skippedRows) malformed rows skipped (--skip-bad)") }
        if let text = arguments.capacities {
            notes += try Capacity.list(parsing: text, device: ReplayOptionText.device(arguments.device)).compactMap(\.deviceRule)
        }
        if let csv = arguments.csv { try OutputFile.write(csvText(curve, summary: summary, exact: exact), to: csv) }
        return Outcome(table: tableText(curve, summary: summary, exact: exact, seconds: seconds), notes: notes)
    }

    private func resolveCapacities(_ summary: TraceSummary) throws -> [Int] {
        var values: [Int]
        if let text = arguments.capacities {
            values = try Capacity.list(parsing: text, device: ReplayOptionText.device(arguments.device)).map { $0.resolve(workingSetBytes: summary.workingSetBytes) }
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

    private func share(_ capacity: Int, _ summary: TraceSummary) -> Double { Double(capacity) / summary.workingSetBytes.asDouble }

    private func tableText(_ curve: LRUMissRatioCurve.Result, summary: TraceSummary, exact: LRUMissRatioCurve.Result?, seconds: Double) -> String {
        var lines = ["capacity".padding(16) + "of WS".padding(9, left: true) + "miss ratio".padding(12, left: true) + "byte miss".padding(12, left: true)
                     + "too large".padding(11, left: true) + (exact != nil ? "exact miss".padding(12, left: true) : "")]
        var errors: [Double] = []
        for (index, point) in curve.points.enumerated() {
            let miss = curve.objectMissRatio(point) ?? 0
            var line = unit(point.capacity).padding(16) + String(format: "%.3f%%", share(point.capacity, summary) * 100).padding(9, left: true)
                + String(format: "%.4f", miss).padding(12, left: true)
                + String(format: "%.4f", curve.byteMissRatio(point) ?? 0).padding(12, left: true) + String(point.tooLarge).padding(11, left: true)
            if let exact {
                let reference = exact.objectMissRatio(exact.points[index]) ?? 0
                errors.append(abs(miss - reference))
                line += String(format: "%.4f", reference).padding(12, left: true)
            }
            lines.append(line)
        }
        lines.append("")
        let method = samplingRate < 1
            ? "SHARDS at rate \(samplingRate): \(curve.requests) of \(curve.traceRequests) requests sampled"
            : "exact LRU stack distances: \(curve.requests) requests"
        lines.append("trace \(path): \(method); working set \(arguments.ignoreObjectSize ? "\(summary.workingSetBytes) objects" : ByteCount.format(summary.workingSetBytes)); \(curve.points.count) capacities in \(String(format: "%.2f", seconds)) s")
        if !errors.isEmpty {
            let mean = errors.reduce(0, +) / Double(errors.count)
            lines.append(String(format: "SHARDS error against the exact curve: mean %.5f, max %.5f (absolute miss ratio)", mean, errors.max() ?? 0))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func csvText(_ curve: LRUMissRatioCurve.Result, summary: TraceSummary, exact: LRUMissRatioCurve.Result?) -> String {
        var lines = ["trace,policy,method,sampling_rate,ignore_obj_size,capacity_bytes,capacity_share,requests,sampled_requests,hits,object_miss_ratio,byte_miss_ratio,too_large,size_changes,exact_object_miss_ratio"]
        let name = CSVReport.escape(path)
        for (index, point) in curve.points.enumerated() {
            let exactMiss = exact.flatMap { $0.objectMissRatio($0.points[index]) }.map { String($0) } ?? ""
            lines.append([
                name, "lru", samplingRate < 1 ? "shards" : "mattson", String(samplingRate), arguments.ignoreObjectSize ? "true" : "false",
                String(point.capacity), String(share(point.capacity, summary)), String(curve.traceRequests), String(curve.requests),
                String(point.hits), curve.objectMissRatio(point).map { String($0) } ?? "", curve.byteMissRatio(point).map { String($0) } ?? "",
                String(point.tooLarge), String(curve.sizeChanges), exactMiss,
            ].joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
