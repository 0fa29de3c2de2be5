import Foundation
import Testing
@testable import CacheWorkbench
@testable import WorkbenchReports
@testable import WorkbenchCommands
@testable import WorkbenchCore
@testable import WorkbenchMetrics
@testable import WorkbenchTraces
@testable import WorkbenchHTTP
@testable import WorkbenchBackends
@testable import WorkbenchSimulation
@testable import WorkbenchExperiments

/// Trace time 0 in these tests: 2026-01-01 00:00:00 UTC.
private let t0 = 1_767_225_600.0

/// One recorded exchange at `t0 + at` seconds.
private func exchange(
    _ at: Double, status: Int = 200, size: Int = 100, method: String = "GET",
    _ headers: [String: String] = [:], request: [String: String] = [:], totalMs: Double? = nil, date: Double? = nil
) -> Request {
    exchange(at, "https://x.test/a.jpg", status: status, size: size, method: method, headers, request: request, totalMs: totalMs, date: date)
}

private func exchange(
    _ at: Double, _ url: String, status: Int = 200, size: Int = 100, method: String = "GET",
    _ headers: [String: String] = [:], request: [String: String] = [:], totalMs: Double? = nil, date: Double? = nil
) -> Request {
    var headers = headers
    // A server stamps Date when it answers (here: when the request starts, unless given).
    if headers["date"] == nil { headers["date"] = HTTPDate.format(Int(t0 + (date ?? at))) }
    let http = HTTPMetadata(method: method, status: status, mimeType: "image/jpeg", headers: headers, requestHeaders: request,
                            timings: .init(total: totalMs))
    let key = KeyDigest.parse(url)
    return Request(time: t0 + at, id: key.id, size: size, name: url, http: http)
}

private func settings(_ profile: HTTPCacheProfile = .rfc9111, _ policy: RequestCachePolicy = .useProtocolCachePolicy,
                      _ change: (inout HTTPReplaySettings) -> Void = { _ in }) -> HTTPReplaySettings {
    var s = HTTPReplaySettings(profile: profile)
    s.policy = policy
    change(&s)
    return s
}

/// Each request's outcome with an unbounded cache, and the counts.
private func outcomes(_ requests: [Request], _ settings: HTTPReplaySettings, capacity: Int = 1 << 30) -> ([HTTPCacheModel.Outcome], HTTPCounts) {
    var model = HTTPCacheModel(settings: settings, capacity: capacity)
    var present = Set<UInt64>()
    var result: [HTTPCacheModel.Outcome] = []
    for request in requests {
        guard let keyed = model.cacheRequest(request) else {
            result.append(model.answerWithoutKey(request).outcome)
            continue
        }
        let lookedUp = model.looksUp(request)
        let step = model.answer(request, key: keyed.id, found: lookedUp && present.contains(keyed.id), cost: request.size)
        if step.remove { present.remove(keyed.id) }
        if step.store { present.insert(keyed.id) }
        result.append(step.outcome)
    }
    return (result, model.counts)
}

@Suite(.onTestWorkers) struct HTTPDateAndDirectiveTests {
    @Test func threeDateFormats() {
        let expected = 784_111_777  // Sun, 06 Nov 1994 08:49:37 GMT (RFC 9110's example)
        #expect(HTTPDate.seconds("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.seconds("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.seconds("Sun Nov  6 08:49:37 1994") == expected)
        // FoundationNetworking accepts only the first (RFC 1123).
        #expect(HTTPDate.seconds("Sun, 06 Nov 1994 08:49:37 GMT", imfOnly: true) == expected)
        #expect(HTTPDate.seconds("Sunday, 06-Nov-94 08:49:37 GMT", imfOnly: true) == nil)
        #expect(HTTPDate.seconds("Sun Nov  6 08:49:37 1994", imfOnly: true) == nil)
        for bad in ["0", "", "-1", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "tomorrow"] {
            #expect(HTTPDate.seconds(bad) == nil, "\(bad)")
        }
        #expect(HTTPDate.format(expected) == "Sun, 06 Nov 1994 08:49:37 GMT")
        for seconds in [0, 951_782_400, 1_767_225_600, 4_102_444_799] {  // incl. 2000-02-29
            #expect(HTTPDate.seconds(HTTPDate.format(seconds)) == seconds)
        }
    }

