import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// What a command needs from a whole trace file before or beside its replays, from one
/// read: the file's SHA-256 (the rows' `trace_sha256`, a sweep's fingerprint, a plan's
/// points) and the working-set summary under encoded sizes (`%` capacities, the rows'
/// `working_set_bytes` and `unique_objects`, the short-trace sampling rule). Kept in the
/// workbench's cache (`TraceFactsCache`) under the file's identity, so a later command on
/// the unchanged file reads it once, for its replay alone. The first command gets them
/// from its replay's own read when nothing needs them before it (`TraceFactsPass`), else
/// from `scan` first.
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
    /// as they are read (`TraceFactsPass` with no replay beside it; a compressed file's
    /// decompressed bytes, as `TraceChecksum` hashes them). nil when `file` is not a
    /// regular file whose identity can be taken.
    public static func scan(_ file: TraceFile) throws -> TraceFacts? {
        guard let pass = TraceFactsPass(file, cache: nil) else { return nil }
        let source = try pass.open(keepKeyNames: false)
        while try source.nextChunk() != nil {
            try Interruption.check()  // a safe point: a scan of a large trace takes a while
        }
        return try pass.finish()
    }

    /// The kept facts of `file` when the cache's entry names this very file unchanged, with
    /// the time they were computed (for the note that says so); nil otherwise. O(1).
    public static func kept(_ file: TraceFile, cache: TraceFactsCache? = TraceFactsCache.standard()) -> (facts: TraceFacts, fromCache: Date?, cacheProblem: String?)? {
        guard let identity = TraceFileIdentity.of(path: file.path), let kept = cache?.load(identity, reading: TraceFactsCache.reading(file)) else { return nil }
        return (kept, Date(timeIntervalSince1970: kept.computed), nil)
    }

    /// The facts of `file`: from the cache when its entry names this very file unchanged,
    /// else from one read (`scan`), then kept. `fromCache` is the time the kept facts were
    /// computed, for the note that says so. nil for a file whose identity cannot be taken.
    public static func obtain(_ file: TraceFile, cache: TraceFactsCache? = TraceFactsCache.standard()) throws -> (facts: TraceFacts, fromCache: Date?, cacheProblem: String?)? {
        if let kept = kept(file, cache: cache) { return kept }
        guard let facts = try scan(file) else { return nil }
        let problem = cache.flatMap { $0.store(facts, reading: TraceFactsCache.reading(file)) }
        return (facts, nil, problem)
    }
}

extension PlannedTraceFacts {
    package init(_ facts: TraceFacts, reading: String) {
        (self.reading, fileBytes, sha256) = (reading, facts.identity.size, facts.sha256)
        (requests, droppedZeroSize, uniqueKeys) = (facts.summary.requests, facts.summary.droppedZeroSize, facts.summary.uniqueKeys)
        (workingSetBytes, largestSize, computed) = (String(facts.summary.workingSetBytes), facts.summary.largestSize, facts.computed)
    }

    /// Why these facts cannot stand for the file `identity` read as `reading`, or nil when
    /// they can: the same reading, the same size, and figures a trace can have.
    package func refusal(_ identity: TraceFileIdentity, reading: String) -> String? {
        if reading != self.reading { return "the plan's trace facts were taken with another reading (\(self.reading.split(separator: "\n").joined(separator: ", ")))" }
        if identity.size != fileBytes { return "changed since the plan was written: it is \(identity.size) bytes, the plan's trace was \(fileBytes); restore it, or write the plan again" }
        return facts(for: identity) == nil ? "the plan's trace facts hold impossible figures; the plan was edited or damaged: write it again" : nil
    }

    /// The facts for the file `identity` (of the plan's size), when their figures are
    /// possible (`TraceFactsEntry.validated`); nil otherwise.
    package func facts(for identity: TraceFileIdentity) -> TraceFacts? {
        let entry = TraceFactsEntry(
            version: TraceFactsEntry.currentVersion, identity: identity, reading: reading, sha256: sha256, requests: requests,
            droppedZeroSize: droppedZeroSize, uniqueKeys: uniqueKeys, workingSetBytes: workingSetBytes, largestSize: largestSize,
            computed: computed)
        guard identity.size == fileBytes else { return nil }
        return entry.validated(for: identity, reading: reading)?.facts
    }
}
