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
    /// Whether the next requests may come as key records (`feedKeys`): a plain replay
    /// (`ReplayLoop.isPlain`) of a backend that reads only ids and sizes. O(1).
    var takesKeyRecords: Bool { get }
    /// Whether the replay is plain (`ReplayLoop.isPlain`: no timing, warm-up, warnings, HTTP,
    /// operations or pixels), so that a request's id, size and time are all it reads of it:
    /// a binary trace's key record made back into a `Request` gives it the same counts. O(1).
    var isPlain: Bool { get }
    /// `feed` for key records, where `takesKeyRecords` says so (the same counts: the loop
    /// `Replayer.replay` runs over a preloaded trace's records).
    func feedKeys(_ records: UnsafeBufferPointer<KeyRecord>)
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
    private let feedKeysBody: (UnsafeBufferPointer<KeyRecord>) -> Void
    private let takesKeyRecordsBody: () -> Bool
    private let isPlainBody: () -> Bool
    private let tallyBody: () -> ReplayTally
    private let finishBody: (Int) -> ReplayTally

    @inline(__always)
    init<Backend: CacheBackend>(_ session: ReplaySession<Backend>) {
        var session = session
        feedBody = { try session.feed($0) }
        feedKeysBody = { session.feedKeys($0) }
        takesKeyRecordsBody = { session.keyRecordsInPlace != nil && session.loop.isPlain }
        isPlainBody = { session.loop.isPlain }
        tallyBody = { session.loop.tally }
        finishBody = { session.finish(skippedRows: $0) }
    }

    func feed(_ requests: UnsafeBufferPointer<Request>) throws { try feedBody(requests) }
    var takesKeyRecords: Bool { takesKeyRecordsBody() }
    var isPlain: Bool { isPlainBody() }
    func feedKeys(_ records: UnsafeBufferPointer<KeyRecord>) { feedKeysBody(records) }
    var tally: ReplayTally { tallyBody() }
    func finish(skippedRows: Int) -> ReplayTally { finishBody(skippedRows) }
}
