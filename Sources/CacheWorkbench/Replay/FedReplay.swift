import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// A replay driven from outside, a batch of requests at a time, so that one read of a trace
/// feeds many backends in turn (MiniSim's mini caches, `PolicyMissRatioCurve.miniSim`). Each
/// request follows `Replayer`'s demand-fill rules exactly (the same `ReplayLoop.handle`);
/// untimed, with no memory sampling (nothing reads it).
///
/// Complexity: per request, the backend's get (and set on a miss).
package protocol FedReplay: AnyObject {
    /// Replays `requests` in order; a backend error ends this replay (recorded in its
    /// tally's `failure`, later requests ignored); a trace error is thrown.
    func feed(_ requests: UnsafeBufferPointer<Request>) throws
    /// The counts so far.
    var tally: ReplayTally { get }
    /// The final counts, as `Replayer.replay` returns them, after the last chunk.
    func finish(skippedRows: Int) -> ReplayTally
}

/// A fed replay of `backend`, made inside the backend's own `replay(with:)` (a policy
/// simulator's is specialized for each policy: made from generic code, the loop would run
/// through witness tables at half the speed or less). MiniSim's mini caches pass
/// `sampleMemory: false`: nothing reads their memory.
package func fedReplay(_ backend: any CacheBackend, capacity: Int, options: ReplayOptions, sampleMemory: Bool = false) throws -> any FedReplay {
    var untimed = options
    untimed.timing = false
    if !sampleMemory { untimed.memorySampleInterval = Int.max }
    let handOff = FedReplayHandOff()
    _ = try backend.replay(with: Replayer(handingOff: handOff, capacity: capacity, options: untimed))
    guard let replay = handOff.replay else {
        throw WorkbenchError("\(type(of: backend)) replays on its own and cannot be fed")
    }
    return replay
}

/// Where `Replayer.replay` leaves the fed replay it made.
final class FedReplayHandOff {
    var replay: (any FedReplay)?
}

/// A fed replay as closures over one `ReplaySession`: made in specialized code, the closures
/// are compiled specialized too, so calling them through this class costs one indirect call
/// per batch.
final class FedReplayHandle: FedReplay {
    private let feedBody: (UnsafeBufferPointer<Request>) throws -> Void
    private let tallyBody: () -> ReplayTally
    private let finishBody: (Int) -> ReplayTally

    @inline(__always)
    init<Backend: CacheBackend>(_ session: ReplaySession<Backend>) {
        var session = session
        feedBody = { try session.feed($0) }
        tallyBody = { session.loop.tally }
        finishBody = { session.finish(skippedRows: $0) }
    }

    func feed(_ requests: UnsafeBufferPointer<Request>) throws { try feedBody(requests) }
    var tally: ReplayTally { tallyBody() }
    func finish(skippedRows: Int) -> ReplayTally { finishBody(skippedRows) }
}
