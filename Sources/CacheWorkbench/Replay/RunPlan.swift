/// One command's worth of replays: every backend at every capacity over one trace, in
/// that order, each from the start of the trace.
public struct RunPlan: Sendable {
    public var trace: any Trace
    public var backends: [BackendKind]
    public var capacities: [Capacity]
    public var options: ReplayOptions
    /// Read the whole trace into memory first, so replays measure cache work only.
    public var preload: Bool
    /// SHA-256 of the trace file (or nil for a trace made in memory), for the results.
    public var traceChecksum: String?
    /// Seed for randomized backends, recorded in the results.
    public var seed: UInt64 = 1

    public init(
        trace: any Trace, backends: [BackendKind], capacities: [Capacity], options: ReplayOptions = ReplayOptions(),
        preload: Bool = false, traceChecksum: String? = nil
    ) {
        self.trace = trace
        self.backends = backends
        self.capacities = capacities
        self.options = options
        self.preload = preload
        self.traceChecksum = traceChecksum
    }

    /// Runs every replay; `willRun` is told before each (for progress labels).
    public func execute(
        environment: RunEnvironment, willRun: (BackendKind, Int) -> Void = { _, _ in }
    ) throws -> [RunResult] {
        let keepKeyNames = backends.contains { $0.needsKeyNames }
        var loadSeconds: Double?
        var trace: any Trace = self.trace
        if preload {
            let started = MonotonicClock.now()
            trace = try InMemoryTrace.load(self.trace, keepKeyNames: keepKeyNames)
            loadSeconds = Double(MonotonicClock.now() - started) / 1e9
        }
        let summary = capacities.contains(where: \.needsWorkingSet)
            ? try TraceSummary.scan(trace, costModel: options.costModel) : nil
        if let summary, summary.workingSetBytes == 0 {
            throw WorkbenchError("\(trace.label): a % capacity needs a working set, but the trace has no request with a size above 0")
        }
        var results: [RunResult] = []
        for backend in backends {
            for capacity in capacities {
                let bytes = capacity.resolve(workingSetBytes: summary?.workingSetBytes ?? 0)
                willRun(backend, bytes)
                let config = BackendConfig(capacityBytes: bytes, seed: seed)
                let replayer = Replayer(source: try trace.open(keepKeyNames: keepKeyNames), capacity: bytes, options: options)
                var tally: ReplayTally
                do {
                    let instance = try backend.make(config)
                    tally = try instance.replay(with: replayer)
                } catch let error as TraceError {
                    throw error
                } catch {
                    tally = ReplayTally()
                    tally.failure = String(describing: error)
                }
                results.append(RunResult(
                    runID: environment.runID(index: results.count), trace: trace.label, traceChecksum: traceChecksum,
                    mode: .demandFill, backend: backend.name, backendOptions: "", holdsPayloads: backend.holdsPayloads,
                    costModel: options.costModel,
                    capacity: capacity, capacityBytes: bytes, workingSetBytes: summary?.workingSetBytes,
                    seed: seed, timing: options.timing, loadSeconds: loadSeconds, tally: tally, environment: environment))
            }
        }
        return results
    }
}