    @Test func cacheControlDirectives() {
        let c = CacheControl(parsing: #"Public, MAX-AGE=60, max-age=5, no-cache="Set-Cookie, X", must-revalidate, s-maxage=9, immutable, stale-while-revalidate=30, stale-if-error=600, private"#)
        #expect(c.maxAge == 60 && c.sharedMaxAge == 9 && c.isPublic && c.noCache && c.mustRevalidate && c.immutable && c.isPrivate)
        #expect(c.staleWhileRevalidate == 30 && c.staleIfError == 600 && !c.noStore)
        #expect(CacheControl(parsing: "max-age=abc").maxAge == 0)  // unparseable: stale
        #expect(CacheControl(parsing: "max-age=99999999999999999999").maxAge == 2_147_483_648)  // §1.2.2
        #expect(CacheControl(parsing: #"max-age="120""#).maxAge == 120)
        #expect(CacheControl(parsing: "no-store").noStore)
        #expect(CacheControl(parsing: nil) == CacheControl())
    }
}

@Suite(.onTestWorkers) struct HTTPFreshnessTests {
    @Test func maxAgeThenRevalidationThen304Refresh() {
        let h = ["cache-control": "max-age=60", "etag": #""v1""#]
        let (o, c) = outcomes([exchange(0, h), exchange(30, h), exchange(61, status: 304, ["etag": #""v1""#]), exchange(100, h), exchange(122, h)], settings())
        // Refreshed at 61 with the stored max-age (the 304 carries none): fresh until 121.
        #expect(o == [.fetched, .fresh, .notModified, .fresh, .notModified])
        #expect(c.revalidations == 2 && c.notModified == 2 && c.originFetches == 1 && c.originRequests == 3)
    }

    @Test func currentAgeFormula() {
        // Date 5 s before the request, Age 50, 2 s in flight: apparent_age = 7, corrected_age_value
        // = 52, corrected_initial_age = 52; at response_time + r the age is 52 + r.
        let request = exchange(0, ["cache-control": "max-age=60", "age": "50", "etag": "x"], totalMs: 2000, date: -5)
        let entry = StoredResponse(request.http!, size: 100, requestTime: t0, responseTime: t0 + 2)
        #expect(entry.currentAge(now: t0 + 2) == 52)
        #expect(entry.currentAge(now: t0 + 9) == 59)
        // Without Age the apparent age wins: 7 + resident time.
        let plain = StoredResponse(exchange(0, ["cache-control": "max-age=60"], date: -5).http!, size: 100, requestTime: t0, responseTime: t0 + 2)
        #expect(plain.currentAge(now: t0 + 2) == 7)
        // Fresh while lifetime > current_age: at 9.5 s 60 > 59.5; at 10 s 60 > 60 fails.
        let (o, _) = outcomes([request, exchange(9, ["etag": "x"]), exchange(9.5, ["etag": "x"]), exchange(10, status: 304)], settings())
        #expect(o == [.fetched, .fresh, .fresh, .notModified])
    }

    @Test func expiresMinusDateAndInvalidExpires() {
        let h = ["expires": HTTPDate.format(Int(t0) + 100), "last-modified": HTTPDate.format(Int(t0) - 10_000)]
        let (o, _) = outcomes([exchange(0, h), exchange(99, h), exchange(101, h)], settings())
        #expect(o == [.fetched, .fresh, .notModified])  // then Last-Modified validates
        let bad = ["expires": "0", "etag": "e"]  // an invalid Expires is already expired (§5.3)
        let (o2, _) = outcomes([exchange(0, bad), exchange(1, bad)], settings())
        #expect(o2 == [.fetched, .notModified])
    }

    @Test func heuristicFreshnessFromLastModified() {
        let h = ["last-modified": HTTPDate.format(Int(t0) - 1_000)]
        let (o, c) = outcomes([exchange(0, h), exchange(99, h), exchange(101, h)], settings())
        #expect(o == [.fetched, .fresh, .notModified])  // 10% of 1000 s
        #expect(c.heuristicLifetimes == 2)  // stored, then refreshed by the 304
        let (o2, _) = outcomes([exchange(0, h), exchange(499, h), exchange(501, h)], settings { $0.heuristicFraction = 0.5 })
        #expect(o2 == [.fetched, .fresh, .notModified])
        let (o3, c3) = outcomes([exchange(0, h), exchange(1, h)], settings { $0.heuristicFraction = 0 })
        // A recorded 304 with nothing cached is fetched in full at its URL's last size.
        #expect(outcomes([exchange(0, status: 304, h)], settings()).1.sizesFromEarlierResponse == 1)
        #expect(o3 == [.fetched, .notModified] && c3.heuristicLifetimes == 0)
        // 302 is not heuristically cacheable: without explicit freshness, public or private, not stored.
        let (o4, c4) = outcomes([exchange(0, status: 302, h), exchange(1, status: 302, h)], settings())
        #expect(o4 == [.fetched, .fetched] && c4.notStored == [.noFreshness: 2])
        // public allows it, heuristic included; so does private in a private cache.
        var pub = h
        pub["cache-control"] = "public"
        #expect(outcomes([exchange(0, status: 302, pub), exchange(1, status: 302, pub)], settings()).0 == [.fetched, .fresh])
        let priv = ["cache-control": "private, max-age=60"]
        #expect(outcomes([exchange(0, status: 302, priv), exchange(1, status: 302, priv)], settings()).0 == [.fetched, .fresh])
    }

    @Test func noStoreNoCacheMustRevalidateImmutable() {
        let (o, c) = outcomes([exchange(0, ["cache-control": "no-store"]), exchange(1, ["cache-control": "no-store"])], settings())
        #expect(o == [.fetched, .fetched] && c.notStored == [.noStore: 2])
        let nc = ["cache-control": "no-cache, max-age=600", "etag": "e"]
        #expect(outcomes([exchange(0, nc), exchange(1, nc), exchange(2, nc)], settings()).0 == [.fetched, .notModified, .notModified])
        // corelibs treats no-cache as never store.
        let (oc, cc) = outcomes([exchange(0, nc), exchange(1, nc)], settings(.corelibs))
        #expect(oc == [.fetched, .fetched] && cc.notStored == [.noCache: 2])
        // must-revalidate once stale: rfc9111 validates even for returnCacheData…; Apple uses any age.
        let mr = ["cache-control": "max-age=10, must-revalidate", "etag": "e"]
        let seq = [exchange(0, mr), exchange(20, mr)]
        #expect(outcomes(seq, settings(.rfc9111, .returnCacheDataElseLoad)).0 == [.fetched, .notModified])
        #expect(outcomes(seq, settings(.apple, .returnCacheDataElseLoad)).0 == [.fetched, .stale])
        let plain = ["cache-control": "max-age=10", "etag": "e"]
        #expect(outcomes([exchange(0, plain), exchange(20, plain)], settings(.rfc9111, .returnCacheDataElseLoad)).0 == [.fetched, .stale])
        // immutable: no revalidation while fresh, even on reloadRevalidatingCacheData.
        let imm = ["cache-control": "max-age=600, immutable", "etag": "e"]
        #expect(outcomes([exchange(0, imm), exchange(1, imm)], settings(.rfc9111, .reloadRevalidatingCacheData)).0 == [.fetched, .fresh])
        #expect(outcomes([exchange(0, plain), exchange(1, plain)], settings(.rfc9111, .reloadRevalidatingCacheData)).0 == [.fetched, .notModified])
    }

    @Test func varySelectsTheStoredVariant() {
        let h = ["cache-control": "max-age=600", "vary": "Accept-Encoding"]
        let gzip = ["accept-encoding": "gzip"], br = ["accept-encoding": "br"]
        let (o, _) = outcomes([exchange(0, h, request: gzip), exchange(1, h, request: gzip), exchange(2, h, request: br), exchange(3, h, request: gzip)], settings())
        #expect(o == [.fetched, .fresh, .fetched, .fetched])  // one variant kept: br replaced gzip
        #expect(outcomes([exchange(0, h, request: gzip), exchange(2, h, request: br)], settings()).1.varyMismatches == 1)
        let star = ["cache-control": "max-age=600", "vary": "*"]
        #expect(outcomes([exchange(0, star), exchange(1, star)], settings()).0 == [.fetched, .fetched])
        let (oc, cc) = outcomes([exchange(0, h, request: gzip), exchange(1, h, request: gzip)], settings(.corelibs))
        #expect(oc == [.fetched, .fetched] && cc.notStored == [.vary: 2])
    }

    @Test func revalidationOutcomeComesFromTheTrace() {
        let v1 = ["cache-control": "max-age=0", "etag": #""v1""#]
        let v2 = ["cache-control": "max-age=0", "etag": #""v2""#]
        let (o, c) = outcomes([exchange(0, v1), exchange(1, v1), exchange(2, ["cache-control": "max-age=0", "etag": #"W/"v1""#]), exchange(3, v2), exchange(4, v2)], settings())
        #expect(o == [.fetched, .notModified, .notModified, .fetched, .notModified])
        #expect(c.revalidations == 4 && c.notModified == 3 && c.originFetches == 2 && c.originRequests == 5)
        // Last-Modified when there is no ETag; the size when the new response lacks the validator.
        let lm1 = ["cache-control": "max-age=0", "last-modified": HTTPDate.format(Int(t0) - 50)]
        let lm2 = ["cache-control": "max-age=0", "last-modified": HTTPDate.format(Int(t0) - 40)]
        #expect(outcomes([exchange(0, lm1), exchange(1, lm1), exchange(2, lm2)], settings()).0 == [.fetched, .notModified, .fetched])
        let (os, cs) = outcomes([exchange(0, v1), exchange(1, size: 100, ["cache-control": "max-age=0"]), exchange(2, size: 120, ["cache-control": "max-age=0"])], settings())
        #expect(os == [.fetched, .notModified, .fetched] && cs.validatedBySize == 2)
        // No validator at all: nothing to send, a full fetch each time.
        #expect(outcomes([exchange(0, ["cache-control": "max-age=0"]), exchange(1, ["cache-control": "max-age=0"])], settings()).0 == [.fetched, .fetched])
    }

    @Test func notModifiedUpdatesHeadersOrNot() {
        let stored = ["cache-control": "max-age=10", "etag": "e"]
        let seq = [exchange(0, stored), exchange(20, status: 304, ["cache-control": "max-age=100", "etag": "e"]), exchange(110, stored), exchange(125, stored)]
        // §4.3.4: the 304's max-age=100 replaces 10, fresh again from 20 until 120.
        #expect(outcomes(seq, settings()).0 == [.fetched, .notModified, .fresh, .notModified])
        // NSURLCache as observed: the stored response is not refreshed, so every later use revalidates.
        #expect(outcomes(seq, settings(.apple) { $0.notModifiedUpdate = .ignore }).0 == [.fetched, .notModified, .notModified, .notModified])
    }

    @Test func revalidationStyles() {
        let v1 = ["cache-control": "max-age=0", "etag": "1"], v2 = ["cache-control": "max-age=0", "etag": "2"]
        let seq = [exchange(0, v1), exchange(1, v1), exchange(2, v2)]
        let conditional = outcomes(seq, settings(.apple)).1
        let head = outcomes(seq, settings(.apple) { $0.revalidation = .head }).1
        let refetch = outcomes(seq, settings(.apple) { $0.revalidation = .refetch }).1
        #expect(conditional.originRequests == 3 && head.originRequests == 4 && refetch.originRequests == 3)
        #expect(conditional.notModified == 1 && head.notModified == 1 && refetch.notModified == 0 && refetch.originFetches == 3)
    }

    @Test func staleWhileRevalidateAndStaleIfError() {
        let h = ["cache-control": "max-age=10, stale-while-revalidate=30, stale-if-error=300", "etag": "e"]
        let (o, c) = outcomes([exchange(0, h), exchange(20, h), exchange(25, h), exchange(100, status: 503, ["etag": "x"]), exchange(500, status: 503)], settings())
        // 20: stale within 30 s, served, 304 behind it (fresh again from 20); 25: fresh;
        // 100: stale beyond swr, the origin fails, stale-if-error serves it; 500: beyond 300 s, the error passes.
        #expect(o == [.fetched, .stale, .fresh, .stale, .fetched])
        #expect(c.backgroundRevalidations == 1 && c.staleServed == 2 && c.notModified == 1)
        // Apple documents neither extension.
        #expect(outcomes([exchange(0, h), exchange(20, h)], settings(.apple)).0 == [.fetched, .notModified])
    }

    @Test func unsafeMethodInvalidates() {
        let h = ["cache-control": "max-age=600"]
        let (o, c) = outcomes([exchange(0, h), exchange(1, method: "POST", h), exchange(2, h)], settings())
        #expect(o == [.fetched, .fetched, .fetched] && c.invalidations == 1 && c.notStored == [.method: 1])
    }
}

@Suite(.onTestWorkers) struct HTTPPolicyAndProfileTests {
    /// Each request policy under each profile, on: a response with max-age=10 and an ETag,
    /// asked again at 5 s (fresh) and at 20 s (stale, unchanged).
    @Test func sixPoliciesThreeProfiles() {
        let h = ["cache-control": "max-age=10", "etag": "e"]
        let seq = [exchange(0, h), exchange(5, h), exchange(20, h)]
        let rfcLike: [RequestCachePolicy: [HTTPCacheModel.Outcome]] = [
            .useProtocolCachePolicy: [.fetched, .fresh, .notModified],
            .reloadIgnoringLocalCacheData: [.fetched, .fetched, .fetched],
            .reloadIgnoringLocalAndRemoteCacheData: [.fetched, .fetched, .fetched],
            .returnCacheDataElseLoad: [.fetched, .fresh, .stale],
            .returnCacheDataDontLoad: [.offline, .offline, .offline],  // never loads, so never has anything
            .reloadRevalidatingCacheData: [.fetched, .notModified, .notModified],
        ]
        for policy in RequestCachePolicy.allCases {
            #expect(outcomes(seq, settings(.rfc9111, policy)).0 == rfcLike[policy], "rfc9111 \(policy)")
            #expect(outcomes(seq, settings(.apple, policy)).0 == rfcLike[policy], "apple \(policy)")
            // FoundationNetworking never reads the policy: max-age passed at 20 s, deleted, fetched.
            #expect(outcomes(seq, settings(.corelibs, policy)).0 == [.fetched, .fresh, .fetched], "corelibs \(policy)")
        }
    }

    @Test func returnCacheDataDontLoadServesAnyAgeOrFails() {
        // The first request loads under useProtocol (a session that was online), then offline.
        var model = HTTPCacheModel(settings: settings(.rfc9111), capacity: 1 << 30)
        let first = exchange(0, ["cache-control": "max-age=10, must-revalidate", "etag": "e"])
        let step = model.answer(first, key: first.id, found: false, cost: 100)
        #expect(step.store)
        for (profile, expected) in [(HTTPCacheProfile.rfc9111, HTTPCacheModel.Outcome.offline), (.apple, .stale)] {
            var offline = HTTPCacheModel(settings: settings(profile, .returnCacheDataDontLoad), capacity: 1 << 30)
            offline.adopt(from: model)
            let later = exchange(20, ["etag": "e"])
            #expect(offline.answer(later, key: later.id, found: true, cost: 100).outcome == expected, "\(profile)")
            let other = exchange(21, "https://x.test/b.jpg")
            #expect(offline.answer(other, key: other.id, found: false, cost: 100).outcome == .offline)
        }
    }

    @Test func corelibsKeyIgnoresSchemeAndQuery() {
        let h = ["cache-control": "max-age=600"]
        let seq = [exchange(0, "https://x.test/img?w=100", size: 100, h), exchange(1, "https://x.test/img?w=200", size: 400, h),
                   exchange(2, "http://X.test/img", size: 100, h), exchange(3, "https://x.test:8443/img", size: 100, h)]
        let (collided, counts) = outcomes(seq, settings(.corelibs))
        #expect(collided == [.fetched, .fresh, .fresh, .fetched] && counts.wrongBodyHits == 2)  // a wrong body twice
        #expect(outcomes(seq, settings(.rfc9111)).0 == [.fetched, .fetched, .fetched, .fetched])
        #expect(outcomes(seq, settings(.corelibs) { $0.keyByURL = true }).0 == [.fetched, .fetched, .fetched, .fetched])
        // No host, no key: never stored.
        let (o, c) = outcomes([exchange(0, "data:image/png;base64,AAAA", h), exchange(1, "data:image/png;base64,AAAA", h)], settings(.corelibs))
        #expect(o == [.fetched, .fetched] && c.notStored == [.noKey: 2])
    }

    @Test func corelibsFreshnessRules() {
        // max-age counts from min(Date, stored time): a server clock 100 s behind shortens it.
        let behind = ["cache-control": "max-age=150"]
        #expect(outcomes([exchange(0, behind, date: -100), exchange(49, behind), exchange(51, behind)], settings(.corelibs)).0 == [.fetched, .fresh, .fetched])
        // Age is ignored by corelibs; the RFC counts it.
        let aged = ["cache-control": "max-age=60", "age": "1000", "etag": "e"]
        #expect(outcomes([exchange(0, aged), exchange(30, aged)], settings(.corelibs)).0 == [.fetched, .fresh])
        #expect(outcomes([exchange(0, aged), exchange(30, aged)], settings(.rfc9111)).0 == [.fetched, .notModified])
        // Neither max-age nor Expires: fresh forever (no staleness, no heuristic).
        let bare = ["etag": "e"]
        #expect(outcomes([exchange(0, bare), exchange(1_000_000, bare)], settings(.corelibs)).0 == [.fetched, .fresh])
        // Expires only as RFC 1123; an RFC 850 date fails the test, so it is never stored.
        let rfc850 = ["expires": "Sunday, 06-Nov-44 08:49:37 GMT"]
        let (o, c) = outcomes([exchange(0, rfc850), exchange(1, rfc850)], settings(.corelibs))
        #expect(o == [.fetched, .fetched] && c.notStored == [.expired: 2])
        #expect(outcomes([exchange(0, rfc850), exchange(1, rfc850)], settings(.rfc9111)).0 == [.fetched, .fresh])
        // Authorization refused; status 308 not in its list.
        let h = ["cache-control": "max-age=600"]
        let auth = ["authorization": "Bearer x"]
        #expect(outcomes([exchange(0, h, request: auth), exchange(1, h, request: auth)], settings(.corelibs)).1.notStored == [.authorization: 2])
        #expect(outcomes([exchange(0, h, request: auth), exchange(1, h, request: auth)], settings(.rfc9111)).0 == [.fetched, .fresh])
        #expect(outcomes([exchange(0, status: 308, h), exchange(1, status: 308, h)], settings(.corelibs)).1.notStored == [.status: 2])
        #expect(outcomes([exchange(0, status: 308, h), exchange(1, status: 308, h)], settings(.rfc9111)).0 == [.fetched, .fresh])
    }

    @Test func appleStatusAndSizeRules() {
        let h = ["cache-control": "max-age=600"]
        #expect(outcomes([exchange(0, status: 404, h), exchange(1, status: 404, h)], settings(.apple)).1.notStored == [.status: 2])
        #expect(outcomes([exchange(0, status: 404, h), exchange(1, status: 404, h)], settings(.rfc9111)).0 == [.fetched, .fresh])
        // "about 5% of the disk cache": 60 bytes of a 1000-byte cache is refused, 50 kept.
        #expect(outcomes([exchange(0, size: 60, h), exchange(1, size: 60, h)], settings(.apple), capacity: 1_000).1.notStored == [.sizeRule: 2])
        #expect(outcomes([exchange(0, size: 50, h), exchange(1, size: 50, h)], settings(.apple), capacity: 1_000).0 == [.fetched, .fresh])
        #expect(outcomes([exchange(0, size: 60, h), exchange(1, size: 60, h)], settings(.rfc9111), capacity: 1_000).0 == [.fetched, .fresh])
    }
}

@Suite(.onTestWorkers) struct HTTPReplayTests {
    /// Through the replayer and a real LRU: evictions send requests back to the origin.
    @Test func backendEvictionsMeanFetches() throws {
        let h = ["cache-control": "max-age=600"]
        let requests = (0..<6).map { exchange(Double($0), $0 % 2 == 0 ? "https://x.test/a" : "https://x.test/b", size: 100, h) }
        var options = ReplayOptions()
        options.http = settings()
        let small = try replay(requests, backend: LRUCache(capacity: 150), capacity: 150, options: options)
        #expect(small.hits == 0 && small.http?.originFetches == 6 && small.finalFacts.evictions == 5)
        let large = try replay(requests, backend: LRUCache(capacity: 300), capacity: 300, options: options)
        #expect(large.hits == 4 && large.http?.freshHits == 4 && large.http?.originFetches == 2)
        // A response larger than the cache is fetched and counted too large, never stored.
        let big = try replay([exchange(0, size: 500, h), exchange(1, size: 500, h)], backend: LRUCache(capacity: 300), capacity: 300, options: options)
        #expect(big.hits == 0 && big.tooLarge == 2 && big.http?.notStored == [.tooLarge: 2])
    }

    /// `hit_bytes` and `miss_bytes` in --mode http (docs/columns.md): a request served from the
    /// cache (fresh, or validated by a 304) counts its recorded size as hit bytes; one fetched
    /// from the origin, as missed bytes.
    @Test func hitAndMissBytes() throws {
        let h = ["cache-control": "max-age=60", "etag": #""v1""#]
        // As maxAgeThenRevalidationThen304Refresh: fetched, fresh, 304, fresh, 304; then b fetched.
        let requests = [exchange(0, size: 100, h), exchange(30, size: 100, h), exchange(61, status: 304, size: 100, ["etag": #""v1""#]),
                        exchange(100, size: 100, h), exchange(122, size: 100, h), exchange(123, "https://x.test/b.jpg", size: 70, h)]
        var options = ReplayOptions()
        options.http = settings()
        let tally = try replay(requests, backend: LRUCache(capacity: 1_000), capacity: 1_000, options: options)
        #expect(tally.hits == 4 && tally.http?.notModified == 2 && tally.http?.originFetches == 2)
        #expect(tally.hitBytes == 400 && tally.requestedBytes - tally.hitBytes == 170)
    }

    @Test func bundledSessionThroughTheCLI() throws {
        let folder = TemporaryFolder()
        let run = try bench(["run", "--mode", "http", "--http-profile", "apple", "--backend", "lru,sqlite", "--capacity", "2MB",
                             "--no-timing", "--csv", folder.path + "/o.csv"])
        #expect(run.status == 0, "\(run.err)")
        let rows = try csvRows(folder.path + "/o.csv")
        #expect(rows.count == 2)
        for row in rows {
            #expect(row["mode"] == "http" && row["status"] == "ok")
            #expect(row["http_settings"]?.hasPrefix("profile=apple;request-policy=useProtocolCachePolicy") == true)
            let n = { (name: String) in Int(row[name] ?? "") ?? -1 }
            // No stale-while-revalidate in the session: hits = fresh + stale + 304, misses = fetches + offline.
            #expect(n("background_revalidations") == 0)
            #expect(n("hits") == n("fresh_hits") + n("stale_served") + n("not_modified"))
            #expect(n("misses") == n("origin_fetches") + n("offline_failures"))
            #expect(n("not_stored") > 0 && row["not_stored_reasons"]?.contains("status=") == true)
            // Conditional requests: a 304 or the new body in one round trip.
            #expect(n("origin_requests") == n("origin_fetches") + n("not_modified"))
            #expect(n("revalidations") >= n("not_modified") && n("revalidations") > 0)
        }
        #expect(run.out.contains("Traces/http-session.har.gz: 2000 requests"))
        // corelibs: its key inflates the hits with other URLs' bodies; the CSV says how many.
        let corelibs = try bench(["run", "--mode", "http", "--http-profile", "corelibs", "--backend", "lru", "--capacity", "20MB",
                                  "--no-timing", "--csv", folder.path + "/c.csv"])
        #expect(corelibs.status == 0)
        #expect((Int(try csvRows(folder.path + "/c.csv")[0]["wrong_body_hits"] ?? "") ?? 0) > 0)
        #expect(corelibs.out.contains("served another URL's body"))
    }

    @Test func optionErrorsAreOneLine() throws {
        let cases: [([String], String)] = [
            (["run", "--http-profile", "apple"], "--http-profile applies to --mode http"),
            (["run", "--mode", "bogus"], "--mode must be demand-fill, ops or http"),
            (["run", "--mode", "http", "--http-profile", "ios"], "--http-profile must be one of rfc9111, apple, corelibs"),
            (["run", "--mode", "http", "--request-policy", "sometimes"], "--request-policy must be one of"),
            (["run", "--mode", "http", "--heuristic-fraction", "2"], "--heuristic-fraction must be a number from 0 to 1"),
            (["run", "--mode", "http", "--revalidation", "maybe"], "--revalidation must be conditional, head or refetch"),
            (["run", "--mode", "http", "--on-304", "merge"], "--on-304 must be update or ignore"),
            (["run", "--mode", "http", "--entry-share-limit", "0"], "--entry-share-limit must be a share"),
            (["run", "--mode", "http", "--http-profile", "corelibs", "--revalidation", "head"], "does not apply to --http-profile corelibs"),
            (["run", "--mode", "http", "--http-key", "url"], "--http-key applies to --http-profile corelibs"),
            (["run", "--mode", "http", "--http-profile", "corelibs", "--http-key", "path"], "--http-key must be host-port-path or url"),
            (["run", "--mode", "http", "--max-active-downloads", "-1"], "--max-active-downloads must be a count"),
            (["run", "--mode", "http", "--origin-latency", "soon"], "--origin-latency takes seconds"),
            (["run", "--coalesce"], "--coalesce applies to --mode http"),
            (["run", "--mode", "http", "--warmup", "10"], "--warmup does not apply to --mode http"),
            (["run", "--mode", "http", "--trace", "Traces/default.csv"], "--mode http needs recorded responses"),
        ]
        for (arguments, message) in cases {
            let result = try bench(arguments + ["--backend", "lru", "--no-timing"], in: SourceCheckout.root.path)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.err.contains("bench: error:") && result.err.contains(message), "\(arguments): \(result.err)")
            #expect(result.err.split(separator: "\n").count == 1, "\(arguments): \(result.err)")
        }
    }

    @Test("the bundled HTTP session is what its documented command makes")
    func bundledSession() throws {
        let folder = TemporaryFolder()
        let fresh = folder.path + "/s.har"
        try HTTPSessionGenerator(spec: BundledTrace.httpSpec).write(to: fresh)
        let bundled = SourceCheckout.root.appendingPathComponent(BundledTrace.httpRelativePath).path
        let gunzip = Process()
        gunzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gunzip.arguments = ["gzip", "-dc", bundled]
        let pipe = Pipe()
        gunzip.standardOutput = pipe
        try gunzip.run()
        let unpacked = pipe.fileHandleForReading.readDataToEndOfFile()
        gunzip.waitUntilExit()
        #expect(unpacked == FileManager.default.contents(atPath: fresh))
        // The generator's HAR reads back: request headers included, 304s sized from their URL.
        let trace = try InMemoryTrace.load(try TraceFile(path: fresh), keepKeyNames: true)
        let requests = trace.requests
        #expect(requests.count == 2_000)
        #expect(requests.contains { $0.http?.requestHeaders["authorization"] != nil })
        #expect(requests.filter { $0.http?.status == 304 }.allSatisfy { $0.size > 0 })
        let statuses = Set(requests.compactMap { $0.http?.status })
        #expect(statuses == [200, 304, 404, 503])
    }
}

@Suite(.onTestWorkers) struct CoalescingTests {
    private func run(_ requests: [Request], coalesce: Bool, maxActive: Int = 0, latency: OriginLatency = .fixed(0.1)) throws -> ReplayTally {
        var options = ReplayOptions()
        options.timing = false
        var http = settings()
        var downloads = DownloadSettings()
        downloads.coalesce = coalesce
        downloads.maxActive = maxActive
        downloads.latency = latency
        http.downloads = downloads
        options.http = http
        return try replay(requests, backend: LRUCache(capacity: 1 << 20), capacity: 1 << 20, options: options)
    }

    private let h = ["cache-control": "max-age=600"]

    @Test func aRequestJoinsTheDownloadInFlight() throws {
        // a takes 1 s (the HAR's timing); asked again at 0.5 s (in flight) and 1.5 s (stored at 1 s).
        let seq = [exchange(0, "https://x.test/a", h, totalMs: 1000), exchange(0.5, "https://x.test/a", h, totalMs: 1000),
                   exchange(1.5, "https://x.test/a", h, totalMs: 1000)]
        let joined = try run(seq, coalesce: true)
        #expect(joined.http?.coalescedRequests == 1 && joined.http?.originFetches == 1 && joined.hits == 1 && joined.http?.downloads == 1)
        // Without coalescing the second request starts its own download: the cache has nothing yet.
        let apart = try run(seq, coalesce: false)
        #expect(apart.http?.coalescedRequests == 0 && apart.http?.originFetches == 2 && apart.hits == 1 && apart.http?.downloads == 2)
        // With the model off the response is stored at once: the second request is a fresh hit.
        var options = ReplayOptions()
        options.http = settings()
        let instant = try replay(seq, backend: LRUCache(capacity: 1 << 20), capacity: 1 << 20, options: options)
        #expect(instant.hits == 2)
    }

    @Test func theActiveDownloadLimitQueuesFirstComeFirstServed() throws {
        // Four URLs at 0 s, 1 s each, two slots: a and b start at once, c and d at 1 s.
        let urls = ["a", "b", "c", "d"].map { "https://x.test/\($0)" }
        var seq = urls.map { exchange(0, $0, h, totalMs: 1000) }
        // d is queued until 1 s and in flight until 2 s: a request at 1.5 s joins it.
        seq.append(exchange(1.5, urls[3], h, totalMs: 1000))
        let tally = try run(seq, coalesce: true, maxActive: 2)
        let wait = try #require(tally.http?.queueWait)
        #expect(tally.http?.downloads == 4 && tally.http?.coalescedRequests == 1)
        #expect(wait.max >= 999_000_000 && wait.max <= 1_001_000_000)  // 1 s (three significant digits)
        #expect(wait.p50 <= 1)  // half waited nothing
        // Unlimited: nobody waits, and d is stored at 1 s, so the request at 1.5 s hits.
        let free = try run(seq, coalesce: true, maxActive: 0)
        #expect(free.http?.queueWait?.max ?? 0 <= 1 && free.hits == 1 && free.http?.coalescedRequests == 0)
    }

    @Test func originLatencyWhenTheTraceHasNoTimings() throws {
        let seq = [exchange(0, "https://x.test/a", h), exchange(0.15, "https://x.test/a", h), exchange(0.25, "https://x.test/a", h)]
        // 200 ms downloads: 0.15 s joins, 0.25 s hits.
        let tally = try run(seq, coalesce: true, latency: try OriginLatency(parsing: "200ms"))
        #expect(tally.http?.coalescedRequests == 1 && tally.hits == 1)
        #expect(try OriginLatency(parsing: "lognormal:150ms,0.5") == .lognormal(median: 0.15, sigma: 0.5))
        for bad in ["", "-1", "fast", "lognormal:0,1", "lognormal:1", "2h", "nan"] {
            #expect(throws: WorkbenchError.self) { try OriginLatency(parsing: bad) }
        }
    }
}
