/// `bench run` as a value: the user's options checked and resolved into a `RunPlan`, then
/// executed and reported. The CLI only parses arguments into this.
public struct RunSetup {
    public var plan: RunPlan
    public var csvPath: String?
    public var jsonPath: String?

    public init(
        tracePath: String?, format: String?, backends: String, capacities: String, cost: String,
        timing: Bool, preload: Bool, skipBad: Bool, seed: UInt64, sampleEvery: Int,
        csv: String?, json: String?
    ) throws {
        guard let costModel = CostModel(rawValue: cost.lowercased()) else {
            throw WorkbenchError("unknown cost model '\(cost)'; known: \(CostModel.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let path = try tracePath ?? BundledTrace.path()
        let file = try TraceFile(path: path, format: format.map(TraceFormat.named), skipBadRows: skipBad)
        for output in [csv, json].compactMap({ $0 }) { try AtomicFile.checkWritable(output) }
        var options = ReplayOptions()
        options.timing = timing
        options.costModel = costModel
        options.memorySampleInterval = sampleEvery
        plan = RunPlan(
            trace: file, backends: try BackendRegistry.list(parsing: backends),
            capacities: try Capacity.list(parsing: capacities), options: options, preload: preload,
            traceChecksum: try TraceChecksum.sha256(path: path))
        plan.seed = seed
        csvPath = csv
        jsonPath = json
    }

    public struct Outcome {
        public var results: [RunResult]
        public var table: String
        public var anyFailed: Bool { results.contains(where: \.failed) }
    }

    public func execute(progress: ProgressLine) throws -> Outcome {
        let environment = RunEnvironment.current()
        var plan = self.plan
        plan.options.progress = { progress.update($0) }
        let results = try plan.execute(environment: environment) { backend, capacity in
            progress.begin("\(backend.name) \(ByteCount.format(capacity))")
        }
        progress.finish()
        if let csvPath { try AtomicFile.write(CSVReport.render(results), to: csvPath) }
        if let jsonPath { try AtomicFile.write(JSONReport.render(results, environment: environment), to: jsonPath) }
        return Outcome(results: results, table: TableReport.render(results, environment: environment))
    }
}

/// Writes any trace as CSV (used by `bench gen`; `bench convert` later).
public enum TraceExport {
    public static func write(_ trace: any Trace, to path: String?, shape: CSVTraceWriter.Shape) throws {
        let writer = try CSVTraceWriter(path: path, shape: shape)
        let source = try trace.open(keepKeyNames: true)
        while let chunk = try source.nextChunk() {
            for request in chunk { writer.write(request) }
        }
        try writer.finish()
    }
}

/// What `bench list` prints.
public enum Catalog {
    public static func text() -> String {
        var text = "Backends (--backend):\n"
        let width = BackendRegistry.all.map(\.name.count).max() ?? 0
        for kind in BackendRegistry.all {
            text += "  \(kind.name)\(String(repeating: " ", count: width - kind.name.count))  \(kind.summary)\n"
        }
        text += "\nTrace formats (--format):\n"
        for format in TraceFormat.all {
            text += "  \(format.name)  \(format.summary) (.\(format.extensions.joined(separator: ", .")))\n"
        }
        text += "\nCost models (--cost): \(CostModel.allCases.map(\.rawValue).joined(separator: ", "))\n"
        return text
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unbuffered writes to a file descriptor (stderr messages must not wait for a flush).
public enum FileDescriptorOutput {
    public static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
