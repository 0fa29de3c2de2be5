import WorkbenchCore
import WorkbenchMetrics
/// libCacheSim's oracleGeneral binary trace: 24-byte little-endian records `u32 time,
/// u64 object id, u32 size, i64 next access` (the request index of the object's next
/// request, -1 when none; read but not needed here). A file whose length is not a whole
/// number of records is an error at the byte offset of the broken record.
final class OracleGeneralReader: AppendingRequestSource, BulkRequestSource, KeyRecordSource {
    static let recordSize = 24

    let path: String
    private let stream: BinaryRecordStream
    private(set) var skippedRows = 0

    init(path: String) throws(TraceError) {
        self.path = path
        stream = try BinaryRecordStream(path: path, recordSize: Self.recordSize)
    }

    var progress: Double? { stream.progress }

    var expectedCount: Int? { stream.totalBytes.map { $0 / Self.recordSize } }

    @inline(__always)
    private func nextRecords(limit: Int) throws -> (base: UnsafeRawPointer, count: Int)? {
        try stream.nextRecords(limit: limit)
    }

    /// One record's id, size and time.
    @inline(__always)
    static func keyRecord(_ record: UnsafeRawPointer) -> KeyRecord {
        KeyRecord(
            id: UInt64(littleEndian: record.loadUnaligned(fromByteOffset: 4, as: UInt64.self)),
            size: Int(UInt32(littleEndian: record.loadUnaligned(fromByteOffset: 12, as: UInt32.self))),
            time: Double(UInt32(littleEndian: record.loadUnaligned(as: UInt32.self))))
    }

    /// Sets the fields a record holds on a request holding the defaults otherwise (field by
    /// field: no copy of a whole request, whose optional references make it costly).
    @inline(__always)
    static func decode(_ record: UnsafeRawPointer, into request: inout Request) {
        let key = keyRecord(record)
        request.time = key.time
        request.id = key.id
        request.size = key.size
    }

    @inline(__always)
    private static func decode(_ record: UnsafeRawPointer) -> Request {
        var request = Request(time: 0, id: 0, size: 0)
        decode(record, into: &request)
        return request
    }

    /// The streaming chunk, decoded in place (`ReusedRequestChunk`): appending to a fresh
    /// array retained and released each request's references (a quarter of a streamed
    /// curve's time).
    private var chunk = ReusedRequestChunk(size: 4096)

    /// The streaming key records (`KeyRecordSource`), decoded into one buffer reused per
    /// chunk: 24 bytes a request where `chunk` writes 64.
    private let keyChunk = UnsafeMutableBufferPointer<KeyRecord>.allocate(capacity: 4096)

    deinit { keyChunk.deallocate() }

    /// Up to 4,096 records. O(chunk).
    func nextKeyRecords() throws -> UnsafeBufferPointer<KeyRecord>? {
        guard let base = keyChunk.baseAddress else { return nil }
        var count = 0
        try decodeKeyRecords(to: base, capacity: keyChunk.count, count: &count)
        return count > 0 ? UnsafeBufferPointer(start: base, count: count) : nil
    }

    /// Up to 4,096 requests. O(chunk).
    func nextChunk() throws -> ArraySlice<Request>? {
        try chunk.refill { requests in
            var count = 0
            try fill(requests, count: &count, decode: { Self.decode($0, into: &$1.pointee) })
            return count
        }
    }

    func append(to requests: inout [Request], limit: Int) throws -> Int {
        var added = 0
        while added < limit, let (base, records) = try nextRecords(limit: limit - added) {
            for index in 0..<records { requests.append(Self.decode(base + index * Self.recordSize)) }
            added += records
        }
        return added
    }

    func decodeKeyRecords(to destination: UnsafeMutablePointer<KeyRecord>, capacity: Int, count: inout Int) throws {
        while count < capacity, let (base, records) = try nextRecords(limit: capacity - count) {
            for index in 0..<records {
                (destination + count + index).initialize(to: Self.keyRecord(base + index * Self.recordSize))
            }
            count += records
        }
    }

    /// Decodes straight into uninitialized memory: no per-request capacity checks.
    func fill(_ buffer: UnsafeMutableBufferPointer<Request>, count: inout Int) throws {
        try fill(buffer, count: &count, decode: { $1.initialize(to: Self.decode($0)) })
    }

    /// The records from `buffer[count]` on, each written by `decode(record, slot)` (initialize
    /// raw memory, or overwrite a request's fields in place). O(records).
    @inline(__always)
    private func fill(_ buffer: UnsafeMutableBufferPointer<Request>, count: inout Int,
                      decode: (UnsafeRawPointer, UnsafeMutablePointer<Request>) -> Void) throws {
        guard let start = buffer.baseAddress else { return }
        while count < buffer.count, let (base, records) = try nextRecords(limit: buffer.count - count) {
            for index in 0..<records { decode(base + index * Self.recordSize, start + count + index) }
            count += records
        }
    }
}
