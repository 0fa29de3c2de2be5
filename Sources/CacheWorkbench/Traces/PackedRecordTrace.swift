import WorkbenchCore
import WorkbenchMetrics
/// A binary trace held in memory as `KeyRecord`s (24 bytes a request, as many as an
/// oracleGeneral record, where a `Request` takes 64): what `--preload` keeps for such formats.
/// Loading decodes each file record once, into memory that is prefaulted on the other core
/// (the kernel's populating of fresh pages was the whole of loading 5M requests as
/// `Request`s: 0.11 s for 320 MB on the development VM). A plain policy replay reads the
/// records where they lie (`KeyRecordSource`); anything else gets chunks of 16,384
/// `Request`s, each field set in one reused array.
///
/// Complexity: load O(n); each chunk O(1) as key records, O(chunk) as requests. Memory: 24
/// bytes a request plus one chunk of requests per cursor that hands out requests.
final class PackedRecordTrace: Trace, @unchecked Sendable {
    let label: String
    /// Immutable once loaded; freed with the trace.
    private let records: UnsafeMutablePointer<KeyRecord>
    let count: Int

    convenience init(loading source: some BulkRequestSource, label: String) throws {
        let count = source.expectedCount ?? 0
        try self.init(label: label, count: count) { records, loaded in
            try source.decodeKeyRecords(to: records, capacity: count, count: &loaded)
            // The size was read when the file was opened: records appended since are an
            // error, not silently left out.
            if try source.nextChunk() != nil { throw Self.grew(label) }
        }
    }

    /// The `count` records `source` hands out as key records (a reader that summarizes them
    /// as they go, `TraceFactsPass`). Throws when it holds more. O(n).
    convenience init(loadingKeyRecords source: any KeyRecordSource, count: Int, label: String) throws {
        try self.init(label: label, count: count) { records, loaded in
            while let batch = try source.nextKeyRecords() {
                guard batch.count <= count - loaded, let base = batch.baseAddress else { throw Self.grew(label) }
                (records + loaded).initialize(from: base, count: batch.count)
                loaded += batch.count
            }
        }
    }

    /// Room for `count` records, prefaulted on the other core while `fill` writes them
    /// (advancing its count as it goes); freed if it throws. The allocation is left out of
    /// the rows' heap figures while the trace lives (`MemoryProbe.holdTrace`).
    private init(label: String, count: Int, fill: (UnsafeMutablePointer<KeyRecord>, inout Int) throws -> Void) throws {
        self.label = label
        let capacity = max(1, count)
        let records = UnsafeMutablePointer<KeyRecord>.allocate(capacity: capacity)
        var loaded = 0
        do {
            try fillWhilePrefaulting(UnsafeMutableRawPointer(records), bytes: capacity * MemoryLayout<KeyRecord>.stride) {
                try fill(records, &loaded)
            }
        } catch {
            records.deallocate()
            throw error
        }
        self.records = records
        self.count = loaded
        heldBytes = MemoryProbe.usableSize(UnsafeMutableRawPointer(records))
        MemoryProbe.holdTrace(bytes: heldBytes)
    }

    private static func grew(_ label: String) -> TraceError {
        TraceError(path: label, line: nil, reason: "the file grew while it was being read into memory")
    }

    /// The records' allocation as jemalloc counts it.
    private let heldBytes: Int

    // `KeyRecord` is a trivial type: the initialized records need no deinitialization.
    deinit {
        MemoryProbe.releaseTrace(bytes: heldBytes)
        records.deallocate()
    }

    func open(keepKeyNames: Bool) throws -> any RequestSource { Cursor(self) }

    final class Cursor: KeyRecordSource {
        static var chunkSize: Int { 1 << 14 }
        private let trace: PackedRecordTrace
        private var position = 0

        init(_ trace: PackedRecordTrace) { self.trace = trace }

        /// One chunk's requests, set in place (`ReusedRequestChunk`).
        private var chunk = ReusedRequestChunk(size: Cursor.chunkSize)

        /// The next records, up to a chunk, and the position after them.
        @inline(__always)
        private func advance() -> UnsafeBufferPointer<KeyRecord>? {
            guard position < trace.count else { return nil }
            let count = min(Self.chunkSize, trace.count - position)
            defer { position += count }
            return UnsafeBufferPointer(start: trace.records + position, count: count)
        }

        func nextKeyRecords() -> UnsafeBufferPointer<KeyRecord>? { advance() }

        func nextChunk() -> ArraySlice<Request>? {
            guard let records = advance() else { return nil }
            return chunk.refill { requests in
                for (index, record) in records.enumerated() {
                    requests[index].time = record.time
                    requests[index].id = record.id
                    requests[index].size = record.size
                }
                return records.count
            }
        }

        var progress: Double? { trace.count == 0 ? 1 : Double(position) / Double(trace.count) }
        var skippedRows: Int { 0 }
        var expectedCount: Int? { trace.count }
        func append(to requests: inout [Request], limit: Int) -> Int {
            guard let chunk = nextChunk() else { return 0 }
            requests.append(contentsOf: chunk)
            return chunk.count
        }
    }
}

extension BulkRequestSource {
    /// The rest of this source's records, packed in memory.
    func packed(label: String) throws -> any Trace { try PackedRecordTrace(loading: self, label: label) }
}

extension InMemoryTrace {
    /// A binary trace's `count` records read from `source` (`PackedRecordTrace`), or nil when
    /// `source` does not hand out key records (then nothing was read). O(n).
    package static func packed(from source: any RequestSource, count: Int, label: String) throws -> (any Trace)? {
        guard let keyed = source as? any KeyRecordSource else { return nil }
        return try PackedRecordTrace(loadingKeyRecords: keyed, count: count, label: label)
    }

    /// The bytes `preload` would hold `trace` in as key records: a fixed-size binary trace of
    /// known length (its records counted from the file's size); nil for any other, which
    /// `preload` would load as requests. Opens the trace and reads none of its records. O(1).
    package static func packedBytes(_ trace: any Trace) throws -> Int? {
        let source = try trace.open(keepKeyNames: false)
        guard source is any BulkRequestSource, let count = source.expectedCount else { return nil }
        let (bytes, overflow) = count.multipliedReportingOverflow(by: MemoryLayout<KeyRecord>.stride)
        return overflow ? Int.max : bytes
    }
}
