import WorkbenchCore
import WorkbenchMetrics
import Foundation

/// Recordings made inside an app with the CacheTraceRecorder library (format
/// `app-recording`, docs/recording-format.md): JSON Lines, a header line first. Read line by
/// line through one buffer (`ChunkedFileReader`; `.jsonl.gz`/`.zst` too), so memory grows
/// only with the keys seen (the missing-size rule's table), not with the recording.
///
/// Each `image` event becomes one request (the default stream):
/// - time: seconds since the first event's `t`;
/// - key: `key` (its `KeyDigest` id, the text kept as other readers keep it);
/// - size: `encoded_bytes`. When absent (a memory hit often has no encoded bytes), the
///   size last seen for the same key in an earlier image event, else the `body_bytes` of
///   the last earlier http event for the image's `url` (or key), else 0 — counted in the
///   summary either way;
/// - width × height, and `recorded` (`RecordedImage`: source, bytes per row, decoded cost,
///   display size, scale, content type).
/// With the `recording-stream` option `http` (`--mode http`), each `http` event becomes the
/// request instead (the URLSession log, read whole and replayed in the order the
/// transactions started, each at its `start`): key and
/// `KeyDigest` id from `url`, size `body_bytes` (a 304 with no body takes the size last
/// seen for its URL; a HEAD is 0), `http` built from the recorded headers as the HAR reader
/// builds it (`HeaderFieldLines`), total time `end - start`.
///
/// Errors name the line (`FILE:LINE: reason`, exit 2): a missing or wrong header, a version
/// other than 1, a header of another session, a missing `key`/`source`/`url`/`t`, a field
/// of the wrong type, `t` going back. With --skip-bad-rows a bad event line is counted
/// and passed over (a bad header never is). A torn last line is dropped and counted;
/// unknown kinds are skipped and counted. O(line length) per line.
public enum AppRecordingReader {
    /// The header's `format` value, which detection looks for on the first line.
    public static let formatMarker = "cache-trace-recording"
    /// The format option choosing the stream replayed: `image` (default) or `http`.
    public static let streamOption = "recording-stream"

    public enum Stream: String, Sendable, CaseIterable {
        case image, http
    }

    static func open(path: String, options: ReadOptions) throws -> any RequestSource {
        try AppRecordingSource(path: path, options: options)
    }

    /// Reads the whole recording for what it holds besides its requests (with the same
    /// options, so `requestsBefore` counts the requests a replay with them sees). O(file).
    public static func facts(path: String, options: ReadOptions) throws -> AppRecordingFacts {
        let source = try AppRecordingSource(path: path, options: options)
        var scratch: [Request] = []
        while try source.append(to: &scratch, limit: 1 << 14) > 0 { scratch.removeAll(keepingCapacity: true) }
        return source.facts
    }

    static func stream(_ options: ReadOptions) throws(WorkbenchError) -> Stream {
        guard let text = options.formatOptions[streamOption] else { return .image }
        guard let stream = Stream(rawValue: text.lowercased()) else {
            throw WorkbenchError("--\(streamOption) must be one of \(Stream.allCases.map(\.rawValue).joined(separator: ", ")), not \(ErrorText.quote(text))")
        }
        return stream
    }
}

/// The streaming reader behind `AppRecordingReader`: one line of lookahead, so it knows
/// when a line is the last (a torn last line is dropped, a bad line elsewhere is an error).
final class AppRecordingSource: AppendingRequestSource {
    let path: String
    private let file: ChunkedFileReader
    private let options: ReadOptions
    private let stream: AppRecordingReader.Stream
    /// The line read ahead: its number, bytes and whether a line feed ended it.
    private var next: (number: Int, data: Data, terminated: Bool)?
    private var linesRead = 0
    private var started = false
    private var state = AppRecordingState()
    /// The http stream, read whole, and how much of it was handed out.
    private var httpRequests: [Request]?
    private var httpServed = 0

