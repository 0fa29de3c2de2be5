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

// Issue 20 ("Trust, second round"), items 3.1–3.5: the HTTP model and the tiers.

/// Trace time 0: 2026-01-01 00:00:00 UTC.
private let t0 = 1_767_225_600.0

/// One HAR entry: a request to `url` at `t0 + at`, its response's header lines as given
/// (repeated names stay repeated) plus a Date stamped at `at`.
private struct Entry {
    var at: Double
    var method = "GET"
    var url = "https://x.test/x"
    var status = 200
    var size: Int?
    var headers: [(String, String)] = []
    var requestHeaders: [(String, String)] = []
}

private func har(_ entries: [Entry]) -> Data {
    let stamp = ISO8601DateFormatter()
    let items: [[String: Any]] = entries.map { e in
        var content: [String: Any] = ["mimeType": "image/jpeg"]
        if let size = e.size { content["size"] = size }
        let lines = [("Date", HTTPDate.format(Int(t0 + e.at)))] + e.headers
        return [
            "startedDateTime": stamp.string(from: Date(timeIntervalSince1970: t0 + e.at)),
            "request": ["method": e.method, "url": e.url, "headers": e.requestHeaders.map { ["name": $0.0, "value": $0.1] }],
            "response": ["status": e.status, "headers": lines.map { ["name": $0.0, "value": $0.1] }, "content": content],
        ]
    }
    return try! JSONSerialization.data(withJSONObject: ["log": ["entries": items]])
}

private func parse(_ entries: [Entry], skipBad: Bool = false) throws -> (requests: [Request], skipped: Int) {
    try HARTraceReader.parse(har(entries), path: "t.har", filter: HARFilter([:]), keepKeyNames: true, skipBad: skipBad)
}

/// The HTTP replay of `requests` under `profile` against an LRU of `capacity`.
private func replayHTTP(_ requests: [Request], _ profile: HTTPCacheProfile = .rfc9111, capacity: Int = 1 << 20) throws -> ReplayTally {
    var options = ReplayOptions()
    options.timing = false
    options.http = HTTPReplaySettings(profile: profile)
    return try replay(requests, backend: LRUCache(capacity: capacity), capacity: capacity, options: options)
}

/// `bench ARGS` with a deadline, so a hang fails the test instead of stalling the suite.
private func boundedBench(_ arguments: [String], seconds: Int = 60) throws -> (status: Int32, out: String, err: String) {
    try runBounded(seconds, try builtBench, arguments)
}

/// `tier:lru+files` with 1,024 bytes of memory over 5,000 bytes of disk, in `folder`.
private func smallTier(in folder: TemporaryFolder, options: [String: String] = [:]) throws -> any CacheBackend {
    let config = BackendConfig(capacityBytes: 1024, options: options.merging(["disk-capacity": "5000"]) { $1 },
                               disk: DiskContext(directory: folder.path, probe: DiskIOProbe(), verify: true))
    return try BackendRegistry.named("tier:lru+files").make(config)
}

@Suite("Trust, second round: the HTTP model and the tiers", .onTestWorkers)
struct Trust2HTTPTests {
    // MARK: 3.1 repeated header lines

    @Test("20 §3.1: Cache-Control on two lines combines (no-store wins): 0 fresh hits, as on one line")
    func repeatedCacheControlLines() throws {
        let split = (0..<3).map { Entry(at: Double($0), size: 1000, headers: [("Cache-Control", "no-store"), ("cache-control", "max-age=3600")]) }
        let oneLine = (0..<3).map { Entry(at: Double($0), size: 1000, headers: [("Cache-Control", "no-store, max-age=3600")]) }
        let requests = try parse(split).requests
        #expect(requests[0].http?.cacheControl == "no-store, max-age=3600")
        for trace in [requests, try parse(oneLine).requests] {
            let tally = try replayHTTP(trace)
            // Each of the 3 responses is fetched and refused; none is served from the cache.
            #expect(tally.hits == 0 && tally.http?.freshHits == 0 && tally.http?.originFetches == 3)
            #expect(tally.http?.notStoredText == "no-store=3")
        }
    }

