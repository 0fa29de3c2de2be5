import WorkbenchCore
import WorkbenchTraces
import WorkbenchMetrics
/// What the HTTP replay counted, beyond hits and misses (the CSV's HTTP columns).
/// A request is answered one way: with the cached body (a hit: fresh, stale, or after a
/// 304 in the foreground), with a full response from the origin (a miss, counted in
/// `originFetches` with revalidations that found the content changed), by a download
/// already in flight (`coalescedRequests`), or not at all (`offlineFailures`). So hits =
/// libraryHits + freshHits + staleServed + notModified − (background revalidations answered 304).
public struct HTTPCounts: Sendable, Equatable {
    /// Hits served by a layer that reads no headers (an image library's own memory or disk
    /// cache, `HTTPLayers`): whatever Cache-Control or Expires said.
    public var libraryHits = 0
    public var freshHits = 0
    /// Served stale: a request policy that takes any age, stale-while-revalidate, or
    /// stale-if-error when the origin failed.
    public var staleServed = 0
    /// Conditional requests (or HEADs) sent to check a stored response.
    public var revalidations = 0
    /// Revalidations answered "not modified" (304).
    public var notModified = 0
    /// Revalidations made behind a stale response already served (stale-while-revalidate).
    public var backgroundRevalidations = 0
    /// Full responses from the origin (the body transferred).
    public var originFetches = 0
    /// Round trips to the origin: fetches plus revalidations (a HEAD then a GET is two).
    public var originRequests = 0
    public var originBytes: ByteTotal = 0
    /// returnCacheDataDontLoad with nothing usable stored (or a stale must-revalidate entry
    /// under rfc9111, which would be a 504), or a request's only-if-cached that found nothing
    /// usable (RFC 9111 §5.2.1.7's 504).
    public var offlineFailures = 0
    /// Stored responses removed because an unsafe method (POST, PUT, DELETE) succeeded on
    /// their URI (RFC 9111 §4.4).
    public var invalidations = 0
    /// Responses stored or refreshed whose lifetime came from the Last-Modified heuristic:
    /// an assumption, reported under the table.
    public var heuristicLifetimes = 0
    /// Revalidations decided by comparing body sizes, because the recorded response lacked
    /// the stored validator: an assumption, reported under the table.
    public var validatedBySize = 0
    /// Full fetches of a recorded 304 (nothing usable was cached): the body's size is the
    /// last size the trace gave its URL (the HAR reader's rule), an inferred size.
    public var sizesFromEarlierResponse = 0
    /// Requests that missed because the stored response's Vary did not match: under `apple`
    /// this rests on the RFC's rule, which Apple does not document.
    public var varyMismatches = 0
    /// corelibs: hits served another URL's body, because its key drops the scheme and the
    /// query (`img?w=200` answered with `img?w=100`): counted in the hits, which they inflate.
    public var wrongBodyHits = 0
    /// `--coalesce`: requests that joined a download in flight for their URL instead of
    /// going to the origin (each one an origin fetch saved; a miss all the same).
    public var coalescedRequests = 0
    /// With the download model: downloads started, and how long they queued for a slot
    /// (trace time, nanoseconds).
    public var downloads = 0
    public var queueWait: LatencySummary?
    /// Requests with a Range header (rfc9111, apple): sent to the origin without a lookup,
    /// since answering a range from a stored complete response is not modeled.
    public var rangeRequests = 0
    /// corelibs: hits answered with a stored 206's partial body as if it were the whole (its
    /// reuse test accepts 206 and never reads Range): counted in the hits, which they inflate.
    public var partialBodyHits = 0
    /// Responses that repeated a singleton header field (Date, Age, ETag, Last-Modified,
    /// Expires) with differing values: the first value was used, and for Expires the response
    /// was stale (`HeaderFieldLines`, RFC 9111 §4.2.1).
    public var singletonConflicts = 0
    /// Requests that carried a request Cache-Control directive of RFC 9111 §5.2.1 (no-cache,
    /// no-store, max-age, max-stale, min-fresh, only-if-cached): honoured under rfc9111 and
    /// apple (assumed: Apple documents none), ignored under corelibs. Said under the table.
    public var requestDirectives = 0
    /// Offline failures of requests with `only-if-cached` and nothing usable stored (the RFC's
    /// 504, §5.2.1.7), in `offlineFailures` too.
    public var onlyIfCachedFailures = 0
    /// Responses fetched but not stored, by reason.
    public var notStored: [NotStoredReason: Int] = [:]

    public init() {}

    public var notStoredTotal: Int { notStored.values.reduce(0, +) }

    /// `no-store=3;vary=2`, reasons in a fixed order; empty when everything was stored.
    public var notStoredText: String {
        NotStoredReason.allCases.compactMap { reason in notStored[reason].map { "\(reason.rawValue)=\($0)" } }.joined(separator: ";")
    }
}

/// Why a fetched response was not stored.
public enum NotStoredReason: String, Sendable, CaseIterable {
    case noStore = "no-store"
    /// rfc9111, apple: the request said no-store (RFC 9111 §5.2.1.5).
    case requestNoStore = "request-no-store"
    /// corelibs: no-cache is "never store", not "revalidate".
    case noCache = "no-cache"
    /// corelibs: any Vary is refused.
    case vary
    /// corelibs: the request sent credentials, or the response asked for them.
    case authorization
    /// Not a status the profile stores.
    case status
    /// Not GET (or HEAD).
    case method
    /// rfc9111: not heuristically cacheable and no explicit freshness, public or private.
    case noFreshness = "no-freshness"
    /// corelibs: already expired when stored (its reuse test fails at once).
    case expired
    /// apple: larger than the entry share of the capacity ("about 5%").
    case sizeRule = "size-rule"
    /// Costs more than the whole capacity (for a tier: than every tier).
    case tooLarge = "too-large"
    /// rfc9111, apple: a HEAD response has no content to store (RFC 9110 §9.3.2).
    case head
    /// rfc9111, apple: a 206 (Partial Content); RFC 9111 §3.4 forbids serving it to a request
    /// for the whole, and storing or combining parts is not modeled.
    case partial
    /// corelibs: the URL has no host, so URLCache has no key for it.
    case noKey = "no-key"
}
