/// libCacheSim's oracleGeneral binary trace: 24-byte little-endian records `u32 time,
/// u64 object id, u32 size, i64 next access` (the request index of the object's next
/// request, -1 when none; read but not needed here). A file whose length is not a whole
/// number of records is an error at the byte offset of the broken record.
final class OracleGeneralReader: AppendingRequestSource {
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

    func append(to requests: inout [Request], limit: Int) throws -> Int {
        var added = 0
        while added < limit {
            var available = file.end - file.start
            if available < Self.recordSize {
                let more = file.atEOF ? false : try file.refill()
                if !more {
                    available = file.end - file.start
                    if available == 0 { break }
                    if available < Self.recordSize {
                        throw TraceError(path: path, line: nil, reason: "byte \(file.consumedBytes): truncated record (\(available) of \(Self.recordSize) bytes)")
                    }
                }
                continue
            }
            let records = min(available / Self.recordSize, limit - added)
            let base = UnsafeRawPointer(file.buffer + file.start)
            for index in 0..<records {
                let record = base + index * Self.recordSize
                let time = UInt32(littleEndian: record.loadUnaligned(as: UInt32.self))
                let id = UInt64(littleEndian: record.loadUnaligned(fromByteOffset: 4, as: UInt64.self))
                let size = UInt32(littleEndian: record.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
                requests.append(Request(time: Double(time), id: id, size: Int(size)))
            }
            file.start += records * Self.recordSize
            added += records
        }
        return added
    }
}
