import Foundation

/// What a command needs from a whole trace file before or beside its replays, from one
/// read: the file's SHA-256 (the rows' `trace_sha256`, a sweep's fingerprint, a plan's
/// points) and the working-set summary under encoded sizes (`%` capacities, the rows'
/// `working_set_bytes` and `unique_objects`, the short-trace sampling rule). Kept in the
/// workbench's cache (`TraceFactsCache`) under the file's identity, so a later command on
/// the unchanged file reads it once, for its replay alone.
///
/// Complexity: `scan` reads the file once, O(requests) time, O(unique keys) memory.
public struct TraceFacts: Sendable, Equatable {
    public var identity: TraceFileIdentity
    public var sha256: String
    /// Under `--cost encoded`, object sizes counted (`TraceSummary.scan`).
    public var summary: TraceSummary
    /// When the facts were computed (seconds since 1970).
    public var computed: Double

    /// The summary a plan uses: with `ignoreObjectSize` every object counts 1, so it
    /// follows from the sized one (the same keys and requests; `TraceSummary.scan` counts
    /// 1 per unique key and a largest size of 1 when any request has a size).
    public func summary(ignoreObjectSize: Bool) -> TraceSummary {
        guard ignoreObjectSize else { return summary }
        var counted = summary
        counted.workingSetBytes = ByteTotal(summary.uniqueKeys)
        counted.largestSize = summary.requests > summary.droppedZeroSize ? 1 : 0
        return counted
    }

    /// One read of `file`: its requests summarized as they are decoded and its bytes hashed
    /// as they are read (`ByteTap`; a compressed file's decompressed bytes, as
    /// `TraceChecksum` hashes them). A reader that stopped before the end of an
    /// uncompressed file (its tap short of the file's size) has its file hashed apart.
    /// nil when `file` is not a regular file whose identity can be taken.
    public static func scan(_ file: TraceFile) throws -> TraceFacts? {
        guard let before = TraceFileIdentity.of(path: file.path) else { return nil }
        let tap = ByteTap()
        let source = try ByteTap.$current.withValue(tap) { try file.open(keepKeyNames: false) }
        let summary = try TraceSummary.summarize(source, costModel: .encoded)
        // A file that changed while it was read has no one checksum: its facts are not kept.
        guard TraceFileIdentity.of(path: file.path) == before else {
            throw TraceError(path: file.path, line: nil, reason: "changed while it was read; run again once it is written")
        }
        let tapped = tap.count == before.size || tap.readDecompressed ? tap.finish() : nil
        let digest = try tapped ?? TraceChecksum.sha256(path: file.path)
        return TraceFacts(identity: before, sha256: digest, summary: summary, computed: Date().timeIntervalSince1970)
    }

    /// The facts of `file`: from the cache when its entry names this very file unchanged,
    /// else from one read (`scan`), then kept. `fromCache` is the time the kept facts were
    /// computed, for the note that says so. nil for a file whose identity cannot be taken.
    public static func obtain(_ file: TraceFile, cache: TraceFactsCache? = TraceFactsCache.standard()) throws -> (facts: TraceFacts, fromCache: Date?, cacheProblem: String?)? {
        guard let identity = TraceFileIdentity.of(path: file.path) else { return nil }
        let reading = TraceFactsCache.reading(file)
        if let kept = cache?.load(identity, reading: reading) { return (kept, Date(timeIntervalSince1970: kept.computed), nil) }
        guard let facts = try scan(file) else { return nil }
        let problem = cache.flatMap { $0.store(facts, reading: reading) }
        return (facts, nil, problem)
    }
}
