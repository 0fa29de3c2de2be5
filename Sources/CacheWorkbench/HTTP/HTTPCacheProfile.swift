import WorkbenchCore
import WorkbenchTraces
import WorkbenchMetrics
/// Whose rules the HTTP replay follows (`--http-profile`). The rules differ, and each
/// difference below has its source in `docs/http-caching-facts.md` (README: "HTTP mode").
public enum HTTPCacheProfile: String, Sendable, CaseIterable {
    /// A private cache as RFC 9111 describes it: key = method + URI (+ Vary), storable
    /// statuses of RFC 9110 §15.1 or explicit freshness, no-cache = revalidate every time,
    /// heuristic freshness from Last-Modified, stale-while-revalidate / stale-if-error
    /// (RFC 5861), immutable (RFC 8246).
    case rfc9111
    /// URLCache as Apple documents it: the RFC's freshness and validation, plus 2xx only,
    /// an entry no larger than about 5% of the cache ("of the disk cache"), the request
    /// policies as documented (returnCacheData… use any age), reloadIgnoringLocalAndRemote
    /// unimplemented (as reloadIgnoringLocal). Undocumented parts are options; the request's
    /// own Cache-Control (undocumented) follows RFC 9111 §5.2.1, as under rfc9111.
    case apple
    /// FoundationNetworking's URLCache on Linux as it behaves (swift-corelibs-foundation
    /// @761b621d): key = host + port + path (no scheme, no query); one predicate for store
    /// and reuse; no-cache never stored; any Vary, Authorization or WWW-Authenticate
    /// refused; max-age from min(Date, stored time), Age ignored; without max-age or
    /// Expires fresh forever; Expires only as RFC 1123; no conditional requests; every
    /// request policy, and the request's own Cache-Control, ignored.
    case corelibs

    public static func named(_ text: String) throws -> HTTPCacheProfile {
        guard let profile = allCases.first(where: { $0.rawValue == text.trimmingSpaces.lowercased() }) else {
            throw WorkbenchError("--http-profile must be one of \(allCases.map(\.rawValue).joined(separator: ", ")), not \(ErrorText.quote(text))")
        }
        return profile
    }

    /// Statuses whose responses may be stored.
    func storesStatus(_ status: Int) -> Bool {
        switch self {
        // RFC 9110 §15.1 heuristically cacheable; others need explicit freshness (checked apart).
        case .rfc9111: status >= 200 && status < 600 && status != 304
        // Apple: "The HTTP status code is in the 200–299 range" (willCacheResponse docs).
        case .apple: (200...299).contains(status)
        // HTTPURLProtocol.swift L195-212: RFC 7231's list (no 308).
        case .corelibs: [200, 203, 204, 206, 300, 301, 404, 405, 410, 414, 501].contains(status)
        }
    }

    /// RFC 9110 §15.1: statuses a cache may give a heuristic lifetime (and store without
    /// explicit freshness).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]
}

/// How to revalidate a stale or no-cache entry where the sources disagree (Apple's text
/// says HEAD; observers see conditional GETs; one 2022 report sees none).
public enum RevalidationStyle: String, Sendable, CaseIterable {
    /// If-None-Match / If-Modified-Since: a 304, or the new body in the same round trip.
    case conditional
    /// A HEAD first (Apple's useProtocolCachePolicy text), then a GET if it changed: two
    /// round trips when it did.
    case head
    /// No conditional request: a stale entry is fetched again in full (SO #72995149).
    case refetch
}

/// What a 304 does to the stored response.
public enum NotModifiedUpdate: String, Sendable, CaseIterable {
    /// RFC 9111 §4.3.4 / §3.2: the 304's header fields replace the stored ones and the
    /// response is fresh again from this exchange.
    case update
    /// The stored response is left as it was, so it stays stale ("NSURLCache ignores max-age
    /// on 304 Not Modified responses", SO 23826780).
    case ignore
}

/// The HTTP replay mode's settings (`--mode http` and its options).
public struct HTTPReplaySettings: Sendable, Equatable {
    public var profile: HTTPCacheProfile = .rfc9111
    public var policy: RequestCachePolicy = .useProtocolCachePolicy
    /// RFC 9111 §4.2.2's "typical" 10% of (Date − Last-Modified); 0 turns the heuristic off.
    /// An assumption under `apple` (undocumented); never used by `corelibs` (no heuristic).
    public var heuristicFraction = 0.1
    public var revalidation: RevalidationStyle = .conditional
    public var notModifiedUpdate: NotModifiedUpdate = .update
    /// The largest entry as a share of the capacity: Apple's "about 5% of the disk cache";
    /// nil = no rule (rfc9111, corelibs).
    public var entryShareLimit: Double?
    /// corelibs only: key by the whole URL instead of host + port + path (`--http-key url`),
    /// to measure what its key does to the hit ratio.
    public var keyByURL = false
    /// Downloads take time and land in the cache when they finish (nil: at once).
    public var downloads: DownloadSettings?

    public init(profile: HTTPCacheProfile = .rfc9111) {
        self.profile = profile
        entryShareLimit = profile == .apple ? 0.05 : nil
    }

    /// The settings as the CSV's `http_settings` says them.
    public var description: String {
        var parts = ["profile=\(profile.rawValue)", "request-policy=\(policy.rawValue)"]
        if profile != .corelibs {
            parts += ["heuristic-fraction=\(heuristicFraction)", "revalidation=\(revalidation.rawValue)", "on-304=\(notModifiedUpdate.rawValue)"]
        }
        if keyByURL { parts.append("http-key=url") }
        if let entryShareLimit { parts.append("entry-share-limit=\(entryShareLimit)") }
        if let downloads { parts.append(downloads.description) }
        return parts.joined(separator: ";")
    }
}
