/// libCacheSim's oracleGeneral binary trace: 24-byte little-endian records `u32 time,
/// u64 object id, u32 size, i64 next access` (the request index of the object's next
/// request, -1 when none; read but not needed here). A file whose length is not a whole
/// number of records is an error at the byte offset of the broken record.
final class OracleGeneralReader: AppendingRequestSource, BulkRequestSource {
    static let recordSize = 24

    let path: String
    private let file: ChunkedFileReader
    private(set) var skippedRows = 0

    init(path: String) throws(TraceError) {
        self.path = path
        file = try ChunkedFileReader(path: path)
    }

    var progress: Double? { file.progress }

    var expectedCount: Int? { file.totalBytes.map { $0 / Self.recordSize } }

    /// The next run of whole records in the buffer (at most `limit`, none at the end),
    /// consumed; a partial record at the end of the file is an error at its offset.
    @inline(__always)
    private func nextRecords(limit: Int) throws -> (base: UnsafeRawPointer, count: Int)? {
        while true {
            let available = file.end - file.start
            if available >= Self.recordSize {
                let records = min(available / Self.recordSize, limit)
                let base = UnsafeRawPointer(file.buffer + file.start)
                file.start += records * Self.recordSize
                return (base, records)
            }
            if !file.atEOF, try file.refill() { continue }
            if available == 0 { return nil }
            throw TraceError(path: path, line: nil, reason: "byte \(file.consumedBytes): truncated record (\(available) of \(Self.recordSize) bytes)")
        }
    }

    @inline(__always)
    static func decode(_ record: UnsafeRawPointer, into request: inout Request) {
        request.time = Double(UInt32(littleEndian: record.loadUnaligned(as: UInt32.self)))
        request.id = UInt64(littleEndian: record.loadUnaligned(fromByteOffset: 4, as: UInt64.self))
        request.size = Int(UInt32(littleEndian: record.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
    }

    @inline(__always)
    private static func decode(_ record: UnsafeRawPointer) -> Request {
        var request = Request(time: 0, id: 0, size: 0)
        decode(record, into: &request)
        return request
    }

    func append(to requests: inout [Request], limit: Int) throws -> Int {
        var added = 0
        while added < limit, let (base, records) = try nextRecords(limit: limit - added) {
            for index in 0..<records { requests.append(Self.decode(base + index * Self.recordSize)) }
            added += records
        }
        return added
    }

    func copyRecords(to destination: UnsafeMutableRawPointer, capacity: Int, count: inout Int) throws {
        while count < capacity, let (base, records) = try nextRecords(limit: capacity - count) {
            (destination + count * Self.recordSize).copyMemory(from: base, byteCount: records * Self.recordSize)
            count += records
        }
    }

    /// Decodes straight into uninitialized memory: no per-request capacity checks.
    func fill(_ buffer: UnsafeMutableBufferPointer<Request>, count: inout Int) throws {
        guard let start = buffer.baseAddress else { return }
        while count < buffer.count, let (base, records) = try nextRecords(limit: buffer.count - count) {
            for index in 0..<records { (start + count + index).initialize(to: Self.decode(base + index * Self.recordSize)) }
            count += records
        }
    }
}
