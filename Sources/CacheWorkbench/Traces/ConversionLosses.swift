/// What `bench convert` could not carry into its target, counted per kind, so a lossy
/// conversion says how many requests lost what (never a silent approximation):
///
/// | kind                         | csv  | lcs (v3)          | oracleGeneral       |
/// |------------------------------|------|-------------------|---------------------|
/// | fractional time              | kept | floored (counted) | floored (counted)   |
/// | key text (non-integer keys)  | kept | 64-bit digest     | 64-bit digest       |
/// | width × height               | kept | dropped           | dropped             |
/// | op (set, delete)             | kept | kept              | dropped (read: get) |
/// | HTTP facts (HAR)             | dropped | dropped        | dropped             |
///
/// A value the target cannot hold at all — a negative time, a time of 2^32 s or more, an
/// oracleGeneral size of 2^32 bytes or more — is refused by the writer (exit 2), not cut.
/// O(1) per request.
public struct ConversionLosses: Sendable, Equatable {
    public var fractionalTimes = 0
    public var hashedKeys = 0
    public var droppedDimensions = 0
    public var droppedOperations = 0
    public var droppedHTTPFacts = 0

    public init() {}

    /// Counts what `request` loses in `target`.
    mutating func count(_ request: Request, in target: TraceConversion.Target) {
        if request.http != nil { droppedHTTPFacts += 1 }
        guard target != .csv else { return }
        if request.time.rounded(.down) != request.time { fractionalTimes += 1 }
        if request.name != nil { hashedKeys += 1 }
        if request.hasDimensions { droppedDimensions += 1 }
        if target == .oracleGeneral && request.operation != .get { droppedOperations += 1 }
    }

    public var isEmpty: Bool { self == ConversionLosses() }

    /// One phrase per kind with a nonzero count, in the table's order.
    public var phrases: [String] {
        var phrases: [String] = []
        if fractionalTimes > 0 { phrases.append("\(fractionalTimes) times cut to whole seconds") }
        if hashedKeys > 0 { phrases.append("\(hashedKeys) keys' text replaced by its 64-bit digest (the target holds integer ids)") }
        if droppedDimensions > 0 { phrases.append("\(droppedDimensions) requests' width×height dropped (the target has no such fields)") }
        if droppedOperations > 0 { phrases.append("\(droppedOperations) set/delete ops dropped (oracleGeneral has no op: read back as gets)") }
        if droppedHTTPFacts > 0 { phrases.append("\(droppedHTTPFacts) requests' HTTP facts (status, caching headers, timings) dropped (no trace file format holds them)") }
        return phrases
    }
}
