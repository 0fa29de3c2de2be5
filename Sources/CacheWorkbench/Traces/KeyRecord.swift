import WorkbenchCore
import WorkbenchMetrics
/// What a plain policy replay reads of a request (`ReplayLoop.handleKeys`): its id, size and
/// time, 24 bytes where a `Request` takes 64 and holds references. A preloaded binary trace
/// is kept as these (`PackedRecordTrace`), so that such a replay reads the trace's memory
/// where it lies: nothing is decoded, built or copied per request.
package struct KeyRecord: Sendable, Equatable {
    package var id: UInt64
    package var size: Int
    package var time: Double

    init(id: UInt64, size: Int, time: Double) {
        (self.id, self.size, self.time) = (id, size, time)
    }
}

/// A source that can hand out its next requests as `KeyRecord`s (for a plain replay of a
/// policy simulator) as well as `Request`s (`nextChunk`, for everything else), both from one
/// position, so that a replay may switch between them at any chunk (after a warm-up).
package protocol KeyRecordSource: RequestSource {
    /// The next records, valid until the next call on this source; nil at the end.
    func nextKeyRecords() throws -> UnsafeBufferPointer<KeyRecord>?
}
