/// Replays a request stream against one backend in demand-fill mode (DESIGN.md):
/// 1. every request is a read: a hit, or a miss followed by inserting the object;
/// 2. a hit does not change the stored size;
/// 3. an object whose cost exceeds the capacity is a miss and is not inserted;
/// 4. size-0 requests are dropped and counted;
/// 5. the backend evicts until used + cost <= capacity;
/// 6. (capacities are resolved before the replay: see `Capacity`).
///
/// The replayer owns the clock, the histograms and the counters; backends only do cache work.
public struct Replayer {
    public let source: any RequestSource
    public let capacity: Int
    public let options: ReplayOptions

    public init(source: any RequestSource, capacity: Int, options: ReplayOptions) {
        self.source = source
        self.capacity = capacity
        self.options = options
    }

    /// Generic so each backend gets its own specialized loop (called through
    /// `CacheBackend.replay(with:)`). Trace errors propagate; backend errors end the run
    /// and are recorded in `failure`.
    public func replay<Backend: CacheBackend>(_ backend: Backend) throws -> ReplayTally {
        var tally = ReplayTally()
        var getLatency = LatencyRecorder()
        var setLatency = LatencyRecorder()
        let timing = options.timing
        let costModel = options.costModel
        let capacity = self.capacity
        var accountedPeak = backend.facts.accountedBytes
        var nextMemorySample = options.memorySampleInterval
        tally.memory.sample()
        let progress = options.progress
        let started = MonotonicClock.now()
        var nextProgress = started + 250_000_000

        do {
            while let chunk = try source.nextChunk() {
                tally.traceRequests += chunk.count
                for request in chunk {
                    if request.size == 0 {
                        tally.droppedZeroSize += 1
                        continue
                    }
                    tally.requests += 1
                    tally.requestedBytes += request.size
                    let hit: Bool
                    if timing {
                        let before = MonotonicClock.now()
                        hit = try backend.get(request)
                        getLatency.record(MonotonicClock.now() &- before)
                    } else {
                        hit = try backend.get(request)
                    }
                    if hit {
                        tally.hits += 1
                        tally.hitBytes += request.size
                        continue
                    }
                    let cost = costModel.cost(of: request)
                    if cost > capacity {
                        tally.tooLarge += 1
                        continue
                    }
                    if timing {
                        let before = MonotonicClock.now()
                        try backend.set(request, cost: cost)
                        setLatency.record(MonotonicClock.now() &- before)
                    } else {
                        try backend.set(request, cost: cost)
                    }
                    accountedPeak = max(accountedPeak, backend.facts.accountedBytes)
                }
                if tally.requests >= nextMemorySample {
                    tally.memory.sample()
                    nextMemorySample = tally.requests + options.memorySampleInterval
                }
                if let progress {
                    let now = MonotonicClock.now()
                    if now >= nextProgress {
                        nextProgress = now + 250_000_000
                        progress(ReplayProgress(
                            fraction: source.progress, requests: tally.requests,
                            elapsedSeconds: Double(now - started) / 1e9))
                    }
                }
            }
        } catch let error as TraceError {
            throw error
        } catch {
            tally.failure = String(describing: error)
        }
        tally.wallSeconds = Double(MonotonicClock.now() - started) / 1e9
        tally.memory.sample()
        tally.memory.accounted = accountedPeak
        tally.get = getLatency.summary
        tally.set = setLatency.summary
        tally.finalFacts = backend.facts
        tally.skippedRows = source.skippedRows
        return tally
    }
}
