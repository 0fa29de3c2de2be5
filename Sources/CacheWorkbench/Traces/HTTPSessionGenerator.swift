import WorkbenchCore
import WorkbenchMetrics
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A synthetic app session as a HAR 1.2 export (`bench gen --format har`), for the HTTP
/// replay mode: URLs with Zipf popularity, each of a caching class that real servers mix
/// (below), content that changes over time (new ETag and Last-Modified), responses recorded
/// as a browser-like client saw them (a 304 when it revalidated an unchanged resource),
/// Date and Age headers, and timings. Deterministic for a given spec.
///
/// Classes (share of URLs): images with width variants in the query string, `public,
/// max-age=86400` + ETag, some through a CDN that adds Age (30%); fingerprinted static files,
/// `max-age=31536000, immutable` (10%); feeds, `no-cache` + ETag + `Vary: Accept-Encoding`
/// (15%); per-user API, `private, max-age=60` with an Authorization header (10%); sessions,
/// `no-store` (5%); articles with only Last-Modified (heuristic freshness) (10%); legacy
/// files with Expires (5%); prices, `max-age=30, must-revalidate` (5%); images negotiated by
/// `Vary: Accept` (5%); gone pages, 404 with `max-age=60` (5%). About 0.5% of requests meet
/// a 503.
public struct HTTPSessionSpec: Sendable, Equatable {
    public var requests = 20_000
    /// Distinct resources (URLs without their query); nil means requests / 20.
    public var resources: Int?
    public var alpha = 0.9
    public var seed: UInt64 = 1
    /// Mean requests per second of trace time.
    public var rate = 2.0
    /// The first request's time: 2026-01-01T00:00:00Z.
    public var start = 1_767_225_600.0

    public init() {}

    public var resourceCount: Int { max(1, resources ?? requests / 20) }
}

public struct HTTPSessionGenerator {
    public let spec: HTTPSessionSpec

    public init(spec: HTTPSessionSpec) { self.spec = spec }

    enum Kind: CaseIterable {
        case image, immutable, feed, privateAPI, session, article, legacy, price, negotiated, gone

        var share: Double {
            switch self {
            case .image: 0.30
            case .immutable, .privateAPI, .article: 0.10
            case .feed: 0.15
            case .session, .legacy, .price, .negotiated, .gone: 0.05
            }
        }

        /// Mean seconds between content changes.
        var changeEvery: Double {
            switch self {
            case .image, .immutable, .gone: 1e12
            case .feed: 120
            case .privateAPI: 600
            case .session: 60
            case .article: 7_200
            case .legacy: 86_400
            case .price: 90
            case .negotiated: 1e12
            }
        }
    }

