import WorkbenchCore
import WorkbenchTraces
import WorkbenchMetrics
import Foundation

/// The HTTP replay's decisions for one cache under one profile and request policy: which
/// key a request is stored under, whether the cache is consulted, and how each request is
/// answered (fresh hit, stale served, revalidated, fetched, offline failure), with what
/// stored afterwards. It keeps each stored response's headers and clocks (`StoredResponse`);
/// the backend keeps the bodies and evicts as it likes, and a lookup that misses drops the
/// remembered headers. Pure bookkeeping: no backend calls, no clock reads.
///
/// Complexity: O(1) dictionary work per request plus the header parsing of the responses
/// it stores or refreshes (O(header length)).
package struct HTTPCacheModel {
    let settings: HTTPReplaySettings
    let capacity: Int
    /// With the download model a fetched response is stored when its download finishes
    /// (`commit`), not when it is asked for.
    let defersStores: Bool
    private var stored: [UInt64: StoredResponse] = [:]
    package private(set) var counts = HTTPCounts()
    /// The backend's own size rule for the request being answered (`CacheBackend.admits`: a
    /// tier keeps what is too large for memory on disk); nil compares the cost with `capacity`.
    private var backendAdmits: Bool?
    /// The request being answered's own Cache-Control (RFC 9111 §5.2.1), parsed once per
    /// answer (O(header length)) and read by `revalidate` and `fetch`.
    private var asked = CacheControl()

    package init(settings: HTTPReplaySettings, capacity: Int) {
        self.settings = settings
        self.capacity = capacity
        defersStores = settings.downloads != nil
    }

    /// How a request was answered.
    package enum Outcome: Equatable {
        case fresh, stale, notModified
        /// From the origin in full (a miss, a reload, a revalidation that found a change).
        case fetched
        case offline

        package var servedFromCache: Bool { self == .fresh || self == .stale || self == .notModified }
    }

    /// What the replay does to the backend after a request.
    package struct Step: Equatable {
        package var outcome: Outcome
        /// Remove the backend's entry (an older body, or an invalidated one).
        package var remove = false
        /// Store the fetched response (after `remove`); with deferred stores, `entry` is what
        /// `commit` takes when the download finishes.
        package var store = false
        package var entry: StoredResponse?
        /// Not stored because it costs more than the whole capacity, or than every tier of a
        /// tiered backend (the `too_large` count).
        package var tooLarge = false
    }

    /// The request the backend sees: the request itself, or under corelibs one keyed by
    /// host + port + path (`URLCache.identifier(for:)`: no scheme, no query). nil when
    /// corelibs has no key for it (no host). `keyByURL` keeps the whole URL under corelibs.
    package func cacheRequest(_ request: Request) -> Request? {
        guard settings.profile == .corelibs, !settings.keyByURL else { return request }
        guard let url = URL(string: request.keyText), let host = url.host, !host.isEmpty else { return nil }
        // Written as a URL, so a backend that needs one (foundation-urlcache) gets one: two
        // requests share this text exactly when they share corelibs' key (lowercased host,
        // port or none, decoded path; any scheme, any query).
        let path = url.path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? url.path
        let key = "https://\(host.lowercased())\(url.port.map { ":\($0)" } ?? "")\(path)"
        return Request(time: request.time, key: key, size: request.size, width: request.width, height: request.height)
    }

    /// A deferred response lands: returns whether it replaces one the backend holds.
    package mutating func commit(_ entry: StoredResponse, key: UInt64) -> Bool {
        stored.updateValue(entry, forKey: key) != nil
    }

    /// Counts a request that joined a download in flight.
    package mutating func countCoalesced() { counts.coalescedRequests += 1 }

    /// Counts a hit of a layer that reads no headers (`HTTPLayers`).
    package mutating func countLibraryHit() { counts.libraryHits += 1 }

    /// Counts a request no layer answered and none asks a URLCache about: the library
    /// downloads it in full (SDWebImage and Kingfisher bypass URLCache: `HTTPLayers`), and
    /// why its body is not kept, if it is not (`notStored`: too large for every layer, or not
    /// the library's request — a HEAD, a Range request, another method).
    package mutating func countLibraryFetch(_ request: Request, notStored reason: NotStoredReason?) {
        counts.originFetches += 1
        counts.originRequests += 1
        counts.originBytes += ByteTotal(Self.bodySize(request))
        if let reason { counts.notStored[reason, default: 0] += 1 }
    }

    /// Counts a hit the backend answered with another URL's body (its own key collided).
    package mutating func countWrongBody() { counts.wrongBodyHits += 1 }

    /// Takes over another model's stored responses (a session that goes offline keeps its
    /// cache): for tests of policies that never load.
    mutating func adopt(from other: HTTPCacheModel) { stored = other.stored }

    /// A request `cacheRequest` has no key for: fetched, never stored.
    package mutating func answerWithoutKey(_ request: Request) -> Step {
        countConflicts(request.http)
        backendAdmits = nil
        asked = CacheControl()
        return fetch(request, http: request.http ?? Self.plainResponse, key: 0, replace: false, cost: 0, storable: .noKey)
    }

    /// Whether the backend is asked for the key before answering. corelibs always looks
    /// (URLSessionTask.swift L155-165, request policies never consulted); otherwise not for
    /// the reload policies, nor for unsafe methods, nor for a Range request (see `answer`).
    package func looksUp(_ request: Request) -> Bool {
        if settings.profile == .corelibs { return true }
        guard Self.isSafe(request.http), request.http?.asksForRange != true else { return false }
        switch settings.policy {
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData: return false
        default: return true
        }
    }

    /// Answers `request`, whose backend lookup (made when `looksUp`) found its key or not.
    /// `admits` is the backend's own size rule for it (`CacheBackend.admits`), nil for none.
    ///
    /// Partial content and HEAD (rfc9111, apple):
    /// - a 206 is never stored: RFC 9111 §3.4 lets a cache store an incomplete response but
    ///   never serve it to a request for the whole; storing and combining parts is not modeled
    ///   (counted as `partial` in not_stored). Apple documents nothing on ranges, so the same;
    /// - a request with a Range header goes to the origin without a lookup: answering a range
    ///   from a stored complete response (RFC 9110 §14.2) is not modeled; its 206 leaves the
    ///   stored response alone, a complete 200 replaces it (counted in `rangeRequests`);
    /// - a HEAD may be answered by the stored GET response (RFC 9110 §9.3.2: HEAD is GET without
    ///   content; RFC 9111 §4 lets a stored response serve a method it allows), and a HEAD
    ///   revalidation refreshes it (RFC 9111 §4.3.5); a HEAD response is never stored as a
    ///   body (`head` in not_stored). Apple documents nothing here: the RFC's rules are assumed.
    /// corelibs keeps its own behavior: HEAD fails its reuse test (GET only) and is never
    /// stored; a 206 is a status it stores (L195-212) and Range is never read, so a later
    /// request is answered with the partial body (counted in `partialBodyHits`).
    ///
    /// The request's own Cache-Control (RFC 9111 §5.2.1) under rfc9111 and apple (Apple
    /// documents none of it, so the RFC is assumed; corelibs never reads it, HTTPURLProtocol.swift
    /// L119-254 reads the request only for Authorization):
    /// - `no-store`: the response to it is not stored, nor a 304's fields (`request-no-store`
    ///   in not_stored); a stored response may still answer it (§5.2.1.5);
    /// - `no-cache`: a stored response is validated before use, as a response's no-cache;
    /// - `max-age=N`: a stored response older than N is validated; `min-fresh=N`: one fresh for
    ///   less than N more seconds is validated; `max-stale[=N]`: a stale one (up to N past its
    ///   lifetime) is served, unless the response says must-revalidate or no-cache (§4.2.4);
    /// - `only-if-cached`: whatever would go to the origin is a 504 instead (an offline failure,
    ///   counted apart in `onlyIfCachedFailures`).
    /// With `returnCacheData…` (any age) and `reloadRevalidatingCacheData` (always validate) the
    /// policy decides ages, so max-age, min-fresh and max-stale do not apply there; no-cache
    /// does under rfc9111, as a response's no-cache does.
    package mutating func answer(_ request: Request, key: UInt64, found: Bool, cost: Int, admits: Bool? = nil) -> Step {
        let http = request.http ?? Self.plainResponse
        asked = CacheControl(parsing: http.requestHeaders["cache-control"])
        if asked.hasRequestDirective { counts.requestDirectives += 1 }
        let step = decide(request, http: http, key: key, found: found, cost: cost, admits: admits)
        if step.outcome == .offline && asked.onlyIfCached && settings.profile != .corelibs
            && settings.policy != .returnCacheDataDontLoad { counts.onlyIfCachedFailures += 1 }
        return step
    }

    private mutating func decide(_ request: Request, http: HTTPMetadata, key: UInt64, found: Bool, cost: Int, admits: Bool?) -> Step {
        countConflicts(http)
        backendAdmits = admits
        let lookedUp = looksUp(request)
        // The backend may have evicted the body: then the remembered headers go too.
        if lookedUp && !found { stored[key] = nil }
        if settings.profile == .corelibs { return corelibsAnswer(request, http: http, key: key, found: found, cost: cost) }
        // Nothing from the origin: the policy's offline mode, or the request's only-if-cached.
        let noLoad = settings.policy == .returnCacheDataDontLoad || asked.onlyIfCached
        // A body the model has no headers for (never happens in one replay) is replaced.
        let inBackend = lookedUp ? found : stored[key] != nil
        guard Self.isSafe(http) else {
            var step = fetch(request, http: http, key: key, replace: false, cost: cost, storable: .method)
            // RFC 9111 §4.4: a non-error response to an unsafe method invalidates the URI.
            if http.status < 400, stored.removeValue(forKey: key) != nil {
                counts.invalidations += 1
                step.remove = true
            }
            return step
        }
        if http.asksForRange {
            counts.rangeRequests += 1
            if noLoad { return offline() }
            // Only a complete response replaces the stored one.
            return fetch(request, http: http, key: key, replace: inBackend && http.status != 206, cost: cost)
        }
        guard lookedUp, found, let entry = stored[key] else {
            if (lookedUp && settings.policy == .returnCacheDataDontLoad) || asked.onlyIfCached { return offline() }
            return fetch(request, http: http, key: key, replace: inBackend, cost: cost)
        }
        guard entry.varyMatches(http) else {  // no stored response for this variant
            counts.varyMismatches += 1
            if noLoad { return offline() }
            // A HEAD stores nothing, so it leaves the stored variant in place.
            return fetch(request, http: http, key: key, replace: !http.isHEAD, cost: cost)
        }
        let now = request.time
        let (lifetime, _) = entry.freshnessLifetime(heuristicFraction: settings.heuristicFraction)
        let age = entry.currentAge(now: now)
        let fresh = lifetime > age
        let rfc = settings.profile == .rfc9111
        // no-cache from either side: validate before every reuse (§5.2.2.4, §5.2.1.4).
        let validateAlways = entry.control.noCache || asked.noCache
        // Directives that forbid serving without validation (RFC 9111 §4.2.4, §5.2.2.2, §5.2.2.4);
        // Apple's returnCacheData… policies use a response "regardless of age".
        let mustValidateStale = rfc && (entry.control.mustRevalidate || validateAlways)
        switch settings.policy {
        case .returnCacheDataElseLoad:
            if fresh && !(rfc && validateAlways) { return served(.fresh) }
            return mustValidateStale ? revalidate(request, http: http, entry: entry, key: key, cost: cost, age: age, lifetime: lifetime) : served(.stale)
        case .returnCacheDataDontLoad:
            if fresh && !(rfc && validateAlways) { return served(.fresh) }
            return mustValidateStale ? offline() : served(.stale)
        case .reloadRevalidatingCacheData:
            // RFC 8246: an immutable response is not revalidated while fresh, even on reload.
            if rfc && fresh && entry.control.immutable && !validateAlways { return served(.fresh) }
            return revalidate(request, http: http, entry: entry, key: key, cost: cost, age: age, lifetime: lifetime)
        case .useProtocolCachePolicy, .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData:
            if validateAlways {  // store, but validate before every reuse
                return revalidate(request, http: http, entry: entry, key: key, cost: cost, age: age, lifetime: lifetime)
            }
            // §5.2.1.1 max-age: no older than N; §5.2.1.3 min-fresh: fresh N seconds more.
            let youngEnough = asked.maxAge.map { age <= Double($0) } ?? true
            if fresh && youngEnough && (asked.minFresh.map { lifetime - age >= Double($0) } ?? true) { return served(.fresh) }
            // §5.2.1.2 max-stale: the client takes a stale response, unless the response forbids it (§4.2.4).
            if !fresh, youngEnough, !entry.control.mustRevalidate, let maxStale = asked.maxStale, age - lifetime <= Double(maxStale) {
                return served(.stale)
            }
            // RFC 5861 stale-while-revalidate: serve stale now, revalidate in the background.
            if rfc, !fresh, youngEnough, !entry.control.mustRevalidate, let window = entry.control.staleWhileRevalidate, age - lifetime <= Double(window) {
                if asked.onlyIfCached { return served(.stale) }  // no background request either
                var step = revalidate(request, http: http, entry: entry, key: key, cost: cost, age: age, lifetime: lifetime)
                if step.outcome != .stale { counts.staleServed += 1 }  // stale-if-error counted it already
                step.outcome = .stale
                counts.backgroundRevalidations += 1
                return step
            }
            return revalidate(request, http: http, entry: entry, key: key, cost: cost, age: age, lifetime: lifetime)
        }
    }

    // MARK: The answers

    private mutating func served(_ outcome: Outcome) -> Step {
        switch outcome {
        case .fresh: counts.freshHits += 1
        case .stale: counts.staleServed += 1
        default: break
        }
        return Step(outcome: outcome)
    }

    private mutating func offline() -> Step {
        counts.offlineFailures += 1
        return Step(outcome: .offline)
    }

    /// Checks a stored response with the origin; the origin's answer is the trace's next
    /// response for the key: not modified when it is a 304 or carries the same validator
    /// (ETag, weakly compared; else Last-Modified; else, when it lacks the stored one, the
    /// same size). A stored response without validators cannot be checked: fetched in full.
    private mutating func revalidate(
        _ request: Request, http: HTTPMetadata, entry: StoredResponse, key: UInt64, cost: Int, age: Double, lifetime: Double
    ) -> Step {
        if asked.onlyIfCached { return offline() }  // §5.2.1.7: a 504, not the origin
        guard settings.revalidation != .refetch, entry.hasValidator else {
            return fetch(request, http: http, key: key, replace: true, cost: cost)
        }
        counts.revalidations += 1
        counts.originRequests += 1
        if http.status >= 500 {
            // RFC 5861 stale-if-error (rfc9111): the origin failed, serve the stored response.
            if settings.profile == .rfc9111, !entry.control.mustRevalidate, let window = entry.control.staleIfError,
               age - lifetime <= Double(window) {
                return served(.stale)
            }
            counts.originFetches += 1  // the error's body; the stored response is kept
            counts.originBytes += ByteTotal(Self.bodySize(request))
            return Step(outcome: .fetched)
        }
        if isNotModified(entry, http: http, size: request.size) {
            counts.notModified += 1
            // A no-store request's response is not stored, its 304's fields included (§5.2.1.5).
            if settings.notModifiedUpdate == .update && !asked.noStore {
                var refreshed = entry
                refreshed.refresh(from: http, requestTime: request.time, responseTime: responseTime(request))
                if refreshed.freshnessLifetime(heuristicFraction: settings.heuristicFraction).heuristic { counts.heuristicLifetimes += 1 }
                stored[key] = refreshed
            }
            return Step(outcome: .notModified)
        }
        // A conditional GET brought the new body in its round trip; a HEAD needs a GET next.
        return fetch(request, http: http, key: key, replace: true, cost: cost, roundTrip: settings.revalidation == .head)
    }

    private mutating func isNotModified(_ entry: StoredResponse, http: HTTPMetadata, size: Int) -> Bool {
        if http.status == 304 { return true }
        if let etag = entry.fields.etag, let new = http.etag { return Self.weakTag(etag) == Self.weakTag(new) }
        if entry.fields.etag == nil, let modified = entry.fields.lastModified, let new = http.lastModified { return modified == new }
        // A HEAD has no body to compare sizes with: changed, as far as the replay can tell
        // (RFC 9111 §4.3.5 lets it invalidate the stored response).
        if http.isHEAD { return false }
        counts.validatedBySize += 1
        return size == entry.size
    }

    /// RFC 9110 §8.8.3.2: weak comparison ignores the `W/` prefix.
    private static func weakTag(_ tag: String) -> Substring {
        let trimmed = tag.trimmingSpaces
        return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : Substring(trimmed)
    }

    /// A full response from the origin, stored when the profile's rules allow (`storable`
    /// forces a reason); `replace` removes the older body first; `roundTrip` is false when
    /// the request that brought it was counted already (a conditional GET).
    private mutating func fetch(
        _ request: Request, http: HTTPMetadata, key: UInt64, replace: Bool, cost: Int, storable reason: NotStoredReason? = nil,
        roundTrip: Bool = true
    ) -> Step {
        counts.originFetches += 1
        if roundTrip { counts.originRequests += 1 }
        if http.status == 304 && !http.isHEAD { counts.sizesFromEarlierResponse += 1 }
        counts.originBytes += ByteTotal(Self.bodySize(request))
        var step = Step(outcome: .fetched, remove: replace)
        var entry = StoredResponse(http, size: request.size, requestTime: request.time, responseTime: responseTime(request))
        entry.sourceID = request.id
        if let reason = reason ?? notStoredReason(entry, http: http, cost: cost, now: entry.responseTime) {
            counts.notStored[reason, default: 0] += 1
            if replace { stored[key] = nil }
            step.tooLarge = reason == .tooLarge
            return step
        }
        if settings.profile != .corelibs, entry.freshnessLifetime(heuristicFraction: settings.heuristicFraction).heuristic {
            counts.heuristicLifetimes += 1
        }
        if defersStores { step.entry = entry } else { stored[key] = entry }
        step.store = true
        return step
    }

    /// Why the profile would not store this response (nil: it stores it).
    private func notStoredReason(_ entry: StoredResponse, http: HTTPMetadata, cost: Int, now: Double) -> NotStoredReason? {
        let control = entry.control
        switch settings.profile {
        case .rfc9111, .apple:
            if http.isHEAD { return .head }  // no content to store (RFC 9110 §9.3.2)
            if entry.status == 206 { return .partial }  // RFC 9111 §3.4: never served for the whole
            if control.noStore { return .noStore }
            if asked.noStore { return .requestNoStore }  // RFC 9111 §5.2.1.5
            if !settings.profile.storesStatus(entry.status) { return .status }
            if settings.profile == .rfc9111, !(control.isPublic || control.isPrivate || control.maxAge != nil || entry.fields.expires != nil
                || HTTPCacheProfile.heuristicallyCacheable.contains(entry.status)) { return .noFreshness }
        case .corelibs:  // the reuse test, at store time (HTTPURLProtocol.swift L135-265)
            if http.sendsCredentials || http.asksForCredentials { return .authorization }
            if !Self.isGET(http) { return .method }
            if control.noStore { return .noStore }
            if control.noCache { return .noCache }
            if !settings.profile.storesStatus(entry.status) { return .status }
            if entry.fields.vary != nil { return .vary }
            if !entry.corelibsFresh(now: now) { return .expired }
            // URLCache stores only when cost < capacity (L487-536); a tier says for itself.
            if backendAdmits == nil && cost >= capacity { return .tooLarge }
        }
        if let share = settings.entryShareLimit, Double(cost) > share * Double(capacity) { return .sizeRule }
        // The backend's own rule when it has one: a tier keeps what memory cannot hold on disk.
        if !(backendAdmits ?? (cost <= capacity)) { return .tooLarge }
        return nil
    }

    /// FoundationNetworking: every request looks; a stored response that fails the reuse
    /// test (for this request, now) is deleted (NativeProtocol.swift L449-455) and the
    /// request goes to the origin unconditionally; there is no revalidation.
    private mutating func corelibsAnswer(_ request: Request, http: HTTPMetadata, key: UInt64, found: Bool, cost: Int) -> Step {
        if found, let entry = stored[key] {
            if !http.sendsCredentials, Self.isGET(http), entry.corelibsFresh(now: request.time) {
                if entry.sourceID != request.id { counts.wrongBodyHits += 1 }
                if entry.status == 206 && !http.asksForRange { counts.partialBodyHits += 1 }
                return served(.fresh)
            }
            return fetch(request, http: http, key: key, replace: true, cost: cost)
        }
        return fetch(request, http: http, key: key, replace: found, cost: cost)
    }

    /// Counts a response whose repeated singleton fields were settled by `HeaderFieldLines`' rules.
    private mutating func countConflicts(_ http: HTTPMetadata?) {
        if let http, !http.conflictingFields.isEmpty { counts.singletonConflicts += 1 }
    }

    /// The body a request brings from the origin: none for a HEAD (RFC 9110 §9.3.2).
    private static func bodySize(_ request: Request) -> Int { request.http?.isHEAD == true ? 0 : request.size }

    private func responseTime(_ request: Request) -> Double {
        request.time + (request.http?.downloadSeconds ?? 0)
    }

    private static func isSafe(_ http: HTTPMetadata?) -> Bool {
        guard let method = http?.method.uppercased() else { return true }
        return method == "GET" || method == "HEAD"
    }

    private static func isGET(_ http: HTTPMetadata) -> Bool { http.method.uppercased() == "GET" }

    /// A request without recorded HTTP facts is read as a bare 200 GET.
    static let plainResponse = HTTPMetadata(method: "GET", status: 200, mimeType: nil, headers: [:])
}