    @Test("20 §3.1: Vary on two lines selects both headers; request lines combine too")
    func repeatedVaryLines() throws {
        let vary: [(String, String)] = [("Cache-Control", "max-age=3600"), ("Vary", "Accept-Encoding"), ("Vary", "Accept-Language")]
        let entries = [
            Entry(at: 0, size: 1000, headers: vary, requestHeaders: [("Accept-Encoding", "gzip"), ("Accept-Language", "en")]),
            // Same language, another encoding: a different variant (the last Vary line alone would say a hit).
            Entry(at: 1, size: 1000, headers: vary, requestHeaders: [("Accept-Encoding", "br"), ("Accept-Language", "en")]),
            Entry(at: 2, size: 1000, headers: vary, requestHeaders: [("Accept-Encoding", "br"), ("accept-encoding", "gzip"), ("Accept-Language", "en")]),
        ]
        let requests = try parse(entries).requests
        #expect(requests[0].http?.vary == "Accept-Encoding, Accept-Language")
        #expect(requests[2].http?.requestHeaders["accept-encoding"] == "br, gzip")
        let tally = try replayHTTP(requests)
        #expect(tally.hits == 0 && tally.http?.varyMismatches == 2 && tally.http?.originFetches == 3)
    }

    @Test("20 §3.1: singleton fields: same value twice is one; Age keeps the first; Expires twice is stale; Content-Length twice differing fails the entry")
    func repeatedSingletonFields() throws {
        // Age 10 then 500 with max-age=100: the first (10) counts (RFC 9111 §5.1), so 5 s later it is fresh.
        let age = [Entry(at: 0, size: 1000, headers: [("Cache-Control", "max-age=100"), ("Age", "10"), ("Age", "500"), ("ETag", "\"a\"")]),
                   Entry(at: 5, size: 1000, headers: [("ETag", "\"a\"")])]
        let ageTally = try replayHTTP(try parse(age).requests)
        #expect(ageTally.http?.freshHits == 1 && ageTally.http?.notModified == 0)
        #expect(ageTally.http?.singletonConflicts == 1)
        // Two different Expires, both ahead: stale (RFC 9111 §4.2.1), so the next use revalidates.
        let later = HTTPDate.format(Int(t0) + 3600), latest = HTTPDate.format(Int(t0) + 7200)
        let expires = [Entry(at: 0, size: 1000, headers: [("Expires", later), ("Expires", latest), ("ETag", "\"e\"")]),
                       Entry(at: 1, size: 1000, headers: [("Expires", later), ("ETag", "\"e\"")])]
        let expiresTally = try replayHTTP(try parse(expires).requests)
        #expect(expiresTally.http?.freshHits == 0 && expiresTally.http?.notModified == 1 && expiresTally.hits == 1)
        // The same Expires twice is that date: fresh.
        let same = [Entry(at: 0, size: 1000, headers: [("Expires", later), ("Expires", later)]), Entry(at: 1, size: 1000)]
        let sameTally = try replayHTTP(try parse(same).requests)
        #expect(sameTally.http?.freshHits == 1 && sameTally.http?.singletonConflicts == 0)
        // Differing Content-Lengths make the message invalid (RFC 9110 §8.6): a reason, or a skip.
        let lengths = [Entry(at: 0, headers: [("Content-Length", "100"), ("Content-Length", "200")]),
                       Entry(at: 1, headers: [("Content-Length", "100"), ("Content-Length", "100")])]
        #expect {
            try parse(lengths)
        } throws: { error in
            (error as? TraceError)?.reason.hasPrefix("entry 1: Content-Length is given twice with different values") == true
        }
        let skipping = try parse(lengths, skipBad: true)
        #expect(skipping.skipped == 1 && skipping.requests.map(\.size) == [100])
    }

    // MARK: 3.2 Cache-Control length

    @Test("20 §3.2: a no-store after 8 KB of Cache-Control extensions is read; a date padded past 64 bytes is no date")
    func longCacheControl() throws {
        let extensions = (0..<800).map { "x-ext-\($0)=1" }.joined(separator: ", ")
        #expect(extensions.utf8.count > 8_192)
        let value = extensions + ", no-store"
        #expect(CacheControl(parsing: value).noStore)
        let entries = (0..<2).map { Entry(at: Double($0), size: 1000, headers: [("Cache-Control", "max-age=3600, " + value)]) }
        let tally = try replayHTTP(try parse(entries).requests)
        #expect(tally.hits == 0 && tally.http?.notStoredText == "no-store=2")
        // A valid date followed by padding and junk is not a date (it once read as the date).
        let padded = "Sun, 06 Nov 1994 08:49:37 GMT" + String(repeating: " ", count: 40) + "junk"
        #expect(HTTPDate.seconds(padded) == nil)
        #expect(HTTPDate.seconds("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
    }

    // MARK: 3.3 HEAD

    @Test("20 §3.3: a HEAD never supplies a stored body: HEAD then GET is a miss (rfc9111, apple, corelibs)")
    func headStoresNoBody() throws {
        let h: [(String, String)] = [("Cache-Control", "max-age=3600"), ("Content-Length", "50000")]
        let entries = [Entry(at: 0, method: "HEAD", headers: h), Entry(at: 1, size: 50000, headers: h),
                       Entry(at: 2, method: "HEAD", headers: h), Entry(at: 3, size: 50000, headers: h)]
        let requests = try parse(entries).requests
        #expect(requests.map(\.size) == [0, 50000, 0, 50000])  // a HEAD has no content
        for profile in [HTTPCacheProfile.rfc9111, .apple] {
            let tally = try replayHTTP(requests, profile)
            // HEAD: fetched, not stored; GET: fetched, stored; HEAD: answered by the stored GET
            // (0 bytes); GET: fresh. Bytes: 50,000 of 100,000 requested were hits.
            #expect(tally.requests == 4 && tally.hits == 2 && tally.http?.freshHits == 2, "\(profile)")
            #expect(tally.hitBytes == 50000 && tally.requestedBytes == 100_000, "\(profile)")
            #expect(tally.http?.notStoredText == "head=1" && tally.http?.originBytes == 50000, "\(profile)")
        }
        // corelibs: its reuse test takes GET only, so a HEAD is never stored and deletes the GET's entry.
        let corelibs = try replayHTTP(requests, .corelibs)
        #expect(corelibs.hits == 0 && corelibs.hitBytes == 0 && corelibs.http?.notStoredText == "method=2")
        // HEAD then GET alone, as the issue reports it: no hit, byte hit 0.
        let pair = try replayHTTP(Array(requests.prefix(2)))
        #expect(pair.hits == 0 && pair.byteHitRatio == 0)
    }

    @Test("20 §3.3: a HEAD revalidation refreshes the stored GET (RFC 9111 §4.3.5); a changed HEAD invalidates it")
    func headRevalidation() throws {
        let a: [(String, String)] = [("Cache-Control", "max-age=10"), ("ETag", "\"a\""), ("Content-Length", "50000")]
        let b: [(String, String)] = [("Cache-Control", "max-age=10"), ("ETag", "\"b\""), ("Content-Length", "50000")]
        let entries = [Entry(at: 0, size: 50000, headers: a), Entry(at: 20, method: "HEAD", headers: a), Entry(at: 25, size: 50000, headers: a),
                       Entry(at: 40, method: "HEAD", headers: b), Entry(at: 41, size: 50000, headers: b)]
        let tally = try replayHTTP(try parse(entries).requests)
        // GET: fetched; HEAD at 20: stale, its ETag matches: 304-like, refreshed (fresh until 30);
        // GET at 25: fresh; HEAD at 40: stale, another ETag: the stored GET goes; GET at 41: fetched.
        #expect(tally.hits == 2 && tally.http?.notModified == 1 && tally.http?.freshHits == 1 && tally.http?.originFetches == 3)
        #expect(tally.hitBytes == 50000 && tally.http?.notStoredText == "head=1")
        // A HEAD without the stored validator cannot be compared by size (it has no body).
        let bare: [(String, String)] = [("Cache-Control", "max-age=10"), ("Content-Length", "50000")]
        let noValidator = try replayHTTP(try parse([Entry(at: 0, size: 50000, headers: a), Entry(at: 20, method: "HEAD", headers: bare),
                                                    Entry(at: 21, size: 50000, headers: a)]).requests)
        #expect(noValidator.hits == 0 && noValidator.http?.validatedBySize == 0 && noValidator.http?.originFetches == 3)
    }

    // MARK: 3.4 partial content

    @Test("20 §3.4: a 206 never serves a later full GET (rfc9111, apple); corelibs stores it and counts the partial hits")
    func partialContent() throws {
        let h: [(String, String)] = [("Cache-Control", "max-age=3600")]
        let entries = [Entry(at: 0, status: 206, size: 1000, headers: h + [("Content-Range", "bytes 0-999/50000")], requestHeaders: [("Range", "bytes=0-999")]),
                       Entry(at: 1, size: 50000, headers: h),
                       Entry(at: 2, status: 206, size: 1000, headers: h, requestHeaders: [("Range", "bytes=0-999")]),
                       Entry(at: 3, size: 50000, headers: h)]
        let requests = try parse(entries).requests
        for profile in [HTTPCacheProfile.rfc9111, .apple] {
            let tally = try replayHTTP(requests, profile)
            // 206: fetched, not stored; GET: fetched, stored; Range: to the origin, the stored
            // 200 left alone; GET: fresh from the stored 200.
            #expect(tally.hits == 1 && tally.http?.freshHits == 1 && tally.http?.originFetches == 3, "\(profile)")
            #expect(tally.http?.notStoredText == "partial=2" && tally.http?.rangeRequests == 2, "\(profile)")
            #expect(tally.hitBytes == 50000, "\(profile)")
        }
        // The case: 206 then GET is a miss.
        #expect(try replayHTTP(Array(requests.prefix(2))).hits == 0)
        // corelibs: 206 is a status it stores and it never reads Range, so the fresh stored 206
        // answers the GET at 1, the Range request at 2 and the GET at 3; the two GETs got a
        // partial body as the whole.
        let corelibs = try replayHTTP(requests, .corelibs)
        #expect(corelibs.hits == 3 && corelibs.http?.partialBodyHits == 2)
    }

    // MARK: 3.5 the tiers' too-large rule

    @Test("20 §3.5: too large for memory goes to disk only (memory_refused); too large for both is too_large")
    func tierTooLargeIsPerTier() throws {
        let folder = TemporaryFolder()
        let cache = try smallTier(in: folder)
        let keys = [("a", 2000), ("b", 2000), ("c", 6000), ("a", 2000), ("b", 2000), ("c", 6000)]
        let requests = keys.enumerated().map { Request(time: Double($0.offset), key: $0.element.0, size: $0.element.1) }
        let tally = try replayUntimed(requests, backend: cache, capacity: 1024)
        try cache.close()
        // a, b: misses stored on disk only (2 refusals); c: too large for both, twice; a, b again:
        // disk hits whose promotion memory refuses (2 more).
        #expect(tally.hits == 2 && tally.tooLarge == 2)
        let tiers = try #require(tally.tiers)
        #expect(tiers.diskHits == 2 && tiers.memoryHits == 0 && tiers.memoryRefused == 4 && tiers.diskWrites == 2 && tiers.promotions == 0)
    }

    @Test("20 §3.5: in --mode http a tier stores a response too large for memory on disk, and serves it fresh")
    func tierTooLargeInHTTPMode() throws {
        let folder = TemporaryFolder()
        // The whole tier under the RFC (issue 21 §6: memory-rules=http;disk-rules=http), as this test was written.
        let cache = try smallTier(in: folder, options: ["memory-rules": "http", "disk-rules": "http"])
        let h: [(String, String)] = [("Cache-Control", "max-age=3600")]
        let entries = [Entry(at: 0, url: "https://x.test/a", size: 2000, headers: h), Entry(at: 1, url: "https://x.test/a", size: 2000, headers: h),
                       Entry(at: 2, url: "https://x.test/c", size: 6000, headers: h), Entry(at: 3, url: "https://x.test/c", size: 6000, headers: h)]
        var options = ReplayOptions()
        options.timing = false
        options.http = HTTPReplaySettings(profile: .rfc9111)
        let tally = try replay(try parse(entries).requests, backend: cache, capacity: 1024, options: options)
        try cache.close()
        #expect(tally.hits == 1 && tally.http?.freshHits == 1 && tally.tooLarge == 2)
        #expect(tally.http?.notStoredText == "too-large=2" && tally.tiers?.diskHits == 1 && tally.tiers?.memoryRefused == 2)
        // Its default (files: no layer reads headers): a on disk, served as a library hit; c too large for both, twice.
        let other = TemporaryFolder()
        let library = try smallTier(in: other)
        let demand = try replay(try parse(entries).requests, backend: library, capacity: 1024, options: options)
        try library.close()
        #expect(demand.hits == 1 && demand.http?.libraryHits == 1 && demand.http?.freshHits == 0 && demand.tooLarge == 2)
        #expect(demand.http?.notStoredText == "too-large=2" && demand.tiers?.diskHits == 1 && demand.tiers?.memoryRefused == 2)
    }

    @Test("20 §3.5: the issue's command: tier:lru+files[disk-capacity=100MiB] at 1KiB keeps 2,000-byte objects on disk")
    func tierTooLargeThroughTheCLI() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", "time,key,size\n" + (0..<10).map { "\($0),k\($0 % 5),2000" }.joined(separator: "\n") + "\n")
        let csv = folder.path + "/o.csv"
        let run = try boundedBench(["run", "--trace", trace, "--backend", "tier:lru+files[disk-capacity=100MiB]", "--capacity", "1KiB",
                                    "--no-timing", "--csv", csv])
        #expect(run.status == 0, "\(run.err)")
        let row = try #require(try csvRows(csv).first)
        // 5 misses stored on disk, then 5 disk hits; every store and promotion refused by memory.
        #expect(row["hits"] == "5" && row["too_large"] == "0" && row["disk_hits"] == "5" && row["memory_refused"] == "10")
    }
}