    /// Writes the HAR document; the file appears whole or not at all (`OutputFile`).
    public func write(to path: String?) throws {
        let output = try OutputFile(path)
        try output.write(#"{"log":{"version":"1.2","creator":{"name":"CacheWorkbench bench gen","version":"1"},"entries":["# + "\n")
        var random = SeededRandom(seed: spec.seed)
        let zipf = ZipfSampler(count: spec.resourceCount, alpha: spec.alpha)
        var time = spec.start
        var lastVersion: [Int: Int] = [:]  // what the recording client last received, per URL
        for index in 0..<spec.requests {
            time += random.nextExponential(mean: 1 / spec.rate)
            time = (time * 1000).rounded() / 1000  // HAR times are milliseconds
            let rank = zipf.sample(&random)
            if index & 4095 == 0 { try Interruption.check() }  // a safe point every 4096 entries
            let entry = makeEntry(rank: rank, time: time, random: &random, lastVersion: &lastVersion)
            try output.write((index == 0 ? "" : ",\n") + entry)
        }
        try output.write("\n]}}\n")
        try output.commit()
    }

    private func makeEntry(rank: Int, time: Double, random: inout SeededRandom, lastVersion: inout [Int: Int]) -> String {
        // A resource's class and look depend only on (seed, rank).
        var own = SeededRandom(seed: spec.seed &* 0xD1B5_4A32_D192_ED03 ^ UInt64(rank))
        let hash = own.next()
        var pick = own.nextUnit()
        var kind = Kind.gone
        for candidate in Kind.allCases {
            if pick < candidate.share { kind = candidate; break }
            pick -= candidate.share
        }
        let phase = own.nextUnit()
        let baseSize = Self.baseSize(kind, &own)
        let viaCDN = own.nextUnit() < 0.3
        let id = String(hash, radix: 16)
        // Which rendition or encoding this request asks for.
        let widths = [300, 600, 1200]
        let widthIndex = Int(random.next() % 3)
        let width = widths[widthIndex]
        let accept = random.nextUnit() < 0.6 ? "image/avif,image/webp,*/*" : "image/webp,*/*"
        let path: String
        var mime = "image/jpeg"
        var size = baseSize
        switch kind {
        case .image:
            path = "/img/\(id).jpg?w=\(width)"
            size = baseSize * width * width / (600 * 600) + 200
        case .immutable: path = "/static/app.\(id.prefix(10)).js"; mime = "application/javascript"
        case .feed: path = "/api/feed?page=\(rank % 7 + 1)&id=\(id.prefix(6))"; mime = "application/json"
        case .privateAPI: path = "/api/me/\(id.prefix(8))"; mime = "application/json"
        case .session: path = "/api/session/\(id.prefix(8))"; mime = "application/json"
        case .article: path = "/articles/\(id.prefix(12)).html"; mime = "text/html"
        case .legacy: path = "/legacy/\(id.prefix(12)).gif"; mime = "image/gif"
        case .price: path = "/prices/\(id.prefix(8)).json"; mime = "application/json"
        case .negotiated:
            path = "/photos/\(id.prefix(12))"
            mime = accept.hasPrefix("image/avif") ? "image/avif" : "image/webp"
            if mime == "image/avif" { size = baseSize * 7 / 10 }
        case .gone: path = "/pages/\(id.prefix(10))"; mime = "text/html"
        }
        let url = "https://\(kind == .image || kind == .negotiated || kind == .immutable ? "cdn" : "api").example.test\(path)"
        let version = Int(((time - spec.start) / kind.changeEvery + phase).rounded(.down))
        let versionStart = spec.start + (Double(version) - phase) * kind.changeEvery
        if kind != .image && kind != .negotiated { size = max(64, size + (version % 5) * 37) }
        let etag = #""\#(id.prefix(8))-\#(version)\#(kind == .negotiated ? "-" + mime.dropFirst(6) : "")""#
        let wait = 20 + 120 * exp(0.6 * random.nextNormal() - 0.18)
        let receive = Double(size) / 2_000.0  // ~2 MB/s
        let date = HTTPDate.format(Int(time + wait / 1000))
        let lastModified = HTTPDate.format(Int(min(versionStart, time) - 86_400 * (1 + phase * 30)))
        var status = kind == .gone ? 404 : 200
        var headers: [(String, String)] = [("Date", date), ("Content-Type", mime)]
        var requestHeaders: [(String, String)] = [("Accept-Encoding", "gzip, deflate, br")]
        switch kind {
        case .image:
            headers += [("Cache-Control", "public, max-age=86400"), ("ETag", etag)]
            if viaCDN { headers.append(("Age", String(Int(random.nextUnit() * 7_200)))) }
        case .immutable: headers += [("Cache-Control", "public, max-age=31536000, immutable"), ("ETag", etag)]
        case .feed: headers += [("Cache-Control", "no-cache"), ("ETag", etag), ("Vary", "Accept-Encoding")]
        case .privateAPI:
            headers += [("Cache-Control", "private, max-age=60"), ("ETag", etag)]
            requestHeaders.append(("Authorization", "Bearer user-\(spec.seed)"))
        case .session: headers += [("Cache-Control", "no-store")]
        case .article: headers += [("Last-Modified", lastModified)]
        case .legacy: headers += [("Expires", HTTPDate.format(Int(time) + 3_600)), ("Last-Modified", lastModified)]
        case .price: headers += [("Cache-Control", "max-age=30, must-revalidate"), ("ETag", etag)]
        case .negotiated:
            headers += [("Cache-Control", "max-age=3600"), ("ETag", etag), ("Vary", "Accept")]
            requestHeaders.append(("Accept", accept))
        case .gone: headers += [("Cache-Control", "max-age=60")]
        }
        // The recording client revalidated what it had, unchanged, about half the time (304,
        // no body); otherwise it fetched in full. Now and then the origin is down.
        let variantKey = rank &* 4 &+ (kind == .image ? widthIndex : kind == .negotiated && mime == "image/avif" ? 1 : 0)
        var bodySize = size
        if random.nextUnit() < 0.005 {
            status = 503
            headers = [("Date", date), ("Content-Type", "text/html"), ("Retry-After", "5")]
            bodySize = 512
            mime = "text/html"
        } else if status == 200, kind != .session, lastVersion[variantKey] == version, random.nextUnit() < 0.5 {
            status = 304
            bodySize = 0
            headers.removeAll { $0.0 == "Content-Type" }
        }
        if status != 503 { lastVersion[variantKey] = version }
        if status == 200 || status == 404 { headers.append(("Content-Length", String(bodySize))) }
        let total = wait + (status == 304 ? 0 : receive)
        return Self.entry(time: time, total: total, url: url, requestHeaders: requestHeaders, status: status, headers: headers,
                          size: bodySize, mime: mime, wait: wait, receive: status == 304 ? 0 : receive)
    }

    static func baseSize(_ kind: Kind, _ random: inout SeededRandom) -> Int {
        let noise = exp(0.5 * random.nextNormal() - 0.125)
        let median: Double
        switch kind {
        case .image, .negotiated: median = 60_000
        case .immutable: median = 180_000
        case .feed: median = 12_000
        case .privateAPI, .session, .price: median = 1_500
        case .article: median = 40_000
        case .legacy: median = 8_000
        case .gone: median = 3_000
        }
        return max(64, Int(median * noise))
    }

    static func entry(time: Double, total: Double, url: String, requestHeaders: [(String, String)], status: Int,
                      headers: [(String, String)], size: Int, mime: String, wait: Double, receive: Double) -> String {
        func pairs(_ list: [(String, String)]) -> String {
            "[" + list.map { #"{"name":\#(json($0.0)),"value":\#(json($0.1))}"# }.joined(separator: ",") + "]"
        }
        func ms(_ value: Double) -> String { String((value * 1000).rounded() / 1000) }
        let statusText = [200: "OK", 304: "Not Modified", 404: "Not Found", 503: "Service Unavailable"][status] ?? ""
        return #"{"startedDateTime":"\#(isoTime(time))","time":\#(ms(total)),"#
            + #""request":{"method":"GET","url":\#(json(url)),"httpVersion":"HTTP/2","headers":\#(pairs(requestHeaders)),"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},"#
            + #""response":{"status":\#(status),"statusText":"\#(statusText)","httpVersion":"HTTP/2","headers":\#(pairs(headers)),"cookies":[],"#
            + #""content":{"size":\#(size),"mimeType":\#(json(mime))},"redirectURL":"","headersSize":-1,"bodySize":\#(size)},"cache":{},"#
            + #""timings":{"blocked":0,"dns":-1,"connect":-1,"ssl":-1,"send":0,"wait":\#(ms(wait)),"receive":\#(ms(receive))}}"#
    }

    /// `2026-01-01T00:00:01.234Z`.
    static func isoTime(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.down))
        let millis = Int(((seconds - Double(whole)) * 1000).rounded())
        let f = CivilTime.fields(unixSeconds: whole + millis / 1000)
        func pad(_ n: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(n).count)) + String(n) }
        return "\(pad(f.year, 4))-\(pad(f.month, 2))-\(pad(f.day, 2))T\(pad(f.hour, 2)):\(pad(f.minute, 2)):\(pad(f.second, 2)).\(pad(millis % 1000, 3))Z"
    }

    /// A JSON string literal (the generator's text is ASCII; quotes and backslashes escaped).
    static func json(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
