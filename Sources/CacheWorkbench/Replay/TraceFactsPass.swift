import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// A trace's facts (`TraceFacts`: SHA-256 and encoded working-set summary) gathered by the
/// read that feeds a replay, so the first command on a new file version reads it once: the
/// reader is opened with a `ByteTap` (its bytes hashed as they are read) and each chunk it
/// returns is added to a summary (`TraceSummary.Accumulator`, the rules of `summarize`)
/// before the replay sees it. `finish` then checks that the file is the one whose identity
/// was taken before the read, takes the tap's digest, and keeps the facts in the cache.
///
/// `TraceFacts.scan` is this pass with nothing fed: one read gives the facts either way.
/// A reader that stopped before the end (a backend failed and the replay broke off) leaves
/// an incomplete summary: the facts are then read apart (`TraceFacts.scan`), said in
/// `notes`. Used by one reader on one thread at a time (a run's first replay, a sweep's
/// fanned-out pass or lru's curve pass); its result is read after that reader is done.
///
/// Complexity: per request one id lookup (O(1) amortized), per byte one SHA-256 update;
/// memory O(unique keys) until `finish`.
public final class TraceFactsPass: @unchecked Sendable {
    public let file: TraceFile
    /// The file's identity before the read: the facts are refused if it changed.
    let before: TraceFileIdentity
    private let cache: TraceFactsCache?
    private let tap = ByteTap()
    private var accumulator: TraceSummary.Accumulator? = TraceSummary.Accumulator(costModel: .encoded)
    private var opened = false
    /// The reader returned nil: every request was added.
    fileprivate(set) var reachedEnd = false
    /// Time spent adding chunks to the summary.
    fileprivate var summarizingOwnNanoseconds: UInt64 = 0
    /// Time spent on the facts beside the replay: adding chunks to the summary and hashing
    /// the bytes read (`ByteTap.nanoseconds`), so a timed replay can leave it out of its
    /// wall time (the facts are the command's work, not the backend's).
    public var summarizingNanoseconds: UInt64 { summarizingOwnNanoseconds + tap.nanoseconds }
    /// The facts, once `finish` gave them.
    public private(set) var facts: TraceFacts?
    /// What the command says about them on stderr: a cache that could not keep them, or a
    /// reader that stopped early (the facts then read apart).
    public private(set) var notes: [String] = []
    /// The facts a sweep plan carries (`PlannedTraceFacts`), which the command used before
    /// this read ended: `finish` refuses the file when its own facts differ.
    public var expected: TraceFacts?
    /// Why `finish` refused the file, thrown again by every later call.
    private var refusal: TraceError?

    /// Whether the rows of the command measure the process's heap and RSS, so `finish` says
    /// what the id set kept during the read added to them (`bench mrc` measures neither).
    private let rowsMeasureMemory: Bool

    /// nil when `file` is not a regular file whose identity can be taken.
    public init?(_ file: TraceFile, cache: TraceFactsCache?, rowsMeasureMemory: Bool = true) {
        guard let before = TraceFileIdentity.of(path: file.path) else { return nil }
        (self.file, self.before, self.cache, self.rowsMeasureMemory) = (file, before, cache, rowsMeasureMemory)
    }

    /// The requests added so far, summarized (nil once `finish` freed them): a caller that
    /// must stop before a bound is crossed checks it chunk by chunk. O(1).
    public var summarySoFar: TraceSummary? { accumulator?.summary }

    /// Whether a reader may still be opened through the pass (one per pass).
    public var isOpen: Bool { !opened && facts == nil }

    /// The reader that feeds the replay: the file opened with the tap set, every chunk it
    /// returns summarized first. Once per pass.
    public func open(keepKeyNames: Bool) throws -> any RequestSource {
        precondition(isOpen, "a trace facts pass feeds one reader")
        opened = true
        let tap = self.tap
        let source = try ByteTap.$current.withValue(tap) { try file.open(keepKeyNames: keepKeyNames) }
        // A reader that hands out key records keeps doing so: a policy replay reads them in
        // place (`Replayer`), as it does when the facts are known, so its speed does not
        // depend on whether the facts were kept.
        if let keyed = source as? any KeyRecordSource { return SummarizingKeyRecordSource(keyed, pass: self) }
        return SummarizingSource(source, pass: self)
    }

    fileprivate func add(_ chunk: ArraySlice<Request>) {
        accumulator?.add(chunk)
    }

    fileprivate func add(_ records: UnsafeBufferPointer<KeyRecord>) {
        accumulator?.add(records)
    }

