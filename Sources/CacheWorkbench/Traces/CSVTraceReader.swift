import WorkbenchCore
import WorkbenchMetrics
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the native CSV trace format and the plain `timestamp,key,size` shape.
///
/// Native: a header naming the columns, `time,key,size[,width,height][,op]` (any order;
/// aliases such as `timestamp`, `obj_id`, `obj_size` accepted). Without a header the
/// column count decides: 3 = time,key,size; 4 = +op; 5 = +width,height; 6 = all.
/// RFC 4180 quoting (commas, doubled quotes and newlines inside quotes), CRLF or LF line
/// ends, an optional UTF-8 byte-order mark. Blank lines are not rows.
///
/// Streams through a fixed buffer: memory does not grow with the trace.
public final class CSVTraceReader: AppendingRequestSource {
    static let maxColumns = 16

    public let path: String
    private let file: ChunkedFileReader
    private let options: ReadOptions
    private var layout: CSVLayout?
    /// Lines fully consumed; the next row starts on line `linesConsumed + 1`.
    private var linesConsumed = 0
    private var fields: UnsafeMutablePointer<UnsafeRawBufferPointer>
    private var fieldCount = 0
    /// Unescaped copies of quoted fields; as large as the file buffer, so never reallocated mid-row.
    private var scratch: UnsafeMutableRawPointer
    private var scratchCapacity: Int
    public private(set) var skippedRows = 0
    /// Known once the header or first row has set the layout: whether it has an op column.
    public var carriesOperations: Bool { layout?.op != nil }

    public init(path: String, options: ReadOptions = ReadOptions()) throws(TraceError) {
        self.path = path
        self.options = options
        self.file = try ChunkedFileReader(path: path)
        self.fields = .allocate(capacity: Self.maxColumns)
        self.scratchCapacity = file.capacity
        self.scratch = .allocate(byteCount: scratchCapacity, alignment: 16)
    }

    deinit {
        fields.deallocate()
        scratch.deallocate()
    }

    public var progress: Double? { file.progress }

    /// From the file size and the bytes per row so far (after the first chunk).
    public var expectedCount: Int? {
        guard let total = file.totalBytes, linesConsumed > 0, file.consumedBytes > 0 else { return nil }
        return Int(Double(total) / Double(file.consumedBytes) * Double(linesConsumed) * 1.02)
    }

    public func append(to requests: inout [Request], limit: Int) throws -> Int {
        var added = 0
        while added < limit, let request = try nextRequest() {
            requests.append(request)
            added += 1
        }
        return added
    }

    /// The next data row as a request; nil at end of file.
    func nextRequest() throws(TraceError) -> Request? {
        while let line = try readRow() {
            if fieldCount == 1 && fields[0].isEmpty { continue }  // blank line
            do {
                guard let layout else {
                    let decided: CSVLayout
                    do {
                        decided = try CSVLayout.decide(firstRow: currentFields)
                    } catch {
                        // A bad header is never skippable: every row after it would be misread.
                        throw TraceError(path: path, line: line, reason: error.reason)
                    }
                    self.layout = decided
                    if decided.hasHeader { continue }
                    return try makeRequest(decided)
                }
                return try makeRequest(layout)
            } catch let error as TraceError {
                throw error
            } catch {
                // Any data row may be skipped, a headerless file's first included.
                if options.skipBadRows {
                    skippedRows += 1
                    continue
                }
                throw TraceError(path: path, line: line, reason: (error as? FieldParsing.Failure)?.reason ?? "\(error)")
            }
        }
        return nil
    }

    private var currentFields: [UnsafeRawBufferPointer] {
        (0..<min(fieldCount, Self.maxColumns)).map { fields[$0] }
    }

    @inline(__always)
    private func makeRequest(_ layout: CSVLayout) throws(FieldParsing.Failure) -> Request {
        guard fieldCount == layout.columnCount else {
            throw FieldParsing.Failure(
                "expected \(layout.columnCount) columns (\(layout.columnNames)), found \(fieldCount)")
        }
        let key = try FieldParsing.key(fields[layout.key], keepName: options.keepKeyNames)
        let time = try FieldParsing.time(fields[layout.time])
        let size = try FieldParsing.size(fields[layout.size], column: "size")
        var width: UInt32 = 0
        var height: UInt32 = 0
        if let widthColumn = layout.width, let heightColumn = layout.height {
            width = try FieldParsing.dimension(fields[widthColumn], column: "width")
            height = try FieldParsing.dimension(fields[heightColumn], column: "height")
            try FieldParsing.checkDimensions(width: width, height: height)
        }
        let operation = try layout.op.map { column throws(FieldParsing.Failure) in
            try FieldParsing.operation(fields[column])
        } ?? .get
        var ttl: UInt32 = 0
        if let column = layout.ttl {
            guard let seconds = UInt32(FieldParsing.text(fields[column]).trimmingSpaces) else {
                throw FieldParsing.Failure("ttl \(FieldParsing.quote(fields[column])) is not whole seconds from 0 to 4294967295")
            }
            ttl = seconds
        }
        return Request(
            time: time, id: key.id, size: size, width: width, height: height,
            operation: operation, name: key.name, ttl: ttl)
    }

    // MARK: - Row splitting

