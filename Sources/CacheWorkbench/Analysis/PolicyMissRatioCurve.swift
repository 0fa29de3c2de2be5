import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Miss-ratio curves of any policy the registry has (`bench mrc --policy NAME`), by
/// replaying it — the same `Replayer`, so the same demand-fill rules as `bench run`:
///
/// - **exact**: one full replay of the trace per capacity — for an online policy all fed from
///   one read (`CurveFanOut`); an offline one reads the trace once per capacity.
/// - **MiniSim** (Waldspurger et al., "Cache Modeling and Optimization using Miniature
///   Simulations", USENIX ATC 2017; libCacheSim's `MRCProfilerMINISIM::run`,
///   `mrcProfiler/mrcProfiler.cpp:277`): the trace is read once, keeping the requests of
///   keys sampled by hash at rate R (`KeySampling.miniSimKeeps`, libCacheSim's rule and salt,
///   so the sampled keys are its); then one mini cache per capacity C, of ⌊C × R⌋ (as
///   libCacheSim's `size_t _cache_size = mrc_size_vec[i] * sample_rate`), replays that
///   sample. Misses are scaled back by ⌊1/R⌋ (its `sampling_ratio_inv`) over all requests:
///   miss ratio = misses × ⌊1/R⌋ / requests, clamped to 1. A mini cache of 0 bytes misses
///   every request (all too large). An online policy's mini caches run together in one pass:
///   each chunk's sampled requests go to every mini cache in turn, and nothing else is held.
///   Offline policies need the sample's next-access times first, so for them the sample is
///   held in memory (R × requests, one `Request` each) and replayed per mini cache.
///
/// Complexity: exact, P replays of n requests (online: one read); MiniSim, one read with P mini caches fed
/// R × n requests each (memory: the P mini caches).
public enum PolicyMissRatioCurve {
    public struct Point: Sendable, Equatable {
        public var capacity: Int
        /// The capacity the replay ran at (⌊C × R⌋ for MiniSim, C for exact).
        public var simulatedCapacity: Int
        public var hits = 0
        public var hitBytes: ByteTotal = 0
        public var tooLarge = 0
    }

    public struct Result: Sendable {
        public var points: [Point]
        /// Non-zero-size requests of the trace and their bytes (1 each under --ignore-obj-size).
        public var traceRequests = 0
        public var traceBytes: ByteTotal = 0
        /// Requests and bytes replayed (the sample's under MiniSim).
        public var sampledRequests = 0
        public var sampledBytes: ByteTotal = 0
        /// ⌊1/R⌋ (1 for exact): each sampled miss stands for this many.
        public var inverse: UInt64 = 1
        public var skippedRows = 0

        /// Counts `chunk`'s non-empty requests and appends those of keys MiniSim samples
        /// (`KeySampling.miniSimKeeps` at ⌊1/R⌋ = `inverse`) to `kept`. O(chunk).
        mutating func sample(_ chunk: ArraySlice<Request>, into kept: inout [Request], ignoreObjectSize: Bool) {
            for request in chunk where request.size > 0 {
                let size = ignoreObjectSize ? 1 : request.size
                traceRequests += 1
                traceBytes += ByteTotal(size)
                guard KeySampling.miniSimKeeps(request.id, inverse: inverse) else { continue }
                sampledRequests += 1
                sampledBytes += ByteTotal(size)
                kept.append(request)
            }
        }

        public func objectMissRatio(_ point: Point) -> Double? {
            guard traceRequests > 0 else { return nil }
            return min(1, Double(sampledRequests - point.hits) * Double(inverse) / Double(traceRequests))
        }

        public func byteMissRatio(_ point: Point) -> Double? {
            guard traceBytes > 0 else { return nil }
            return min(1, (sampledBytes - point.hitBytes).asDouble * Double(inverse) / traceBytes.asDouble)
        }
    }

