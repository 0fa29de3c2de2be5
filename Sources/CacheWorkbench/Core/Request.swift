/// What a request asks of the cache. In demand-fill replay every request is read as a get;
/// the other operations matter only in modes that honour them.
public enum Operation: UInt8, Sendable, CaseIterable {
    case get, set, delete

    public var name: String {
        switch self {
        case .get: "get"
        case .set: "set"
        case .delete: "delete"
        }
    }
}

/// One request of a trace, in the same shape whatever format it was read from.
///
/// Keys are cheap in both common cases: `id` is always set (the integer itself for
/// integer keys, a stable 64-bit digest of the key text otherwise), so policy-only
/// backends never touch strings; `name` carries the key text only when the key is not a
/// plain integer and the reader was asked to keep names (real backends need them).
public struct Request: Sendable, Equatable {
    /// Seconds since the trace's origin (fractions allowed).
    public var time: Double
    public var id: UInt64
    /// Encoded (transfer) size in bytes.
    public var size: Int
    /// Decoded pixel dimensions; 0 when the trace does not say.
    public var width: UInt32
    public var height: UInt32
    public var operation: Operation
    /// Seconds the trace gives the object to live from this request (a ttl column, Twitter's
    /// traces, lcs version 3 and later); 0 when it gives none. Read only under `--use-ttl`.
    public var ttl: UInt32 = 0
    public var name: String?
    /// HTTP facts (status, caching headers, timings) when the trace recorded them (HAR);
    /// nil otherwise. One reference, so requests without it stay small.
    public var http: HTTPMetadata?
    /// What the app's own pipeline recorded (a CacheTraceRecorder recording); nil otherwise.
    public var recorded: RecordedImage?

    public init(
        time: Double, id: UInt64, size: Int, width: UInt32 = 0, height: UInt32 = 0,
        operation: Operation = .get, name: String? = nil, http: HTTPMetadata? = nil, recorded: RecordedImage? = nil, ttl: UInt32 = 0
    ) {
        self.ttl = ttl
        self.time = time
        self.id = id
        self.size = size
        self.width = width
        self.height = height
        self.operation = operation
        self.name = name
        self.http = http
        self.recorded = recorded
    }

    /// A request keyed by text; `id` is derived from the text with `KeyDigest`.
    public init(
        time: Double, key: String, size: Int, width: UInt32 = 0, height: UInt32 = 0,
        operation: Operation = .get
    ) {
        let parsed = KeyDigest.parse(key)
        self.init(
            time: time, id: parsed.id, size: size, width: width, height: height,
            operation: operation, name: parsed.isInteger ? nil : key)
    }

    /// The key as text, for backends that store by string (integers print in decimal).
    public var keyText: String { name ?? String(id) }

    public var hasDimensions: Bool { width > 0 && height > 0 }
}
