// libFuzzer entry for the HTTP mode's parsers and decisions (scripts/fuzz http). An even
// first byte: the rest is one header value, read as an HTTP date (both ways), as
// Cache-Control, and as every caching header of a stored response whose age and lifetime
// must stay finite and non-negative; its lines, as header field lines, must combine with
// none lost. An odd first byte: the rest is a HAR document; its
// requests are answered under each profile with the request policy the byte picks, and the
// counts must add up. An error is a correct answer; a crash or a broken sum is a finding.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let rest = Data(bytes: data + 1, count: size - 1)
    if data[0] % 2 == 0 {
        let text = String(decoding: rest, as: UTF8.self)
        for imfOnly in [false, true] {
            if let seconds = HTTPDate.seconds(text, imfOnly: imfOnly) {
                precondition(HTTPDate.seconds(HTTPDate.format(seconds)) == seconds, "date round trip")
            }
        }
        let control = CacheControl(parsing: text)
        for value in [control.maxAge, control.sharedMaxAge, control.staleWhileRevalidate, control.staleIfError, control.minFresh].compactMap({ $0 }) {
            precondition(value >= 0 && value <= 2_147_483_648, "delta-seconds out of range")
        }
        // A bare max-stale is any staleness (Int.max); a value is delta-seconds.
        precondition(control.maxStale.map { $0 == Int.max || ($0 >= 0 && $0 <= 2_147_483_648) } ?? true, "max-stale out of range")
        let headers = ["cache-control": text, "expires": text, "date": text, "age": text, "etag": text, "last-modified": text, "vary": text]
        let http = HTTPMetadata(method: "GET", status: 200, mimeType: nil, headers: headers, requestHeaders: [text.lowercased(): text])
        let entry = StoredResponse(http, size: 1, requestTime: 1e9, responseTime: 1e9 + 1)
        let lifetime = entry.freshnessLifetime(heuristicFraction: 0.1).seconds
        let age = entry.currentAge(now: 1e9 + 100)
        precondition(lifetime.isFinite && lifetime >= 0 && age.isFinite && age >= 0, "age or lifetime out of range")
        _ = entry.corelibsFresh(now: 1e9 + 100)
        _ = entry.varyMatches(http)
        // The text's lines as header field lines: a list field keeps every line, in order.
        let lines = text.split(separator: "\n").map { line in
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            return (name: String(parts[0]), value: parts.count > 1 ? String(parts[1]) : "")
        }
        if let fields = try? HeaderFieldLines(response: lines) {
            for name in Set(lines.map { $0.name.lowercased() }) where !HeaderFieldLines.singletons.contains(name) {
                let values = lines.filter { $0.name.lowercased() == name }.map(\.value)
                precondition(fields.values[name] == values.joined(separator: ", "), "a list field lost a line")
            }
        }
        return 0
    }
    guard let (requests, _) = try? HARTraceReader.parse(rest, path: "fuzz.har", filter: try! HARFilter([:]), keepKeyNames: true, skipBad: true) else { return 0 }
    let policy = RequestCachePolicy.allCases[Int(data[0] / 2) % RequestCachePolicy.allCases.count]
    for profile in HTTPCacheProfile.allCases {
        var settings = HTTPReplaySettings(profile: profile)
        settings.policy = policy
        settings.revalidation = RevalidationStyle.allCases[Int(data[0] / 12) % 3]
        var model = HTTPCacheModel(settings: settings, capacity: 1 << 20)
        var present = Set<UInt64>()
        var served = 0
        for request in requests {
            guard let keyed = model.cacheRequest(request) else { _ = model.answerWithoutKey(request); continue }
            let lookedUp = model.looksUp(request)
            let step = model.answer(request, key: keyed.id, found: lookedUp && present.contains(keyed.id), cost: request.size)
            if step.remove { present.remove(keyed.id) }
            if step.store { present.insert(keyed.id) }
            if step.outcome.servedFromCache { served += 1 }
        }
        let c = model.counts
        // A stale-while-revalidate answer's background 304 is in notModified too.
        let fromCache = c.freshHits + c.staleServed + c.notModified
        precondition(served <= fromCache && served >= fromCache - c.backgroundRevalidations, "served count")
        precondition(served + c.originFetches + c.offlineFailures >= requests.count, "an unanswered request")
        precondition(c.onlyIfCachedFailures <= c.offlineFailures && c.requestDirectives <= requests.count, "request directive counts")
        precondition(c.notModified <= c.revalidations && c.originRequests >= c.originFetches - c.revalidations, "round trips")
    }
    return 0
}
