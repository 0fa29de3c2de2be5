/// What a recorded HTTP exchange says beyond key and size, kept on the request for
/// replays that honour HTTP caching semantics (RFC 9111): the status, the response's
/// media type, its caching headers as sent, and the timings (milliseconds; nil when the
/// recorder did not measure them, as HAR's -1 says). The request's own headers are kept
/// (lower-cased names) for the rules that read them: Vary's secondary key, Authorization,
/// Range. Repeated field lines arrive combined (`HeaderFieldLines`, RFC 9110 §5.3).
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
    /// The response asked for credentials (`WWW-Authenticate` / `Proxy-Authenticate`).
    public let asksForCredentials: Bool
    public let requestHeaders: [String: String]
    public let timings: Timings
    /// Singleton fields the response repeated with differing values (lower-cased names):
    /// their values come from `HeaderFieldLines`' rules (first value; Expires stale).
    public let conflictingFields: [String]

    /// The request carried credentials (`Authorization` / `Proxy-Authorization`).
    public var sendsCredentials: Bool { requestHeaders["authorization"] != nil || requestHeaders["proxy-authorization"] != nil }

    /// Seconds from sending the request to the end of the response, when recorded: the
    /// entry's total time, else the sum of its phases.
    public var downloadSeconds: Double? {
        if let total = timings.total { return total / 1000 }
        let phases = [timings.blocked, timings.dns, timings.connect, timings.send, timings.wait, timings.receive].compactMap { $0 }
        return phases.isEmpty ? nil : phases.reduce(0, +) / 1000
    }

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

    public init(
        method: String, status: Int, mimeType: String?, headers: [String: String], requestHeaders: [String: String] = [:],
        timings: Timings = Timings(), conflictingFields: [String] = []
    ) {
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
        asksForCredentials = headers["www-authenticate"] != nil || headers["proxy-authenticate"] != nil
        self.requestHeaders = requestHeaders
        self.timings = timings
        self.conflictingFields = conflictingFields
    }

    /// The request asked for part of the representation (`Range`, RFC 9110 §14.2).
    public var asksForRange: Bool { requestHeaders["range"] != nil }

    /// A HEAD: its response has no content (RFC 9110 §9.3.2).
    public var isHEAD: Bool { method.uppercased() == "HEAD" }

    public static func == (a: HTTPMetadata, b: HTTPMetadata) -> Bool {
        (a.method, a.status, a.mimeType, a.cacheControl, a.expires, a.date) == (b.method, b.status, b.mimeType, b.cacheControl, b.expires, b.date)
            && (a.age, a.etag, a.lastModified, a.vary) == (b.age, b.etag, b.lastModified, b.vary) && a.timings == b.timings
            && a.asksForCredentials == b.asksForCredentials && a.requestHeaders == b.requestHeaders
            && a.conflictingFields == b.conflictingFields
    }
}
