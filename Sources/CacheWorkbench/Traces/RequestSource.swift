import WorkbenchCore
import WorkbenchMetrics
/// A stream of requests in trace order, handed out in chunks so the replay loop makes one
/// dynamic call per few thousand requests instead of one per request.
public protocol RequestSource: AnyObject {
    /// The next requests, or nil at the end. Throws `TraceError` on malformed input.
    func nextChunk() throws -> ArraySlice<Request>?
    /// Share of the input consumed, in 0...1, when the size is known.
    var progress: Double? { get }
    /// Rows passed over because the user asked to skip malformed ones.
    var skippedRows: Int { get }
    /// A guess at the number of requests, for reserving memory; nil when unknown.
    var expectedCount: Int? { get }
    /// Appends the next requests (about `limit`) straight to `requests`, sparing a chunk's
    /// copy; returns how many, 0 at the end.
    func append(to requests: inout [Request], limit: Int) throws -> Int
    /// Whether the trace says what each request does (get, set, delete), which `--mode ops`
    /// needs; a reader that learns its layout from the first line knows after the first
    /// chunk.
    var carriesOperations: Bool { get }
}

extension RequestSource {
    public var expectedCount: Int? { nil }
    public var carriesOperations: Bool { false }

    public func append(to requests: inout [Request], limit: Int) throws -> Int {
        guard let chunk = try nextChunk() else { return 0 }
        requests.append(contentsOf: chunk)
        return chunk.count
    }
}

/// A reader that parses straight into the caller's array (`append(to:limit:)`, which
/// `InMemoryTrace.load` uses); its chunks for streaming replays come from the same code.
public protocol AppendingRequestSource: RequestSource {}

extension AppendingRequestSource {
    public func nextChunk() throws -> ArraySlice<Request>? {
        var chunk: [Request] = []
        chunk.reserveCapacity(4096)
        return try append(to: &chunk, limit: 4096) > 0 ? chunk[...] : nil
    }
}

/// A reader of fixed-size binary records that can decode straight into uninitialized
/// memory, for `InMemoryTrace.load`, or into `KeyRecord`s, for `PackedRecordTrace`
/// (`expectedCount` must then be exact or an over-estimate).
protocol BulkRequestSource: RequestSource {
    /// Initializes `buffer[count...]` with the next requests, advancing `count` as it goes
    /// (so a throw leaves `count` initialized); stops when full or at the end.
    func fill(_ buffer: UnsafeMutableBufferPointer<Request>, count: inout Int) throws
    /// Initializes `destination[count...]` with the next records' ids, sizes and times,
    /// advancing `count`; stops after `capacity` records or at the end. A partial last
    /// record throws.
    func decodeKeyRecords(to destination: UnsafeMutablePointer<KeyRecord>, capacity: Int, count: inout Int) throws
}

/// A streaming chunk of requests rewritten in place for each chunk once the caller has let
/// go of the last one (a replay loop does; one that keeps it gets a copy, copy-on-write):
/// a binary reader decodes its records field by field into it, so no request is built,
/// copied and destroyed per record. O(size) once, then O(chunk) per chunk.
struct ReusedRequestChunk {
    private var requests: [Request] = []
    let size: Int

    init(size: Int) { self.size = size }

    /// The next chunk: `decode` fills the buffer's first requests and returns how many
    /// (0 at the end, then nil).
    mutating func refill(_ decode: (UnsafeMutableBufferPointer<Request>) throws -> Int) rethrows -> ArraySlice<Request>? {
        if requests.isEmpty { requests = Array(repeating: Request(time: 0, id: 0, size: 0), count: size) }
        let count = try requests.withUnsafeMutableBufferPointer { try decode($0) }
        return count > 0 ? requests[..<count] : nil
    }
}

/// Something that can be replayed any number of times: a file, or requests in memory.
public protocol Trace: Sendable {
    /// What the results name as the trace (a path, or a generator description).
    var label: String { get }
    func open(keepKeyNames: Bool) throws -> any RequestSource
}

