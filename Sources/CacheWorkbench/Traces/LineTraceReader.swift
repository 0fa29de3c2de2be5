import WorkbenchCore
import WorkbenchMetrics
#if canImport(Glibc)
import Glibc
#endif

/// The fields of one line, borrowed from the reader's buffer (valid during the call).
struct LineFields {
    let base: UnsafePointer<UnsafeRawBufferPointer>
    let count: Int

    subscript(_ index: Int) -> UnsafeRawBufferPointer { base[index] }
}

/// A line-oriented trace format without quoting: how a line splits and what requests it
/// makes. One small type per format; `LineTraceReader` does the reading, line numbers,
/// errors and `--skip-bad`.
protocol LineFormat {
    /// The field separator; nil splits on runs of spaces and tabs.
    var separator: UInt8? { get }
    /// Sees the first non-blank line; returns true when it is a header (then not a row).
    /// May learn the column layout from it.
    mutating func header(_ fields: LineFields) throws(FieldParsing.Failure) -> Bool
    /// Appends the requests one row stands for (usually one); may count rows.
    mutating func requests(_ fields: LineFields, keepKeyNames: Bool, into requests: inout [Request]) throws(FieldParsing.Failure)
    /// Whether rows say what each request does (`RequestSource.carriesOperations`).
    var carriesOperations: Bool { get }
}

extension LineFormat {
    var carriesOperations: Bool { false }
}

/// Streams a line-oriented trace through a fixed buffer (memory does not grow with the
/// trace). LF or CRLF line ends, an optional UTF-8 byte-order mark, blank lines ignored.
final class LineTraceReader<Format: LineFormat>: AppendingRequestSource {
    static var maxColumns: Int { 32 }

    let path: String
    private let file: ChunkedFileReader
    private let options: ReadOptions
    private var format: Format
    private var sawFirstLine = false
    private var line = 0
    private let fields: UnsafeMutablePointer<UnsafeRawBufferPointer>
    private(set) var skippedRows = 0

    init(path: String, format: Format, options: ReadOptions) throws(TraceError) {
        self.path = path
        self.format = format
        self.options = options
        file = try ChunkedFileReader(path: path)
        fields = .allocate(capacity: Self.maxColumns)
    }

    deinit { fields.deallocate() }

    var progress: Double? { file.progress }
    var carriesOperations: Bool { format.carriesOperations }

    func append(to requests: inout [Request], limit: Int) throws -> Int {
        let before = requests.count
        while requests.count - before < limit, let count = try nextLine() {
            if count == 0 { continue }  // blank
            let row = LineFields(base: UnsafePointer(fields), count: min(count, Self.maxColumns))
            if !sawFirstLine {
                sawFirstLine = true
                // A bad header is never skippable: every row after it would be misread.
                do throws(FieldParsing.Failure) {
                    if try format.header(row) { continue }
                } catch {
                    throw TraceError(path: path, line: line, reason: error.reason)
                }
            }
            do throws(FieldParsing.Failure) {
                let mark = requests.count
                do throws(FieldParsing.Failure) {
                    if count > Self.maxColumns { throw FieldParsing.Failure("more than \(Self.maxColumns) fields") }
                    try format.requests(row, keepKeyNames: options.keepKeyNames, into: &requests)
                } catch {
                    requests.removeSubrange(mark...)
                    throw error
                }
            } catch {
                // Any data row may be skipped, the first included (headerless formats).
                if options.skipBadRows {
                    skippedRows += 1
                    continue
                }
                throw TraceError(path: path, line: line, reason: error.reason)
            }
        }
        return requests.count - before
    }

    /// Splits the next line into `fields`; returns the field count (0 for a blank line),
    /// or nil at the end of the file.
    private func nextLine() throws(TraceError) -> Int? {
        guard let (bytes, _) = try file.nextLine(limit: options.maxLineBytes, path: path, line: line + 1) else { return nil }
        return split(bytes.baseAddress ?? UnsafeRawPointer(file.buffer), length: bytes.count)
    }

    private func split(_ start: UnsafeRawPointer, length: Int) -> Int {
        line += 1
        var row = start
        var length = length
        if length > 0 && row.load(fromByteOffset: length - 1, as: UInt8.self) == 0x0D { length -= 1 }
        if line == 1 { FieldParsing.skipByteOrderMark(&row, &length) }
        var count = 0
        func add(_ from: UnsafeRawPointer, _ to: UnsafeRawPointer) {
            if count < Self.maxColumns { fields[count] = UnsafeRawBufferPointer(start: from, count: to - from) }
            count += 1
        }
        let end = row + length
        if let separator = format.separator {
            guard length > 0 else { return 0 }
            var fieldStart = row
            var cursor = row
            while cursor < end {
                if cursor.load(as: UInt8.self) == separator {
                    add(fieldStart, cursor)
                    fieldStart = cursor + 1
                }
                cursor += 1
            }
            add(fieldStart, end)
        } else {
            var cursor = row
            while cursor < end {
                while cursor < end, cursor.load(as: UInt8.self) == 0x20 || cursor.load(as: UInt8.self) == 0x09 { cursor += 1 }
                guard cursor < end else { break }
                let fieldStart = cursor
                while cursor < end, cursor.load(as: UInt8.self) != 0x20 && cursor.load(as: UInt8.self) != 0x09 { cursor += 1 }
                add(fieldStart, cursor)
            }
        }
        return count
    }
}