    init(path: String, options: ReadOptions) throws {
        self.path = path
        self.options = options
        stream = try AppRecordingReader.stream(options)
        file = try ChunkedFileReader(path: path)
        next = try readNonBlankLine()
    }

    var progress: Double? { file.progress }
    var skippedRows: Int { state.summary.skippedLines }

    /// What was read so far (all of it once `append` has returned 0).
    var facts: AppRecordingFacts {
        AppRecordingFacts(lifecycle: state.lifecycle, configuration: state.configuration, summary: state.summary)
    }

    func append(to requests: inout [Request], limit: Int) throws -> Int {
        let before = requests.count
        if stream == .http {
            // Read whole, then served in start order (`AppRecordingState.finishHTTPStream`).
            if httpRequests == nil {
                var all: [Request] = []
                while try readEvent(into: &all) {}
                httpRequests = state.finishHTTPStream(all)
            }
            let end = min(httpServed + limit, httpRequests!.count)
            requests.append(contentsOf: httpRequests![httpServed..<end])
            httpServed = end
            return requests.count - before
        }
        while requests.count - before < limit, try readEvent(into: &requests) {}
        return requests.count - before
    }

    /// Reads the next line and appends the request it stands for, if any; false at the end.
    private func readEvent(into requests: inout [Request]) throws -> Bool {
        guard let line = next else { return false }
        next = try readNonBlankLine()
        let isLast = next == nil
        if isLast && !line.terminated {
            // No final line feed: the app stopped mid-write.
            state.summary.tornLastLine = true
            return false
        }
        let decoded: AppRecordingLine
        switch AppRecordingLine.decode(line.data) {
        case .success(let value): decoded = value
        case .failure(.malformed) where isLast:
            state.summary.tornLastLine = true
            return false
        case .failure(let failure):
            let reason: String
            if case .invalid(let text) = failure { reason = text } else { reason = "not a JSON object (malformed JSON)" }
            try fail(line.number, reason, header: !started)
            return true
        }
        if !started {
            started = true
            guard decoded.format != nil else {
                throw TraceError(path: path, line: line.number, reason: "not an app recording: the first line is no header (\"format\":\"\(AppRecordingReader.formatMarker)\")")
            }
        }
        let isHeader = decoded.format != nil
        do throws(FieldParsing.Failure) {
            if isHeader {
                try state.header(decoded)
            } else if let request = try state.event(decoded, stream: stream, keepKeyNames: options.keepKeyNames) {
                requests.append(request)
            }
        } catch {
            try fail(line.number, error.reason, header: isHeader)
        }
        return true
    }

    /// A bad line: an error, or (with --skip-bad-rows, for event lines) counted.
    private func fail(_ line: Int, _ reason: String, header: Bool) throws(TraceError) {
        guard options.skipBadRows, !header else { throw TraceError(path: path, line: line, reason: reason) }
        state.summary.skippedLines += 1
    }

    private func readNonBlankLine() throws(TraceError) -> (number: Int, data: Data, terminated: Bool)? {
        while let (bytes, terminated) = try file.nextLine(limit: options.maxLineBytes, path: path, line: linesRead + 1) {
            linesRead += 1
            var row = bytes
            if row.last == 0x0D { row = UnsafeRawBufferPointer(rebasing: row.dropLast()) }
            if linesRead == 1, row.starts(with: [0xEF, 0xBB, 0xBF]) { row = UnsafeRawBufferPointer(rebasing: row.dropFirst(3)) }
            if row.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            return (linesRead, Data(row), terminated)
        }
        return nil
    }
}

