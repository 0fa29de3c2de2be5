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
        var loop = ReplayLoop(backend: backend, capacity: capacity, options: options)
        loop.tally.memory.sample()
        var nextMemorySample = options.memorySampleInterval
        let started = MonotonicClock.now()
        var nextProgress = started + 250_000_000
        do {
            while let chunk = try source.nextChunk() {
                loop.tally.traceRequests += chunk.count
                // Borrow each request from the chunk's storage: a `for in` loop would copy
                // it, retaining and releasing its key text every time.
                try chunk.withUnsafeBufferPointer { requests in
                    for position in requests.indices { try loop.handle(requests[position]) }
                }
                if loop.tally.requests >= nextMemorySample {
                    loop.tally.memory.sample()
                    nextMemorySample = loop.tally.requests + options.memorySampleInterval
                }
                if let progress = options.progress {
                    let now = MonotonicClock.now()
                    if now >= nextProgress {
                        nextProgress = now + 250_000_000
                        progress(ReplayProgress(
                            fraction: source.progress, requests: loop.tally.requests,
                            elapsedSeconds: Double(now - started) / 1e9))
                    }
                }
            }
        } catch let error as TraceError {
            throw error
        } catch {
            loop.tally.failure = String(describing: error)
        }
        var tally = loop.tally
        tally.wallSeconds = Double(MonotonicClock.now() - started) / 1e9
        tally.memory.sample()
        tally.memory.accounted = loop.accountedPeak
        tally.get = loop.getLatency.summary
        tally.set = loop.setLatency.summary
        tally.finalFacts = backend.facts
        tally.skippedRows = source.skippedRows
        return tally
    }
}

/// The per-request work of one replay and the counters it keeps.
private struct ReplayLoop<Backend: CacheBackend> {
    let backend: Backend
    let capacity: Int
    let timing: Bool
    let costModel: CostModel
    var tally = ReplayTally()
    var getLatency = LatencyRecorder()
    var setLatency = LatencyRecorder()
    var accountedPeak: Int

    init(backend: Backend, capacity: Int, options: ReplayOptions) {
        self.backend = backend
        self.capacity = capacity
        self.timing = options.timing
        self.costModel = options.costModel
        self.accountedPeak = backend.facts.accountedBytes
    }

    @inline(__always)
    mutating func handle(_ request: Request) throws {
        if request.size == 0 {  // rule 4
            tally.droppedZeroSize += 1
            return
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
        if hit {  // rule 2: the stored size stays as it is
            tally.hits += 1
            tally.hitBytes += request.size
            return
        }
        let cost = costModel.cost(of: request)
        if cost > capacity {  // rule 3
            tally.tooLarge += 1
            return
        }
        if timing {  // rule 1: a miss inserts (the backend evicts as rule 5 says)
            let before = MonotonicClock.now()
            try backend.set(request, cost: cost)
            setLatency.record(MonotonicClock.now() &- before)
        } else {
            try backend.set(request, cost: cost)
        }
        accountedPeak = max(accountedPeak, backend.facts.accountedBytes)
    }
}
