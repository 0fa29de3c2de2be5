import WorkbenchCore
import WorkbenchTraces
import WorkbenchMetrics
/// What the HTTP replay remembers about one stored response besides its body (which the
/// backend holds): the caching header fields as last received, the local clocks of the
/// exchange that stored or refreshed it, and the request header values its `Vary` selects.
/// The replay's clock is trace time (seconds since 1970 for HAR).
package struct StoredResponse: Sendable, Equatable {
    struct Fields: Sendable, Equatable {
        var cacheControl: String?
        var expires: String?
        var date: String?
        var age: String?
        var etag: String?
        var lastModified: String?
        var vary: String?

        init(_ http: HTTPMetadata) {
            (cacheControl, expires, date, age, etag, lastModified, vary) =
                (http.cacheControl, http.expires, http.date, http.age, http.etag, http.lastModified, http.vary)
        }

        /// RFC 9111 §3.2 / §4.3.4: each field the 304 carries replaces the stored one.
        mutating func update(from http: HTTPMetadata) {
            if let value = http.cacheControl { cacheControl = value }
            if let value = http.expires { expires = value }
            if let value = http.date { date = value }
            if let value = http.age { age = value }
            if let value = http.etag { etag = value }
            if let value = http.lastModified { lastModified = value }
            if let value = http.vary { vary = value }
        }
    }

    var fields: Fields
    var control: CacheControl
    /// The header fields' values, parsed once per store or refresh, not per lookup:
    /// Date, Expires and Last-Modified by RFC 9110 (three formats) and, for corelibs, by
    /// RFC 1123 alone; Age as delta-seconds. nil where absent or unparseable.
    private var parsed = ParsedFields()

    private struct ParsedFields: Sendable, Equatable {
        var date: Double?
        var expires: Double?
        var lastModified: Double?
        var age = 0.0
        var imfDate: Double?
        var imfExpires: Double?
    }
    var status: Int
    var size: Int
    /// `request_time` and `response_time` of RFC 9111 §4.2.3 (local clock).
    var requestTime: Double
    var responseTime: Double
    /// The request's values of the headers `Vary` names (nil entries for absent headers);
    /// nil when the response has no Vary. `Vary: *` never matches.
    var varyValues: [String?]?
    var varyNames: [String] = []
    var varyAny = false
    /// The id of the URL whose response this is: under corelibs' host + port + path key,
    /// another URL (`?w=200` for `?w=100`) can be served this body.
    var sourceID: UInt64 = 0

    init(_ http: HTTPMetadata, size: Int, requestTime: Double, responseTime: Double) {
        fields = Fields(http)
        control = CacheControl(parsing: http.cacheControl)
        // A recorded 304 that fills an empty cache stands for the 200 it confirmed.
        status = http.status == 304 ? 200 : http.status
        self.size = size
        self.requestTime = requestTime
        self.responseTime = responseTime
        parseFields(requestHeaders: http.requestHeaders)
    }

    mutating func refresh(from http: HTTPMetadata, requestTime: Double, responseTime: Double) {
        fields.update(from: http)
        control = CacheControl(parsing: fields.cacheControl)
        self.requestTime = requestTime
        self.responseTime = responseTime
        parseFields(requestHeaders: http.requestHeaders)
    }

    private mutating func parseFields(requestHeaders: [String: String]) {
        func seconds(_ text: String?, imfOnly: Bool = false) -> Double? { text.flatMap { HTTPDate.seconds($0, imfOnly: imfOnly) }.map(Double.init) }
        parsed = ParsedFields(
            date: seconds(fields.date), expires: seconds(fields.expires), lastModified: seconds(fields.lastModified),
            age: Double(CacheControl.deltaSeconds(fields.age?.trimmingSpaces)),
            imfDate: seconds(fields.date, imfOnly: true), imfExpires: seconds(fields.expires, imfOnly: true))
        varyNames = Self.varyNames(fields.vary)
        varyAny = varyNames.contains("*")
        varyValues = varyNames.isEmpty ? nil : varyNames.map { requestHeaders[$0] }
    }

    static func varyNames(_ vary: String?) -> [String] {
        (vary ?? "").split(separator: ",").map { String($0).trimmingSpaces.lowercased() }.filter { !$0.isEmpty }
    }

    /// RFC 9111 §4.1: the new request's selected headers match the stored ones.
    func varyMatches(_ http: HTTPMetadata) -> Bool {
        if varyAny { return false }
        guard let varyValues else { return true }
        return varyNames.map { http.requestHeaders[$0] } == varyValues
    }

    var hasValidator: Bool { fields.etag != nil || fields.lastModified != nil }

    // MARK: RFC 9111 freshness (rfc9111 and apple)

    /// §4.2.1: max-age, else Expires − Date (an invalid Expires is already expired), else the
    /// heuristic of §4.2.2 when allowed: `fraction` × (Date − Last-Modified). s-maxage is for
    /// shared caches only. Returns the lifetime and whether the heuristic gave it.
    func freshnessLifetime(heuristicFraction: Double) -> (seconds: Double, heuristic: Bool) {
        if let maxAge = control.maxAge { return (Double(maxAge), false) }
        let date = parsed.date ?? responseTime
        if fields.expires != nil {
            guard let at = parsed.expires else { return (0, false) }
            return (max(0, at - date), false)
        }
        guard heuristicFraction > 0, control.isPublic || HTTPCacheProfile.heuristicallyCacheable.contains(status),
              let modified = parsed.lastModified, modified <= date else { return (0, false) }
        return ((date - modified) * heuristicFraction, true)
    }

    /// §4.2.3's current_age at `now`:
    /// apparent_age = max(0, response_time − date_value); corrected_age_value = age_value +
    /// (response_time − request_time); corrected_initial_age = max(apparent_age,
    /// corrected_age_value); current_age = corrected_initial_age + (now − response_time).
    func currentAge(now: Double) -> Double {
        let date = parsed.date ?? responseTime
        let apparentAge = max(0, responseTime - date)
        let correctedAgeValue = parsed.age + (responseTime - requestTime)
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        return correctedInitialAge + (now - responseTime)
    }

    // MARK: swift-corelibs-foundation's reuse test (HTTPURLProtocol.swift L119-265)

    /// Fresh as FoundationNetworking decides: with max-age, now < min(Date, stored time) +
    /// max-age (Age ignored); else with s-maxage, fresh (it only suppresses Expires); else an
    /// Expires must parse as RFC 1123 and lie ahead; with neither, fresh forever.
    func corelibsFresh(now: Double) -> Bool {
        if let maxAge = control.maxAge {
            return now < min(parsed.imfDate ?? responseTime, responseTime) + Double(maxAge)
        }
        if control.sharedMaxAge != nil { return true }
        if fields.expires != nil {
            guard let at = parsed.imfExpires else { return false }
            return at > now
        }
        return true
    }
}