/// What the reader knows between lines: the session, the clock's origin, the last size
/// seen per key (the missing-size rule), the counts. O(1) per event plus a dictionary
/// update.
struct AppRecordingState {
    var summary = AppRecordingSummary()
    var lifecycle: [RecordedLifecycleEvent] = []
    var configuration: RecordedCacheConfiguration?
    private var firstT: Int?
    private var lastT = 0
    private var requestsMade = 0
    /// The size last seen per image key, and per URL from http events' bodies.
    private var imageSize: [String: Int] = [:]
    private var urlSize: [String: Int] = [:]
    /// The http stream's start times and the lifecycle events' times, in nanoseconds as
    /// recorded, for `finishHTTPStream`.
    private var httpStarts: [Int] = []
    private var lifecycleTimes: [Int] = []

    mutating func header(_ line: AppRecordingLine) throws(FieldParsing.Failure) {
        guard line.format == AppRecordingReader.formatMarker else {
            throw FieldParsing.Failure("format \(ErrorText.quote(line.format ?? "", limit: 40)) is not \(AppRecordingReader.formatMarker)")
        }
        guard let version = line.version?.value else { throw FieldParsing.Failure("the header has no version") }
        guard version == 1 else {
            throw FieldParsing.Failure("format version \(version) is not one this workbench reads (it reads version 1\(version > 1 ? "; a newer recorder wrote it" : ""))")
        }
        let part = line.part?.value ?? 0
        if summary.parts.isEmpty {
            summary.session = line.session
            summary.recorder = line.recorder
            summary.started = line.started
            summary.appName = line.app?.name
            summary.privacyQuery = line.privacy?.query
            summary.privacyKeys = line.privacy?.keys
            if let app = line.app, !app.isEmpty { configuration = app.configuration }
        } else if line.session != summary.session {
            throw FieldParsing.Failure("a header of another session (\(ErrorText.quote(line.session ?? "none", limit: 40)), not \(ErrorText.quote(summary.session ?? "none", limit: 40))): one recording holds one session")
        }
        summary.parts.append(part)
    }

    /// The request an event line stands for in `stream`, if any; counts it.
    mutating func event(_ line: AppRecordingLine, stream: AppRecordingReader.Stream, keepKeyNames: Bool) throws(FieldParsing.Failure) -> Request? {
        guard let t = line.t?.value else { throw FieldParsing.Failure("t is missing (every event has t and kind)") }
        guard t >= 0 else { throw FieldParsing.Failure("t \(t) is negative") }
        guard let kind = line.kind else { throw FieldParsing.Failure("kind is missing (every event has t and kind)") }
        if firstT != nil, t < lastT {
            throw FieldParsing.Failure("t \(t) is before the previous event's \(lastT) (a session's clock never goes back; were parts concatenated out of order?)")
        }
        let seconds = Double(t - (firstT ?? t)) / 1e9
        var request: Request?
        switch kind {
        case "image":
            let image = try self.image(line, time: seconds, keepKeyNames: keepKeyNames)
            if stream == .image { request = image }
        case "http":
            let (http, start) = try self.http(line, t: t, keepKeyNames: keepKeyNames)
            if stream == .http {
                request = http
                httpStarts.append(start)
            }
        case "lifecycle":
            guard let name = line.event else { throw FieldParsing.Failure("a lifecycle event has no event") }
            guard let event = RecordedLifecycleEvent.Kind(rawValue: name) else {
                summary.unknownKinds["lifecycle:" + name, default: 0] += 1
                break
            }
            summary.lifecycle[event, default: 0] += 1
            lifecycle.append(RecordedLifecycleEvent(kind: event, time: seconds, requestsBefore: requestsMade))
            lifecycleTimes.append(t)
        case "config":
            let fields = line.configFields ?? .init()
            try Self.check(fields)
            if configuration == nil && summary.eventsByKind["image", default: 0] == 0 {
                configuration = fields.configuration
            } else {
                summary.configurationChanges += 1
            }
        case "dropped":
            guard let count = line.count?.value else { throw FieldParsing.Failure("a dropped event has no count") }
            guard count >= 0 else { throw FieldParsing.Failure("dropped count \(count) is negative") }
            let (sum, overflow) = summary.droppedEvents.addingReportingOverflow(count)
            summary.droppedEvents = overflow ? Int.max : sum
        default:
            summary.unknownKinds[kind, default: 0] += 1
            return nil
        }
        if firstT == nil { firstT = t }
        lastT = t
        summary.durationSeconds = Double(t - (firstT ?? t)) / 1e9
        summary.eventsByKind[kind, default: 0] += 1
        if request != nil { requestsMade += 1 }
        return request
    }

