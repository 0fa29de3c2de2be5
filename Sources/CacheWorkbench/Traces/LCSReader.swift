import WorkbenchCore
import WorkbenchMetrics
/// libCacheSim's self-describing `lcs` binary traces, in both layouts libCacheSim has written.
///
/// **8 KiB header** (the PyPI release 0.3.5's `traceReader/customizedReader/lcs.h` and
/// `lcs.c`, written by its `traceConvLCS`): `u64 start_magic` 0x123456789abcdef0, `u64
/// version`, 8000 bytes of trace statistics, 168 unused bytes, `u64 end_magic` (the same
/// value), then packed little-endian records whose layout the version chooses:
///
/// | version | bytes | fields |
/// | --- | --- | --- |
/// | 1 | 24 | u32 time, u64 id, u32 size, i64 next access (oracleGeneral's record) |
/// | 2 | 28 | u32 time, u64 id, u32 size, u32 op:8 + tenant:24, i64 next access |
/// | 3 | 36 | u32 time, u64 id, i64 size, u32 op:8 + tenant:24, u32 ttl, i64 next access |
/// | 4–8 | 40, 44, 52, 68, 100 | version 3's record + 1, 2, 4, 8, 16 u32 features |
///
/// **1 KiB header** (the repository at aa0fc40, Oct 2024: `traceReader/generalReader/lcs.h`
/// lines 15–56, read through `binary.c`; written by `traceConv.cpp`'s `_reverse_file`):
/// `u64 start_magic` at 0, a Python-struct format string at 8 (240 bytes, `<` first, e.g.
/// `<IQIQ`), one byte per field number at 248–256 (id, size, time, last access, next access,
/// op, ttl, tenant, content type; 1-based, 0 = absent), the counts at 488–519, `u32
/// n_fields` at 1000, `u32 item_size` at 1004, a version at 1008 that nothing reads, `u64
/// end_magic` at 1016; records from byte 1024, each field placed after the sizes of those
/// before it. Byte 8 tells the layouts apart: `<` there, a version of 1 to 8 in the other.
/// As `binary.c`'s `read_data` does, every field is read as a signed integer of its width
/// (`I` as `int32_t`, `B` as `int8_t`; `f` and `d` converted), a missing size is 1 and a
/// missing time 0 (`new_request`), and the header is checked as `verify_LCS_trace_header`
/// does (magics, `n_fields` = the format's length, the id field within it, `item_size` = the
/// format's bytes).
///
/// What the workbench reads: time (seconds), id, size and the op where the layout has one
/// (`LibCacheSimOperation`); tenant, ttl, features and next access are not used. Like
/// libCacheSim's readers it reads records to the end of the file, not `n_req` of them; a
/// negative size (or an oversized v3+ one) is an error, where libCacheSim would take it.
/// Complexity: O(1) per record.
final class LCSReader: BinaryRecordReader {
    static let headerSize = 8192
    static let magic: UInt64 = 0x1234_5678_9abc_def0
    /// Record bytes by version (index = version; lcs.h's structs, asserted there).
    static let recordSizes = [0, 24, 28, 36, 40, 44, 52, 68, 100]

    /// The 1 KiB layout's header size.
    static let repositoryHeaderSize = 1024

    /// The 8 KiB layout's version, or 0 for the 1 KiB layout (whose records `format` says).
    let version: Int
    let format: RecordFormat?
    let stream: BinaryRecordStream

    init(path: String) throws(TraceError) {
        stream = try BinaryRecordStream(path: path)
        let start = try stream.peek(16)
        if start.count > 8, start[8] == UInt8(ascii: "<") {
            let header = try stream.peek(Self.repositoryHeaderSize)
            let format = try RecordFormat(header, path: path)
            (version, self.format) = (0, format)
            try stream.skip(Self.repositoryHeaderSize)
            stream.recordSize = format.recordSize
        } else {
            let header = try stream.peek(Self.headerSize)
            (version, format) = (try Self.version(header, path: path), nil)
            try stream.skip(Self.headerSize)
            stream.recordSize = Self.recordSizes[version]
        }
    }

    /// The 1 KiB layout's record: where each field the workbench reads lies, and its type.
    struct RecordFormat {
        struct Field {
            let offset: Int
            let type: UInt8
        }
        let recordSize: Int
        let id: Field
        let time: Field?
        let size: Field?
        let operation: Field?

