import WorkbenchCore
import WorkbenchMetrics
/// What `bench convert` could not carry into its target, counted per kind, so a lossy
/// conversion says how many requests lost what (never a silent approximation):
///
/// | kind                         | csv  | lcs (v2–v8)       | oracleGeneral, lcs v1, lcs-aa0fc40 |
/// |------------------------------|------|-------------------|---------------------|
/// | fractional time              | kept | floored (counted) | floored (counted)   |
/// | key text (non-integer keys)  | kept | 64-bit digest     | 64-bit digest       |
/// | width × height               | kept | dropped           | dropped             |
/// | op (set, delete)             | kept | kept              | dropped (read: get) |
/// | HTTP facts (HAR)             | dropped | dropped        | dropped             |
/// | an app recording's facts     | dropped | dropped        | dropped             |
///
/// An app recording converted to another format also loses its lifecycle events and its
/// http events (the image lookups are converted); a trace converted to an app recording
/// (`AppRecordingWriter`) lacks what its source never had, said with counts: the app's
/// outcome (`unknown` on every image event), lifecycle events, dimensions where the source
/// had none, the response headers the workbench does not keep, private request headers.
///
/// A value the target cannot hold at all — a negative time, a time of 2^32 s or more, an
/// oracleGeneral, lcs v1/v2 or lcs-aa0fc40 size of 2^32 bytes or more — is refused by the writer (exit 2),
/// not cut.
/// O(1) per request.
public struct ConversionLosses: Sendable, Equatable {
    public var fractionalTimes = 0
    public var hashedKeys = 0
    public var droppedDimensions = 0
    public var droppedOperations = 0
    /// The target that has no op, for the phrase.
    var operationlessTarget = "oracleGeneral"
    public var droppedHTTPFacts = 0
    /// Requests whose app-recorded facts (source, decoded cost, display size) were dropped,
    /// and the recording's lifecycle and http events left behind.
    public var droppedRecordedFacts = 0
    public var droppedLifecycleEvents = 0
    public var droppedHTTPEvents = 0
    /// Written as an app recording: what the source lacked (`AppRecordingWriter.Outcome`).
    public var recording: AppRecordingWriter.Outcome?

    public init() {}

    /// Counts what `request` loses in `target`.
    mutating func count(_ request: Request, in target: TraceConversion.Target, lcsVersion: Int = LCSWriter.version) {
        if request.recorded != nil { droppedRecordedFacts += 1 }
        guard target != .appRecording else { return }
        if request.http != nil { droppedHTTPFacts += 1 }
        guard target != .csv else { return }
        if request.time.rounded(.down) != request.time { fractionalTimes += 1 }
        if request.name != nil { hashedKeys += 1 }
        if request.hasDimensions { droppedDimensions += 1 }
        if (target == .oracleGeneral || target == .lcsRepository || (target == .lcs && lcsVersion == 1)) && request.operation != .get {
            droppedOperations += 1
            operationlessTarget = target == .oracleGeneral ? "oracleGeneral" : target == .lcs ? "lcs version 1" : "aa0fc40's lcs format <IQIQ"
        }
    }

    public var isEmpty: Bool { self == ConversionLosses() }

    /// One phrase per kind with a nonzero count, in the table's order.
    public var phrases: [String] {
        var phrases: [String] = []
        if fractionalTimes > 0 { phrases.append("\(fractionalTimes) times cut to whole seconds") }
        if hashedKeys > 0 { phrases.append("\(hashedKeys) keys' text replaced by its 64-bit digest (the target holds integer ids)") }
        if droppedDimensions > 0 { phrases.append("\(droppedDimensions) requests' width×height dropped (the target has no such fields)") }
        if droppedOperations > 0 { phrases.append("\(droppedOperations) set/delete ops dropped (\(operationlessTarget) has no op: read back as gets)") }
        if droppedHTTPFacts > 0 { phrases.append("\(droppedHTTPFacts) requests' HTTP facts (status, caching headers, timings) dropped (no trace file format holds them)") }
        if droppedRecordedFacts > 0 { phrases.append("\(droppedRecordedFacts) requests' app-recorded facts (where the app served it, decoded cost, display size) dropped") }
        if droppedLifecycleEvents > 0 { phrases.append("\(droppedLifecycleEvents) lifecycle events (memory warnings, backgrounds, foregrounds) dropped") }
        if droppedHTTPEvents > 0 { phrases.append("\(droppedHTTPEvents) http events (the URLSession log, with its headers) dropped: the image lookups were converted") }
        if let recording {
            phrases.append("\(recording.imageEvents) image events and \(recording.httpEvents) http events written")
            if recording.imageEvents > 0 { phrases.append("the app's outcome unknown on all \(recording.imageEvents) image events (source \"unknown\": the source does not say where an app found each image)") }
            phrases.append("no lifecycle events (the source has no memory warnings, backgrounds or foregrounds)")
            if recording.imagesWithoutDimensions > 0 { phrases.append("\(recording.imagesWithoutDimensions) image events without width × height (the source has no decoded size for them: pixel costs rest on the other rules)") }
            if recording.nonImageRequests > 0 { phrases.append("\(recording.nonImageRequests) requests of a non-image type written as http events only") }
            if recording.httpEvents > 0 { phrases.append("response headers: only those the workbench reads kept (Cache-Control, Expires, Date, Age, ETag, Last-Modified, Vary, Content-Type)") }
            if recording.privateHeadersDropped > 0 { phrases.append("\(recording.privateHeadersDropped) requests' Cookie/Authorization headers left out (a recording never holds them)") }
        }
        return phrases
    }
}