    /// Runs `summarize` (a batch added to the summary), its time counted as the facts'.
    fileprivate func timed(_ summarize: () -> Void) {
        let began = MonotonicClock.now()
        summarize()
        summarizingOwnNanoseconds += MonotonicClock.now() - began
    }

    /// The facts of the file, after its reader is done: the summary and the tap's digest
    /// when the reader reached the end (the file hashed apart when the tap fell short of an
    /// uncompressed file's size, as `scan` did), else one read of their own. Kept in the
    /// cache. Throws when the file changed while it was read (no one checksum).
    /// `rowsReadBeside`: whether replays measured memory while the pass's id set was held
    /// (false for a read into memory before any replay): only then are they told so.
    @discardableResult
    public func finish(rowsReadBeside: Bool = true) throws -> TraceFacts {
        if let refusal { throw refusal }
        if let facts { return facts }
        guard TraceFileIdentity.of(path: file.path) == before else {
            throw TraceError(path: file.path, line: nil, reason: "changed while it was read; run again once it is written")
        }
        let made: TraceFacts
        var gathered = false
        if reachedEnd, let accumulator {
            gathered = true
            let tapped = tap.count == before.size || tap.readDecompressed ? tap.finish() : nil
            let digest = try tapped ?? TraceChecksum.sha256(path: file.path)
            made = TraceFacts(identity: before, sha256: digest, summary: accumulator.summary, computed: Date().timeIntervalSince1970)
        } else {
            guard let scanned = try TraceFacts.scan(file) else {
                throw TraceError(path: file.path, line: nil, reason: "is no longer a regular file; run again once it is written")
            }
            made = scanned
            if opened { notes.append("\(file.path)'s checksum and working set were read apart: the replay that was to give them stopped before the end of the trace") }
        }
        // Its id set goes now, not with the plan. The replays that read beside it measured
        // the process's heap and RSS with it: said, with its size as it is freed.
        let heldBefore = gathered && rowsMeasureMemory && rowsReadBeside ? MemoryProbe.allocatedBytes() : nil
        accumulator = nil
        if let heldBefore, let after = MemoryProbe.allocatedBytes(), heldBefore > after {
            notes.append(
                "\(file.path)'s checksum and working set came from the replay's own read (the first of this file version): the heap peak and RSS of the rows whose replay read it include the id set that read kept, \(ByteCount.format(heldBefore - after)) when freed; run again on the unchanged file (its facts then kept) for the backends' own")
        }
        if let problem = cache?.store(made, reading: TraceFactsCache.reading(file)) { notes.append(problem) }
        if let expected, made.sha256 != expected.sha256 || made.summary != expected.summary {
            let refusal = TraceError(
                path: file.path, line: nil,
                reason: "is not the file the plan was written on: read now, its SHA-256 is \(made.sha256.prefix(12))… with \(made.summary.requests) requests, the plan's \(expected.sha256.prefix(12))… with \(expected.summary.requests); no row was made; restore it, or write the plan again")
            self.refusal = refusal
            throw refusal
        }
        facts = made
        return made
    }
}

/// A reader whose chunks are added to its pass's summary before they are returned: per
/// chunk, outside any timed call of the replay.
private class SummarizingSource: RequestSource {
    let source: any RequestSource
    let pass: TraceFactsPass

    init(_ source: any RequestSource, pass: TraceFactsPass) {
        (self.source, self.pass) = (source, pass)
    }

    func nextChunk() throws -> ArraySlice<Request>? {
        guard let chunk = try source.nextChunk() else {
            pass.reachedEnd = true
            return nil
        }
        pass.timed { pass.add(chunk) }
        return chunk
    }

    var progress: Double? { source.progress }
    var skippedRows: Int { source.skippedRows }
    var expectedCount: Int? { source.expectedCount }
    var carriesOperations: Bool { source.carriesOperations }
}

/// `SummarizingSource` over a reader of key records, each batch of which is added to the
/// summary too: a replay may take chunks (through a warm-up) and then key records, from one
/// position, so every request is added once.
private final class SummarizingKeyRecordSource: SummarizingSource, KeyRecordSource {
    let keyed: any KeyRecordSource

    init(_ keyed: any KeyRecordSource, pass: TraceFactsPass) {
        self.keyed = keyed
        super.init(keyed, pass: pass)
    }

    func nextKeyRecords() throws -> UnsafeBufferPointer<KeyRecord>? {
        guard let records = try keyed.nextKeyRecords() else {
            pass.reachedEnd = true
            return nil
        }
        pass.timed { pass.add(records) }
        return records
    }
}