    private mutating func image(_ line: AppRecordingLine, time: Double, keepKeyNames: Bool) throws(FieldParsing.Failure) -> Request {
        guard let key = line.key else { throw FieldParsing.Failure("an image event has no key") }
        guard !key.isEmpty else { throw FieldParsing.Failure("an image event's key is empty") }
        guard let sourceText = line.source else { throw FieldParsing.Failure("an image event has no source") }
        guard let source = RecordedImage.Source(rawValue: sourceText) else {
            throw FieldParsing.Failure("source \(ErrorText.quote(sourceText, limit: 40)) is not one of \(RecordedImage.Source.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let width = try Self.pixels(line.width, "width"), height = try Self.pixels(line.height, "height")
        let bytesPerRow = try Self.size(line.bytesPerRow, "bytes_per_row")
        let decodedCost = try Self.size(line.decodedCost, "decoded_cost")
        for (value, name) in [(line.displayWidth, "display_width"), (line.displayHeight, "display_height"), (line.scale, "scale")] {
            if let value, !(value.isFinite && value >= 0) { throw FieldParsing.Failure("\(name) \(value) is not a size (a finite number ≥ 0)") }
        }
        var size: Int
        if let encoded = try Self.size(line.encodedBytes, "encoded_bytes") {
            size = encoded
        } else {
            summary.imagesWithoutEncodedBytes += 1
            size = imageSize[key] ?? urlSize[line.url ?? key] ?? 0
            if size > 0 { summary.encodedBytesFromEarlierEvent += 1 }
        }
        if size > 0 { imageSize[key] = size }
        let recorded = RecordedImage(
            source: source, bytesPerRow: bytesPerRow, decodedCost: decodedCost, displayWidth: line.displayWidth,
            displayHeight: line.displayHeight, scale: line.scale, contentType: line.contentType)
        let hasDimensions = width > 0 && height > 0
        if !hasDimensions { summary.imagesWithoutDimensions += 1 }
        if recorded.recordedCost(height: hasDimensions ? height : 0) == nil { summary.imagesWithoutRecordedCost += 1 }
        summary.imageSources[source, default: 0] += 1
        summary.imageBytes = min(summary.imageBytes + size, SizeLimits.largestCapacity)
        let digest = KeyDigest.parse(key)
        return Request(
            time: time, id: digest.id, size: size, width: hasDimensions ? width : 0, height: hasDimensions ? height : 0,
            operation: .get, name: keepKeyNames && !digest.isInteger ? key : nil, recorded: recorded)
    }

    /// The http stream in the order the transactions started (a cache is consulted when a
    /// request starts, as a HAR's entries are replayed in start order; the file has them in
    /// the order they ended), each time the start's, with the lifecycle events placed among
    /// them by time. The clock's origin moves back to the earliest start when a transaction
    /// began before the first event. O(n log n).
    mutating func finishHTTPStream(_ requests: [Request]) -> [Request] {
        let origin = min(firstT ?? 0, httpStarts.min() ?? 0)
        let order = requests.indices.sorted { (httpStarts[$0], $0) < (httpStarts[$1], $1) }
        let starts = order.map { httpStarts[$0] }
        for index in lifecycle.indices {
            let t = lifecycleTimes[index]
            lifecycle[index].time = Double(t - origin) / 1e9
            // Requests that started at or before the event come before it (binary search).
            var low = 0, high = starts.count
            while low < high {
                let middle = (low + high) / 2
                if starts[middle] <= t { low = middle + 1 } else { high = middle }
            }
            lifecycle[index].requestsBefore = low
        }
        return order.map { index in
            var request = requests[index]
            request.time = Double(httpStarts[index] - origin) / 1e9
            return request
        }
    }

    /// An http event's request (its time set by `finishHTTPStream`) and its start in ns.
    private mutating func http(_ line: AppRecordingLine, t: Int, keepKeyNames: Bool) throws(FieldParsing.Failure) -> (Request, Int) {
        guard let url = line.url, !url.isEmpty else { throw FieldParsing.Failure("an http event has no url") }
        let status = line.status?.value ?? 0
        guard (0...999).contains(status) else { throw FieldParsing.Failure("status \(status) is not an HTTP status (0 for a failed task)") }
        let requestLines = (line.requestHeaders ?? [:]).sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        let responseLines = (line.responseHeaders ?? [:]).sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        try HeaderFieldLines.checkBounds([requestLines, responseLines])
        let fields = try HeaderFieldLines(response: responseLines)
        let method = line.method ?? "GET"
        var size = try Self.size(line.bodyBytes, "body_bytes") ?? 0
        if size == 0 && status == 304 { size = urlSize[url] ?? 0 }
        if method.uppercased() == "HEAD" { size = 0 }
        if size > 0 { urlSize[url] = size }
        let start = try Self.size(line.start, "start"), end = try Self.size(line.end, "end")
        var total: Double?
        if let start, let end {
            guard end >= start else { throw FieldParsing.Failure("end \(end) is before start \(start)") }
            total = Double(end - start) / 1e6  // milliseconds, as HTTPMetadata's timings
        }
        summary.httpSources[line.source ?? "unknown", default: 0] += 1
        if status == 0 { summary.failedHTTP += 1 }
        let mimeType = fields.values["content-type"].map { $0.split(separator: ";").first.map { String($0).trimmingSpaces } ?? $0 }
        let http = HTTPMetadata(
            method: method, status: status, mimeType: mimeType, headers: fields.values,
            requestHeaders: HeaderFieldLines.request(requestLines), timings: .init(total: total), conflictingFields: fields.conflicting)
        let digest = KeyDigest.parse(url)
        let request = Request(time: 0, id: digest.id, size: size, operation: .get, name: keepKeyNames && !digest.isInteger ? url : nil, http: http)
        return (request, min(start ?? t, t))
    }

    private static func check(_ fields: AppRecordingLine.AppFields) throws(FieldParsing.Failure) {
        for (value, name) in [(fields.memoryCostLimit, "memory_cost_limit"), (fields.memoryCountLimit, "memory_count_limit"), (fields.diskCostLimit, "disk_cost_limit")] {
            if let value = value?.value, value < 0 { throw FieldParsing.Failure("\(name) \(value) is negative") }
        }
    }

    /// A byte count: nil when absent; 0 through `SizeLimits.largestObject`.
    private static func size(_ number: RecordingWholeNumber?, _ name: String) throws(FieldParsing.Failure) -> Int? {
        guard let value = number?.value else { return nil }
        guard value >= 0 else { throw FieldParsing.Failure("\(name) \(value) is negative") }
        guard value <= SizeLimits.largestObject else { throw FieldParsing.Failure("\(name) \(value) is larger than the largest object accepted, 2^53 bytes") }
        return value
    }

    /// A pixel count (0 when absent), at most UInt32.max.
    private static func pixels(_ number: RecordingWholeNumber?, _ name: String) throws(FieldParsing.Failure) -> UInt32 {
        guard let value = number?.value else { return 0 }
        guard value >= 0, value <= Int(UInt32.max) else { throw FieldParsing.Failure("\(name) \(value) is not a pixel count (0 to \(UInt32.max))") }
        return UInt32(value)
    }
}