    /// Splits the next row into `fields`; returns the line it starts on, or nil at EOF.
    private func readRow() throws(TraceError) -> Int? {
        while true {
            let available = file.end - file.start
            let base = UnsafeRawPointer(file.buffer + file.start)
            if available > 0 {
                let newline = memchr(base, 0x0A, available).map { UnsafeRawPointer($0) - base }
                if let newline, splitUnquoted(base, length: newline) {
                    try LineLengthLimit.check(available: newline, limit: options.maxLineBytes, path: path, line: linesConsumed + 1)
                    file.start += newline + 1
                    linesConsumed += 1
                    return linesConsumed
                }
                if newline != nil || file.atEOF {
                    let line = linesConsumed + 1
                    if let (consumed, newlines) = try splitQuoted(base, available: available, line: line) {
                        let endsInLineFeed = consumed > 0 && base.load(fromByteOffset: consumed - 1, as: UInt8.self) == 0x0A
                        try LineLengthLimit.check(available: endsInLineFeed ? consumed - 1 : consumed, limit: options.maxLineBytes, path: path, line: line)
                        file.start += consumed
                        linesConsumed += 1 + newlines
                        return line
                    }
                }
            } else if file.atEOF {
                return nil
            }
            // The row has not ended within what is held: it is at least that long.
            try LineLengthLimit.check(available: available, limit: options.maxLineBytes, path: path, line: linesConsumed + 1)
            if !(try file.refill()) && file.end == file.start { return nil }
            if file.capacity > scratchCapacity { growScratch() }
        }
    }

    private func growScratch() {
        scratch.deallocate()
        scratchCapacity = file.capacity
        scratch = .allocate(byteCount: scratchCapacity, alignment: 16)
    }

    @inline(__always)
    private func appendField(_ start: UnsafeRawPointer, _ count: Int) {
        if fieldCount < Self.maxColumns {
            fields[fieldCount] = UnsafeRawBufferPointer(start: start, count: count)
        }
        fieldCount += 1
    }

    /// The common case: no quotes anywhere in the row. Returns false, having split
    /// nothing for good, when it meets a quote (the row then takes `splitQuoted`).
    @inline(__always)
    private func splitUnquoted(_ base: UnsafeRawPointer, length: Int) -> Bool {
        var row = base
        var length = length
        if length > 0 && row.load(fromByteOffset: length - 1, as: UInt8.self) == 0x0D { length -= 1 }
        if linesConsumed == 0 { FieldParsing.skipByteOrderMark(&row, &length) }
        fieldCount = 0
        var fieldStart = row
        let end = row + length
        var cursor = row
        while cursor < end {
            let byte = cursor.load(as: UInt8.self)
            if byte == 0x2C {
                appendField(fieldStart, cursor - fieldStart)
                fieldStart = cursor + 1
            } else if byte == 0x22 {
                return false
            }
            cursor += 1
        }
        appendField(fieldStart, end - fieldStart)
        return true
    }

    /// RFC 4180 row with quotes. Returns bytes consumed (with the line end) and the newlines
    /// inside quoted fields, or nil when the buffer ends before the row does.
    private func splitQuoted(_ row: UnsafeRawPointer, available: Int, line: Int) throws(TraceError) -> (Int, Int)? {
        let final = file.atEOF
        var index = 0
        if linesConsumed == 0 {
            var start = row
            var remaining = available
            FieldParsing.skipByteOrderMark(&start, &remaining)
            index = start - row
        }
        var newlines = 0
        var scratchUsed = 0
        fieldCount = 0
        @inline(__always) func byte(_ at: Int) -> UInt8 { row.load(fromByteOffset: at, as: UInt8.self) }
        while true {
            if index < available && byte(index) == 0x22 {
                index += 1
                let fieldStart = scratchUsed
                while true {
                    guard index < available else {
                        if final { throw TraceError(path: path, line: line, reason: "quoted field is not closed before the end of the file") }
                        return nil
                    }
                    let current = byte(index)
                    if current == 0x22 {
                        if index + 1 < available && byte(index + 1) == 0x22 {
                            scratch.storeBytes(of: 0x22, toByteOffset: scratchUsed, as: UInt8.self)
                            scratchUsed += 1
                            index += 2
                            continue
                        }
                        if index + 1 >= available && !final { return nil }
                        index += 1
                        break
                    }
                    if current == 0x0A { newlines += 1 }
                    scratch.storeBytes(of: current, toByteOffset: scratchUsed, as: UInt8.self)
                    scratchUsed += 1
                    index += 1
                }
                appendField(UnsafeRawPointer(scratch + fieldStart), scratchUsed - fieldStart)
                if index >= available { return final ? (index, newlines) : nil }
                switch byte(index) {
                case 0x2C: index += 1; continue
                case 0x0A: return (index + 1, newlines)
                case 0x0D where index + 1 < available && byte(index + 1) == 0x0A: return (index + 2, newlines)
                case 0x0D where index + 1 >= available: if final { return (index + 1, newlines) } else { return nil }
                default:
                    throw TraceError(path: path, line: line + newlines, reason: "unexpected character after a closing quote (a quote inside a field must be doubled)")
                }
            } else {
                let fieldStart = index
                while index < available {
                    let current = byte(index)
                    if current == 0x2C || current == 0x0A { break }
                    index += 1
                }
                if index >= available && !final { return nil }
                var fieldEnd = index
                if fieldEnd > fieldStart && byte(fieldEnd - 1) == 0x0D && (index >= available || byte(index) == 0x0A) {
                    fieldEnd -= 1
                }
                appendField(row + fieldStart, fieldEnd - fieldStart)
                if index >= available { return (index, newlines) }
                if byte(index) == 0x0A { return (index + 1, newlines) }
                index += 1  // comma
            }
        }
    }
}
