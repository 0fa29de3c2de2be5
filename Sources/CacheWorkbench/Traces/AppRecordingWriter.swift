import WorkbenchCore
import WorkbenchMetrics
/// Writes requests as an app recording (format v1, docs/recording-format.md), for `bench
/// convert session.har out.jsonl`: each request with HTTP facts becomes an `http` event
/// (method, URL, status, the headers the workbench keeps, body bytes, start and end from
/// the recorded total time), and each image request (an image/* response, or any request
/// without HTTP facts) an `image` event with source `unknown` — a HAR does not say where
/// the app found an image — its encoded bytes, and its width × height when known. Times
/// become nanoseconds since the first request (to the microsecond); events are written in time order (an image
/// lookup at its request's start, a transaction at its end), so `t` never goes back. As the
/// recorder does, Cookie, Set-Cookie, Authorization and Proxy-Authorization are never
/// written. The output appears whole or not at all (`OutputFile`). O(n log n).
public enum AppRecordingWriter {
    /// Request header names never written (the format's privacy rule).
    static let privateHeaders: Set<String> = ["cookie", "set-cookie", "authorization", "proxy-authorization"]

    /// What the written recording lacks, counted (`ConversionLosses`' recording phrases).
    public struct Outcome: Sendable, Equatable {
        public var imageEvents = 0
        public var httpEvents = 0
        /// Requests with HTTP facts of a non-image type: an http event only.
        public var nonImageRequests = 0
        public var imagesWithoutDimensions = 0
        /// Requests whose Cookie/Authorization headers were left out.
        public var privateHeadersDropped = 0
    }

    public static func write(_ requests: [Request], session: String, to path: String) throws -> Outcome {
        var outcome = Outcome()
        var events: [(t: Int, order: Int, line: String)] = []
        let origin = requests.map(\.time).min() ?? 0
        for request in requests {
            let start = nanoseconds(request.time - origin)
            if let http = request.http {
                let end = start + nanoseconds(http.downloadSeconds ?? 0)
                let (line, dropped) = httpLine(request, http: http, start: start, end: end)
                events.append((end, events.count, line))
                outcome.httpEvents += 1
                if dropped { outcome.privateHeadersDropped += 1 }
                guard http.mimeType?.lowercased().hasPrefix("image/") ?? false else {
                    outcome.nonImageRequests += 1
                    continue
                }
            }
            events.append((start, events.count, imageLine(request, t: start)))
            outcome.imageEvents += 1
            if !request.hasDimensions { outcome.imagesWithoutDimensions += 1 }
        }
        events.sort { ($0.t, $0.order) < ($1.t, $1.order) }
        let output = try OutputFile(path)
        let header = "{\"format\":\"\(AppRecordingReader.formatMarker)\",\"version\":1,\"session\":\(JSONReport.string(session)),\"part\":0,"
            + "\"recorder\":\"bench convert\",\"clock\":\"monotonic\",\"time_unit\":\"ns\",\"privacy\":{\"query\":\"kept\",\"keys\":\"plain\"}}\n"
        try output.write(header)
        for event in events {
            try Interruption.check()
            try output.write(event.line)
        }
        try output.commit()
        return outcome
    }

    /// Seconds as nanoseconds, rounded to the microsecond: a HAR's times are Unix seconds
    /// in a double (about 0.2 µs apart at today's dates) written to the millisecond, so finer
    /// digits are noise (negative and non-finite as 0; capped at 2^62).
    static func nanoseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return seconds >= 4.6e9 ? 1 << 62 : Int((seconds * 1e6).rounded()) * 1000
    }

    static func imageLine(_ request: Request, t: Int) -> String {
        var fields = ["\"t\":\(t)", "\"kind\":\"image\"", "\"key\":\(JSONReport.string(request.keyText))", "\"source\":\"unknown\"",
                      "\"encoded_bytes\":\(request.size)"]
        if request.hasDimensions { fields += ["\"width\":\(request.width)", "\"height\":\(request.height)"] }
        if let type = request.http?.mimeType { fields.append("\"content_type\":\(JSONReport.string(type))") }
        return "{" + fields.joined(separator: ",") + "}\n"
    }

    /// The http event, and whether private request headers were left out.
    static func httpLine(_ request: Request, http: HTTPMetadata, start: Int, end: Int) -> (String, Bool) {
        func object(_ pairs: [(String, String)]) -> String {
            "{" + pairs.map { "\(JSONReport.string($0.0)):\(JSONReport.string($0.1))" }.joined(separator: ",") + "}"
        }
        let requestHeaders = http.requestHeaders.filter { !privateHeaders.contains($0.key) }.sorted { $0.key < $1.key }
        // The response fields the workbench keeps from a HAR (`HTTPMetadata`); presence of
        // WWW-Authenticate is what it reads of that one.
        var response: [(String, String)] = [
            ("Cache-Control", http.cacheControl), ("Expires", http.expires), ("Date", http.date), ("Age", http.age), ("ETag", http.etag),
            ("Last-Modified", http.lastModified), ("Vary", http.vary), ("Content-Type", http.mimeType),
        ].compactMap { name, value in value.map { (name, $0) } }
        if http.asksForCredentials { response.append(("WWW-Authenticate", "")) }
        let fields = [
            "\"t\":\(end)", "\"kind\":\"http\"", "\"method\":\(JSONReport.string(http.method))", "\"url\":\(JSONReport.string(request.keyText))",
            "\"status\":\(http.status)", "\"request_headers\":" + object(requestHeaders.map { ($0.key, $0.value) }),
            "\"response_headers\":" + object(response), "\"body_bytes\":\(request.size)", "\"start\":\(start)", "\"end\":\(end)", "\"source\":\"unknown\"",
        ]
        return ("{" + fields.joined(separator: ",") + "}\n", requestHeaders.count != http.requestHeaders.count)
    }
}