/// How a reader treats its input, whatever the format.
public struct ReadOptions: Sendable, Equatable {
    /// Keep key text on each request (backends that store by name need it).
    public var keepKeyNames: Bool
    /// Skip malformed rows and count them instead of stopping at the first.
    public var skipBadRows: Bool
    /// Format-specific settings (`columns`, `header`, `delimiter` for libcachesim-csv).
    public var formatOptions: [String: String]
    /// The longest line a text format's reader accepts (`LineLengthLimit`).
    public var maxLineBytes: Int

    public init(keepKeyNames: Bool = true, skipBadRows: Bool = false, formatOptions: [String: String] = [:],
                maxLineBytes: Int = LineLengthLimit.defaultBytes) {
        self.keepKeyNames = keepKeyNames
        self.skipBadRows = skipBadRows
        self.formatOptions = formatOptions
        self.maxLineBytes = maxLineBytes
    }
}

/// Requests held in memory: replays measure cache work only, not parsing.
public final class InMemoryTrace: Trace, @unchecked Sendable {
    public let label: String
    public let requests: [Request]
    /// Rows the reader skipped while loading (with skip-bad), reported with each run.
    public let skippedRows: Int
    /// Whether the source said what each request does (`RequestSource.carriesOperations`).
    public let carriesOperations: Bool

    public init(label: String, requests: [Request], skippedRows: Int = 0, carriesOperations: Bool = false) {
        self.label = label
        self.requests = requests
        self.skippedRows = skippedRows
        self.carriesOperations = carriesOperations
    }

    /// Reads a whole trace into memory for replays: binary records stay packed
    /// (`PackedRecordTrace`), anything else becomes requests (`load`).
    public static func preload(_ trace: any Trace, keepKeyNames: Bool) throws -> any Trace {
        let source = try trace.open(keepKeyNames: keepKeyNames)
        if let bulk = source as? any BulkRequestSource, source.expectedCount != nil {
            return try bulk.packed(label: trace.label)
        }
        return try load(trace, keepKeyNames: keepKeyNames)
    }

    /// Reads a whole trace into memory.
    public static func load(_ trace: any Trace, keepKeyNames: Bool) throws -> InMemoryTrace {
        let source = try trace.open(keepKeyNames: keepKeyNames)
        var requests: [Request] = []
        if let bulk = source as? BulkRequestSource, let expected = source.expectedCount {
            requests = try Array(unsafeUninitializedCapacity: expected) { buffer, count in
                guard let base = buffer.baseAddress else { return }
                try fillWhilePrefaulting(UnsafeMutableRawPointer(base), bytes: buffer.count * MemoryLayout<Request>.stride) {
                    try bulk.fill(buffer, count: &count)
                }
            }
        }
        var reserved = false
        while try source.append(to: &requests, limit: 1 << 16) > 0 {
            // Reserving once avoids copying the array each time it doubles.
            if !reserved, let expected = source.expectedCount {
                requests.reserveCapacity(expected)
                reserved = true
            }
        }
        return InMemoryTrace(label: trace.label, requests: requests, skippedRows: source.skippedRows, carriesOperations: source.carriesOperations)
    }

    public func open(keepKeyNames: Bool) throws -> any RequestSource {
        Cursor(requests: requests, skippedRows: skippedRows, carriesOperations: carriesOperations)
    }

    final class Cursor: RequestSource {
        static let chunkSize = 1 << 14
        let requests: [Request]
        var position = 0
        let skippedRows: Int
        let carriesOperations: Bool

        init(requests: [Request], skippedRows: Int, carriesOperations: Bool = false) {
            self.requests = requests
            self.skippedRows = skippedRows
            self.carriesOperations = carriesOperations
        }

        func nextChunk() throws -> ArraySlice<Request>? {
            guard position < requests.count else { return nil }
            let end = min(position + Self.chunkSize, requests.count)
            defer { position = end }
            return requests[position..<end]
        }

        var progress: Double? {
            requests.isEmpty ? 1 : Double(position) / Double(requests.count)
        }

        var expectedCount: Int? { requests.count }
    }
}