    /// One full replay per capacity (`stage` is told each one, for progress).
    public static func exact(
        _ kind: BackendKind, trace: any Trace, capacities: [Int], ignoreObjectSize: Bool, seed: UInt64 = 1,
        stage: (String) -> Void = { _ in }
    ) throws -> Result {
        // An online policy: every capacity's replay fed from one read (MiniSim keeping every key).
        guard kind.needsFuture || kind.needsWholeReplay else {
            return try miniSimInOnePass(kind, trace: trace, capacities: capacities, rate: 1, ignoreObjectSize: ignoreObjectSize, seed: seed, stage: stage)
        }
        var result = Result(points: [])
        let nextAccess = kind.needsFuture ? try NextAccess.compute(trace) : nil
        for capacity in capacities {
            stage("\(kind.label) at \(capacity)")
            let tally = try replay(kind, trace: trace, capacity: capacity, ignoreObjectSize: ignoreObjectSize, seed: seed, nextAccess: nextAccess)
            result.points.append(Point(capacity: capacity, simulatedCapacity: capacity, hits: tally.hits, hitBytes: tally.hitBytes, tooLarge: tally.tooLarge))
            result.traceRequests = tally.requests
            result.traceBytes = tally.requestedBytes
            result.skippedRows = tally.skippedRows
        }
        result.sampledRequests = result.traceRequests
        result.sampledBytes = result.traceBytes
        return result
    }

    /// MiniSim at `rate` (1/rate must be whole: `MissRatioCurveRun` checks).
    public static func miniSim(
        _ kind: BackendKind, trace: any Trace, capacities: [Int], rate: Double, ignoreObjectSize: Bool, seed: UInt64 = 1,
        stage: (String) -> Void = { _ in }
    ) throws -> Result {
        if !kind.needsFuture && !kind.needsWholeReplay {
            return try miniSimInOnePass(kind, trace: trace, capacities: capacities, rate: rate, ignoreObjectSize: ignoreObjectSize, seed: seed, stage: stage)
        }
        var result = Result(points: [])
        result.inverse = KeySampling.inverse(of: rate)
        stage("sampling keys at \(rate)")
        var kept: [Request] = []
        let source = try trace.open(keepKeyNames: false)
        while let chunk = try source.nextChunk() {
            result.sample(chunk, into: &kept, ignoreObjectSize: ignoreObjectSize)
        }
        result.skippedRows = source.skippedRows
        let sample = InMemoryTrace(label: trace.label, requests: kept)
        let nextAccess = kind.needsFuture ? try NextAccess.compute(sample) : nil
        for capacity in capacities {
            let mini = Int(Double(capacity) * rate)
            var point = Point(capacity: capacity, simulatedCapacity: mini)
            if mini == 0 {
                point.tooLarge = result.sampledRequests
            } else {
                stage("\(kind.label) mini cache \(mini) for \(capacity)")
                let tally = try replay(kind, trace: sample, capacity: mini, ignoreObjectSize: ignoreObjectSize, seed: seed, nextAccess: nextAccess)
                point.hits = tally.hits
                point.hitBytes = tally.hitBytes
                point.tooLarge = tally.tooLarge
            }
            result.points.append(point)
        }
        return result
    }

    /// MiniSim for an online policy: one read of the trace, each block's sampled requests fed
    /// to every mini cache (`CurveFanOut`), so nothing but the mini caches is held. The same
    /// counts as replaying the sample per capacity (tested).
    static func miniSimInOnePass(
        _ kind: BackendKind, trace: any Trace, capacities: [Int], rate: Double, ignoreObjectSize: Bool, seed: UInt64,
        stage: (String) -> Void
    ) throws -> Result {
        let curves = try CurveFanOut.run(
            [.replays(kind, capacities: capacities, rate: rate)], trace: trace, ignoreObjectSize: ignoreObjectSize, seed: seed,
            workers: CurveFanOut.defaultWorkers, stage: stage)
        guard case let .replays(result) = curves[0] else { preconditionFailure("a replay job gives a replay curve") }
        return result
    }

    /// One untimed replay as `bench run` makes it (no memory sampling: nothing reads it).
    static func replay(
        _ kind: BackendKind, trace: any Trace, capacity: Int, ignoreObjectSize: Bool, seed: UInt64, nextAccess: NextAccess?
    ) throws -> ReplayTally {
        var config = BackendConfig(capacityBytes: capacity, seed: seed)
        config.nextAccess = nextAccess
        if ignoreObjectSize {
            config.memoryCost = { _ in 1 }
            config.diskCost = { _ in 1 }
            config.countsObjects = true
        }
        let backend = try kind.make(config)
        defer { try? backend.close() }
        var options = ReplayOptions()
        options.timing = false
        options.ignoreObjectSize = ignoreObjectSize
        options.seed = seed
        options.memorySampleInterval = Int.max
        let tally = try backend.replay(with: Replayer(source: try trace.open(keepKeyNames: kind.needsKeyNames), capacity: capacity, options: options))
        if let failure = tally.failure { throw WorkbenchError("\(kind.label) at capacity \(capacity): \(failure)") }
        return tally
    }
}
