import WorkbenchCore
import WorkbenchMetrics
/// Whole fixed-size records of a binary trace, read through one reusable buffer after an
/// optional header. A file whose records do not end on a record boundary is an error at
/// the byte offset of the broken record (libCacheSim only warns and drops the tail:
/// `traceReader/reader.c`, "is not multiple of item size").
final class BinaryRecordStream {
    let path: String
    private let file: ChunkedFileReader
    /// Bytes per record; set once the header has said which layout follows.
    var recordSize: Int

    init(path: String, recordSize: Int = 1) throws(TraceError) {
        self.path = path
        self.recordSize = recordSize
        file = try ChunkedFileReader(path: path)
    }

    var progress: Double? { file.progress }
    var totalBytes: Int? { file.totalBytes }
    var consumedBytes: Int { file.consumedBytes }

    /// The next `count` bytes, not consumed (fewer only at the end of the file).
    func peek(_ count: Int) throws(TraceError) -> [UInt8] {
        while file.end - file.start < count, !file.atEOF, try file.refill() {}
        return Array(UnsafeRawBufferPointer(start: file.buffer + file.start, count: min(count, file.end - file.start)))
    }

    /// Consumes `count` bytes (a header already peeked).
    func skip(_ count: Int) throws(TraceError) {
        _ = try peek(count)
        file.start += min(count, file.end - file.start)
    }

    /// The next run of whole records in the buffer (at most `limit`, nil at the end),
    /// consumed; a partial record at the end of the file is an error at its offset.
    /// Complexity: O(1) amortized per record (one buffer refill per megabyte).
    @inline(__always)
    func nextRecords(limit: Int) throws(TraceError) -> (base: UnsafeRawPointer, count: Int)? {
        while true {
            let available = file.end - file.start
            if available >= recordSize {
                let records = min(available / recordSize, limit)
                let base = UnsafeRawPointer(file.buffer + file.start)
                file.start += records * recordSize
                return (base, records)
            }
            if !file.atEOF, try file.refill() { continue }
            if available == 0 { return nil }
            throw TraceError(path: path, line: nil, reason: "byte \(file.consumedBytes): truncated record (\(available) of \(recordSize) bytes)")
        }
    }
}

/// A reader of one binary record layout (vscsi, lcs): what such readers share. Their records
/// are all read or the file is refused, so none is ever skipped.
protocol BinaryRecordReader: AppendingRequestSource {
    var stream: BinaryRecordStream { get }
}

extension BinaryRecordReader {
    var path: String { stream.path }
    var progress: Double? { stream.progress }
    var skippedRows: Int { 0 }
}
