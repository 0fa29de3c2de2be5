/// A replay driven from outside, a batch of requests at a time, so that one read of a trace
/// feeds many backends in turn (MiniSim's mini caches, `PolicyMissRatioCurve.miniSim`). Each
/// request follows `Replayer`'s demand-fill rules exactly (the same `ReplayLoop.handle`);
/// untimed, with no memory sampling (nothing reads it).
///
/// Complexity: per request, the backend's get (and set on a miss).
protocol FedReplay: AnyObject {
    /// Replays `requests` in order; a backend error ends this replay (thrown).
    func feed(_ requests: UnsafeBufferPointer<Request>) throws
    /// The counts so far.
    var tally: ReplayTally { get }
}

/// A fed replay of `backend` (opened from `any CacheBackend`, so each backend type gets its
/// own specialized loop).
func fedReplay(_ backend: some CacheBackend, capacity: Int, options: ReplayOptions) -> any FedReplay {
    FedReplayLoop(backend: backend, capacity: capacity, options: options)
}

private final class FedReplayLoop<Backend: CacheBackend>: FedReplay {
    private var loop: ReplayLoop<Backend>

    init(backend: Backend, capacity: Int, options: ReplayOptions) {
        var untimed = options
        untimed.timing = false
        untimed.memorySampleInterval = Int.max
        loop = ReplayLoop(backend: backend, capacity: capacity, options: untimed)
    }

    func feed(_ requests: UnsafeBufferPointer<Request>) throws {
        guard let first = requests.baseAddress else { return }
        loop.tally.traceRequests += requests.count
        // `pointee` is addressed, not copied (as in `Replayer.replay`).
        for position in requests.indices { try loop.handle((first + position).pointee) }
    }

    var tally: ReplayTally { loop.tally }
}
