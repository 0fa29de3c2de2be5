
/// The trace's facts (`TraceFacts`: SHA-256 and encoded working-set summary) as a sweep
/// plan carries them (`SweepPlan.traceFacts`), so a shard on a machine that has not kept
/// them reads the trace once, for its replay, instead of once more for the facts first.
/// Without the file's identity (another machine has another device, inode and times) but
/// with its size and how it was read.
///
/// A shard takes them on trust until its replay's read ends, then checks them: that read
/// gathers the file's own facts (`TraceFactsPass.expected`), and if they differ the command
/// stops before any row is made (`TraceFactsPass.finish`). A file of another size is
/// refused at once, before any replay. Read from a plan, so never trusted as read: the
/// figures are validated as a cache entry's are (`TraceFactsEntry.validated`).
///
/// Fields only, so the plan fuzzer builds it alone; made from and turned into `TraceFacts`
/// in `TraceFacts.swift`. Complexity: O(1).
public struct PlannedTraceFacts: Codable, Sendable, Equatable {
    /// How the trace is read (`TraceFactsCache.reading`: format, its options, `--skip-bad`).
    public var reading: String
    /// The file's size in bytes when the plan was written.
    public var fileBytes: Int
    public var sha256: String
    public var requests: Int
    public var droppedZeroSize: Int
    public var uniqueKeys: Int
    /// A decimal: `ByteTotal` is 128 bits wide.
    public var workingSetBytes: String
    public var largestSize: Int
    /// When the facts were computed (seconds since 1970).
    public var computed: Double
}
