/// What a recorded HTTP exchange says beyond key and size, kept on the request for
/// replays that honour HTTP caching semantics (RFC 9111): the status, the response's
/// media type, its caching headers as sent, and the timings (milliseconds; nil when the
/// recorder did not measure them, as HAR's -1 says).
public final class HTTPMetadata: Sendable, Equatable {
    public let method: String
    public let status: Int
    public let mimeType: String?
    public let cacheControl: String?
    public let expires: String?
    public let date: String?
    public let age: String?
    public let etag: String?
    public let lastModified: String?
    public let vary: String?
    public let timings: Timings

    public struct Timings: Sendable, Equatable {
        public var blocked, dns, connect, ssl, send, wait, receive: Double?
        /// The entry's total time.
        public var total: Double?

        public init(blocked: Double? = nil, dns: Double? = nil, connect: Double? = nil, ssl: Double? = nil,
                    send: Double? = nil, wait: Double? = nil, receive: Double? = nil, total: Double? = nil) {
            (self.blocked, self.dns, self.connect, self.ssl, self.send, self.wait, self.receive, self.total) =
                (blocked, dns, connect, ssl, send, wait, receive, total)
        }
    }

    public init(method: String, status: Int, mimeType: String?, headers: [String: String], timings: Timings) {
        self.method = method
        self.status = status
        self.mimeType = mimeType
        cacheControl = headers["cache-control"]
        expires = headers["expires"]
        date = headers["date"]
        age = headers["age"]
        etag = headers["etag"]
        lastModified = headers["last-modified"]
        vary = headers["vary"]
        self.timings = timings
    }

    public static func == (a: HTTPMetadata, b: HTTPMetadata) -> Bool {
        (a.method, a.status, a.mimeType, a.cacheControl, a.expires, a.date) == (b.method, b.status, b.mimeType, b.cacheControl, b.expires, b.date)
            && (a.age, a.etag, a.lastModified, a.vary) == (b.age, b.etag, b.lastModified, b.vary) && a.timings == b.timings
    }
}
