import WorkbenchCore
import WorkbenchMetrics
/// libCacheSim's self-describing `lcs` binary traces (traceReader/customizedReader/lcs.h
/// and lcs.c): an 8192-byte header — `u64 start_magic` 0x123456789abcdef0, `u64 version`,
/// 8000 bytes of trace statistics, 168 unused bytes, `u64 end_magic` (the same value) —
/// then packed little-endian records whose layout the version chooses:
///
/// | version | bytes | fields |
/// | --- | --- | --- |
/// | 1 | 24 | u32 time, u64 id, u32 size, i64 next access (oracleGeneral's record) |
/// | 2 | 28 | u32 time, u64 id, u32 size, u32 op:8 + tenant:24, i64 next access |
/// | 3 | 36 | u32 time, u64 id, i64 size, u32 op:8 + tenant:24, u32 ttl, i64 next access |
/// | 4–8 | 40, 44, 52, 68, 100 | version 3's record + 1, 2, 4, 8, 16 u32 features |
///
/// What the workbench reads: time (seconds), id, size and, from version 2 on, the op
/// (`LibCacheSimOperation`); tenant, ttl, features and next access are not used. Like
/// libCacheSim's reader it reads records to the end of the file, not `n_req` of them; a
/// negative or oversized v3+ size is an error, where libCacheSim would take it.
/// Complexity: O(1) per record.
final class LCSReader: BinaryRecordReader {
    static let headerSize = 8192
    static let magic: UInt64 = 0x1234_5678_9abc_def0
    /// Record bytes by version (index = version; lcs.h's structs, asserted there).
    static let recordSizes = [0, 24, 28, 36, 40, 44, 52, 68, 100]

    let version: Int
    let stream: BinaryRecordStream

    init(path: String) throws(TraceError) {
        stream = try BinaryRecordStream(path: path)
        let header = try stream.peek(Self.headerSize)
        version = try Self.version(header, path: path)
        try stream.skip(Self.headerSize)
        stream.recordSize = Self.recordSizes[version]
    }

    /// The version an lcs header states, after checking its magics and counts as
    /// libCacheSim's `_verify_lcs_header` does.
    static func version(_ header: [UInt8], path: String) throws(TraceError) -> Int {
        func word(_ offset: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(header[offset + $1]) << (8 * $1) } }
        guard header.count == headerSize else {
            throw TraceError(path: path, line: nil, reason: "byte 0: \(header.count) bytes, shorter than lcs's \(headerSize)-byte header")
        }
        guard word(0) == magic else { throw TraceError(path: path, line: nil, reason: "byte 0: not an lcs trace: start magic is 0x\(String(word(0), radix: 16)), not 0x123456789abcdef0") }
        guard word(headerSize - 8) == magic else {
            throw TraceError(path: path, line: nil, reason: "byte \(headerSize - 8): lcs header's end magic is 0x\(String(word(headerSize - 8), radix: 16)), not 0x123456789abcdef0")
        }
        // stat.n_req and stat.n_obj (header bytes 24 and 32) as signed.
        guard Int64(bitPattern: word(24)) >= 0, Int64(bitPattern: word(32)) >= 0 else {
            throw TraceError(path: path, line: nil, reason: "byte 24: lcs header's request or object count is negative")
        }
        guard (1...8).contains(word(8)) else {
            throw TraceError(path: path, line: nil, reason: "byte 8: lcs version \(word(8)) is not one libCacheSim reads (1 to 8)")
        }
        return Int(word(8))
    }

    var expectedCount: Int? { stream.totalBytes.map { max(0, $0 - Self.headerSize) / stream.recordSize } }
    var carriesOperations: Bool { version >= 2 }

    func append(to requests: inout [Request], limit: Int) throws -> Int {
        var added = 0
        while added < limit, let (base, records) = try stream.nextRecords(limit: limit - added) {
            let first = stream.consumedBytes - records * stream.recordSize
            for index in 0..<records {
                let record = base + index * stream.recordSize
                do {
                    requests.append(try decode(record))
                } catch {
                    throw TraceError(path: path, line: nil, reason: "byte \(first + index * stream.recordSize): \(error.reason)")
                }
            }
            added += records
        }
        return added
    }

    private func decode(_ record: UnsafeRawPointer) throws(FieldParsing.Failure) -> Request {
        let time = UInt32(littleEndian: record.loadUnaligned(as: UInt32.self))
        let id = UInt64(littleEndian: record.loadUnaligned(fromByteOffset: 4, as: UInt64.self))
        let size: Int
        var operation = Operation.get
        switch version {
        case 1:
            size = Int(UInt32(littleEndian: record.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
        case 2:
            size = Int(UInt32(littleEndian: record.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
            operation = try LibCacheSimOperation.operation(code: record.load(fromByteOffset: 16, as: UInt8.self))
        default:
            let wide = Int64(littleEndian: record.loadUnaligned(fromByteOffset: 12, as: Int64.self))
            guard wide >= 0, wide <= SizeLimits.largestObject else {
                throw FieldParsing.Failure("size \(wide) is \(wide < 0 ? "negative" : "larger than the largest object accepted, 2^53 bytes")")
            }
            size = Int(wide)
            operation = try LibCacheSimOperation.operation(code: record.load(fromByteOffset: 20, as: UInt8.self))
        }
        return Request(time: Double(time), id: id, size: size, operation: operation)
    }
}