        /// Bytes of a field of Python-struct type `type` (`binary.c`'s `format_to_size`).
        static func bytes(_ type: UInt8) -> Int? {
            switch type {
            case UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "c"): 1
            case UInt8(ascii: "h"), UInt8(ascii: "H"): 2
            case UInt8(ascii: "i"), UInt8(ascii: "I"), UInt8(ascii: "l"), UInt8(ascii: "L"), UInt8(ascii: "f"): 4
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), UInt8(ascii: "d"): 8
            default: nil
            }
        }

        /// Checks a 1 KiB header as `verify_LCS_trace_header` does and places the fields.
        init(_ header: [UInt8], path: String) throws(TraceError) {
            func fail(_ byte: Int, _ reason: String) -> TraceError { TraceError(path: path, line: nil, reason: "byte \(byte): \(reason)") }
            func word(_ offset: Int) -> UInt64 { LCSReader.littleEndian(header, at: offset, bytes: 8) }
            func word32(_ offset: Int) -> Int { Int(LCSReader.littleEndian(header, at: offset, bytes: 4)) }
            let size = LCSReader.repositoryHeaderSize
            guard header.count == size else {
                throw fail(0, "\(header.count) bytes, shorter than the \(size)-byte header of an lcs trace with a format string (libCacheSim aa0fc40's layout)")
            }
            guard word(0) == LCSReader.magic else { throw fail(0, "not an lcs trace: start magic is 0x\(String(word(0), radix: 16)), not 0x123456789abcdef0") }
            guard word(size - 8) == LCSReader.magic else {
                throw fail(size - 8, "lcs header's end magic is 0x\(String(word(size - 8), radix: 16)), not 0x123456789abcdef0 (a format string at byte 8 says the 1 KiB layout of libCacheSim aa0fc40)")
            }
            guard let end = header[8..<248].firstIndex(of: 0) else { throw fail(8, "lcs format string has no terminating NUL in its 240 bytes") }
            let types = Array(header[9..<end])  // after the '<'
            let fields = word32(1000)
            guard fields == types.count, fields > 0 else {
                throw fail(1000, "lcs header says \(fields) fields, its format string '\(String(decoding: header[8..<end], as: UTF8.self))' has \(types.count)")
            }
            var offsets: [Int] = []
            var total = 0
            for (index, type) in types.enumerated() {
                guard let bytes = Self.bytes(type) else { throw fail(9 + index, "lcs format character '\(String(UnicodeScalar(type)))' is not one libCacheSim reads (b B c h H i I l L f q Q d)") }
                offsets.append(total)
                total += bytes
            }
            guard word32(1004) == total else { throw fail(1004, "lcs header's item size \(word32(1004)) is not its format's \(total) bytes") }
            /// Field `number` (1-based; 0, or one past the format, absent).
            func field(_ byte: Int) -> Field? {
                let number = Int(header[byte])
                return (1...fields).contains(number) ? Field(offset: offsets[number - 1], type: types[number - 1]) : nil
            }
            guard let id = field(248) else { throw fail(248, "lcs header's object id field \(header[248]) is not one of its \(fields) fields") }
            (recordSize, self.id, time, self.size, operation) = (total, id, field(250), field(249), field(253))
        }

        /// A field's value as `read_data` gives it: signed, of its width.
        @inline(__always)
        static func read(_ field: Field, _ record: UnsafeRawPointer) -> Int64 {
            let at = record + field.offset
            switch field.type {
            case UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "c"): return Int64(at.load(as: Int8.self))
            case UInt8(ascii: "h"), UInt8(ascii: "H"): return Int64(Int16(littleEndian: at.loadUnaligned(as: Int16.self)))
            case UInt8(ascii: "f"): return Int64(exactly: Float(bitPattern: UInt32(littleEndian: at.loadUnaligned(as: UInt32.self))).rounded(.towardZero)) ?? 0
            case UInt8(ascii: "d"): return Int64(exactly: Double(bitPattern: UInt64(littleEndian: at.loadUnaligned(as: UInt64.self))).rounded(.towardZero)) ?? 0
            case UInt8(ascii: "q"), UInt8(ascii: "Q"): return Int64(littleEndian: at.loadUnaligned(as: Int64.self))
            default: return Int64(Int32(littleEndian: at.loadUnaligned(as: Int32.self)))
            }
        }

        func decode(_ record: UnsafeRawPointer) throws(FieldParsing.Failure) -> Request {
            let id = UInt64(bitPattern: Self.read(self.id, record))
            let time = time.map { Self.read($0, record) } ?? 0
            let size = size.map { Self.read($0, record) } ?? 1
            guard size >= 0, size <= SizeLimits.largestObject else {
                throw FieldParsing.Failure("size \(size) is \(size < 0 ? "negative" : "larger than the largest object accepted, 2^53 bytes")")
            }
            guard time >= 0 else { throw FieldParsing.Failure("time \(time) is negative") }
            var operation = Operation.get
            if let field = self.operation {
                let code = Self.read(field, record)
                guard let byte = UInt8(exactly: code) else { throw FieldParsing.Failure("op \(code) is not one of libCacheSim's (0 to 14)") }
                operation = try LibCacheSimOperation.operation(code: byte)
            }
            return Request(time: Double(time), id: id, size: Int(size), operation: operation)
        }
    }

    /// `bytes` bytes of `header` from `offset`, little-endian (both layouts' header words).
    static func littleEndian(_ header: [UInt8], at offset: Int, bytes: Int) -> UInt64 {
        (0..<bytes).reduce(0) { $0 | UInt64(header[offset + $1]) << (8 * $1) }
    }

    /// The version an lcs header states, after checking its magics and counts as
    /// libCacheSim's `_verify_lcs_header` does.
    static func version(_ header: [UInt8], path: String) throws(TraceError) -> Int {
        func word(_ offset: Int) -> UInt64 { littleEndian(header, at: offset, bytes: 8) }
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

    var expectedCount: Int? {
        stream.totalBytes.map { max(0, $0 - (format == nil ? Self.headerSize : Self.repositoryHeaderSize)) / stream.recordSize }
    }
    var carriesOperations: Bool { version >= 2 || format?.operation != nil }

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
        if let format { return try format.decode(record) }
        let time = UInt32(littleEndian: record.loadUnaligned(as: UInt32.self))
        let id = UInt64(littleEndian: record.loadUnaligned(fromByteOffset: 4, as: UInt64.self))
        let size: Int
        var operation = Operation.get
        var ttl: UInt32 = 0
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
            ttl = UInt32(littleEndian: record.loadUnaligned(fromByteOffset: 24, as: UInt32.self))
        }
        return Request(time: Double(time), id: id, size: size, operation: operation, ttl: ttl)
    }
}
