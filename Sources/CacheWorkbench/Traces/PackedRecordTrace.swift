/// A binary trace held in memory as its own fixed-size records (24 bytes each for
/// oracleGeneral, where a `Request` takes 64) and decoded a chunk at a time as it is
/// replayed. What `--preload` keeps for such formats: loading is a copy of the file into
/// memory, and memory is what bounds it — the kernel's populating of fresh pages was the
/// whole of loading 5M requests as `Request`s (0.11 s for 320 MB on the development VM).
/// Each chunk of 16,384 records is decoded field by field into one reused array.
///
/// Complexity: load O(n) (one copy); each chunk O(chunk). Memory: `recordSize` bytes a
/// request plus one chunk of requests per open cursor.
final class PackedRecordTrace<Source: BulkRequestSource>: Trace, @unchecked Sendable {
    let label: String
    /// Immutable once loaded; freed with the trace.
    private let records: UnsafeMutableRawPointer
    let count: Int

    init(loading source: Source, label: String) throws {
        self.label = label
        let capacity = source.expectedCount ?? 0
        let bytes = max(1, capacity * Source.recordSize)
        let records = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
        var loaded = 0
        do {
            try fillWhilePrefaulting(records, bytes: bytes) {
                try source.copyRecords(to: records, capacity: capacity, count: &loaded)
            }
            // The size was read when the file was opened: records appended since are an
            // error, not silently left out.
            if try source.nextChunk() != nil {
                throw TraceError(path: label, line: nil, reason: "the file grew while it was being read into memory")
            }
        } catch {
            records.deallocate()
            throw error
        }
        self.records = records
        count = loaded
    }

    deinit { records.deallocate() }

    func open(keepKeyNames: Bool) throws -> any RequestSource { Cursor(self) }

    final class Cursor: RequestSource {
        static var chunkSize: Int { 1 << 14 }
        private let trace: PackedRecordTrace
        private var position = 0

        init(_ trace: PackedRecordTrace) { self.trace = trace }

        /// One chunk's requests, decoded in place (`ReusedRequestChunk`).
        private var chunk = ReusedRequestChunk(size: Cursor.chunkSize)

        // Replays call this through `any RequestSource`, which would run the generic code
        // (a witness call per record): one line per binary format selects its specialization.
        @_specialize(exported: false, where Source == OracleGeneralReader)
        func nextChunk() throws -> ArraySlice<Request>? {
            guard position < trace.count else { return nil }
            let count = min(Self.chunkSize, trace.count - position)
            let first = UnsafeRawPointer(trace.records) + position * Source.recordSize
            position += count
            return chunk.refill { requests in
                for index in 0..<count { Source.decode(first + index * Source.recordSize, into: &requests[index]) }
                return count
            }
        }

        var progress: Double? { trace.count == 0 ? 1 : Double(position) / Double(trace.count) }
        var skippedRows: Int { 0 }
        var expectedCount: Int? { trace.count }
        func append(to requests: inout [Request], limit: Int) throws -> Int {
            guard let chunk = try nextChunk() else { return 0 }
            requests.append(contentsOf: chunk)
            return chunk.count
        }
    }
}

extension BulkRequestSource {
    /// The rest of this source's records, packed in memory.
    func packed(label: String) throws -> any Trace { try PackedRecordTrace(loading: self, label: label) }
}
