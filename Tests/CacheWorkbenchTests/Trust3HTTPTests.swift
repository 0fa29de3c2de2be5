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

// Issue 41 ("Trust, third round"), items 1.1, 2.1, 2.2 and two messages of 6: the request's
// own Cache-Control, bounded header lines, http-check's input, `_run` and `--har-view repeat`.

/// Trace time 0: 2026-01-01 00:00:00 UTC.
private let t0 = 1_767_225_600.0

/// One HAR exchange at `t0 + at`: request header lines as given, a response with a Date
/// stamped at `at`, `max-age=3600` and an ETag unless `response` says otherwise.
private struct Exchange {
    var at: Double
    var request: [(String, String)] = []
    var response: [(String, String)] = [("Cache-Control", "max-age=3600"), ("ETag", "\"v1\"")]
}

private func harText(_ exchanges: [Exchange], url: String = "https://x.test/a.jpg") -> String {
    let stamp = ISO8601DateFormatter()
    let entries: [[String: Any]] = exchanges.map { e in
        let response = [("Date", HTTPDate.format(Int(t0 + e.at)))] + e.response
        return [
            "startedDateTime": stamp.string(from: Date(timeIntervalSince1970: t0 + e.at)),
            "request": ["method": "GET", "url": url, "headers": e.request.map { ["name": $0.0, "value": $0.1] }],
            "response": ["status": 200, "headers": response.map { ["name": $0.0, "value": $0.1] }, "content": ["size": 1000, "mimeType": "image/jpeg"]],
        ]
    }
    let data = try! JSONSerialization.data(withJSONObject: ["log": ["entries": entries]])
    return String(decoding: data, as: UTF8.self)
}

private func requests(_ exchanges: [Exchange]) throws -> [Request] {
    try HARTraceReader.parse(Data(harText(exchanges).utf8), path: "t.har", filter: HARFilter([:]), keepKeyNames: true, skipBad: false).0
}

/// The HTTP replay's counts of `exchanges` under `profile` (LRU, 1 MiB).
private func counts(_ exchanges: [Exchange], _ profile: HTTPCacheProfile = .rfc9111, policy: RequestCachePolicy = .useProtocolCachePolicy) throws -> HTTPCounts {
    var options = ReplayOptions()
    options.timing = false
    options.http = HTTPReplaySettings(profile: profile)
    options.http?.policy = policy
    let tally = try replay(try requests(exchanges), backend: LRUCache(capacity: 1 << 20), capacity: 1 << 20, options: options)
    return try #require(tally.http)
}

/// Three GETs of one URL, 10 s apart, each sending `directive`.
private func threeAsking(_ directive: String) -> [Exchange] {
    (0..<3).map { Exchange(at: Double($0 * 10), request: [("Cache-Control", directive)]) }
}

@Suite("Trust3HTTP: the request's own Cache-Control (issue 41, 1.1)", .onTestWorkers)
struct Trust3HTTPRequestDirectiveTests {
    @Test("41 §1.1: request no-store: nothing stored, 3 fetches, 0 fresh hits (rfc9111, apple); corelibs ignores it")
    func requestNoStore() throws {
        for profile in [HTTPCacheProfile.rfc9111, .apple] {
            let h = try counts(threeAsking("no-store"), profile)
            #expect(h.freshHits == 0 && h.originFetches == 3 && h.notModified == 0, "\(profile)")
            #expect(h.notStoredText == "request-no-store=3" && h.requestDirectives == 3, "\(profile): \(h.notStoredText)")
        }
        // FoundationNetworking's reuse test reads only the response: the 2nd and 3rd are fresh hits.
        let corelibs = try counts(threeAsking("no-store"), .corelibs)
        #expect(corelibs.freshHits == 2 && corelibs.originFetches == 1 && corelibs.requestDirectives == 3)
    }

    @Test("41 §1.1: request no-cache: stored, each reuse revalidated (2 × 304), never a fresh hit")
    func requestNoCache() throws {
        for profile in [HTTPCacheProfile.rfc9111, .apple] {
            let h = try counts(threeAsking("no-cache"), profile)
            #expect(h.freshHits == 0 && h.revalidations == 2 && h.notModified == 2 && h.originFetches == 1, "\(profile)")
        }
        // A browser's "Disable cache": no-cache and Pragma: no-cache on every request.
        let disabled = (0..<3).map { Exchange(at: Double($0 * 10), request: [("Pragma", "no-cache"), ("Cache-Control", "no-cache")]) }
        let h = try counts(disabled)
        #expect(h.freshHits == 0 && h.notModified == 2)
        // Under returnCacheDataElseLoad, rfc9111 still validates (as for a response's no-cache).
        let elseLoad = try counts(threeAsking("no-cache"), policy: .returnCacheDataElseLoad)
        #expect(elseLoad.freshHits == 0 && elseLoad.staleServed == 0 && elseLoad.notModified == 2)
    }

    @Test("41 §1.1: request max-age: at 100 s (≤ 150) fresh, at 200 s (> 150) revalidated; max-age=0 always revalidated")
    func requestMaxAge() throws {
        let exchanges = [Exchange(at: 0), Exchange(at: 100, request: [("Cache-Control", "max-age=150")]), Exchange(at: 200, request: [("Cache-Control", "max-age=150")])]
        let h = try counts(exchanges)
        #expect(h.freshHits == 1 && h.revalidations == 1 && h.notModified == 1 && h.originFetches == 1)
        let zero = try counts(threeAsking("max-age=0"))
        #expect(zero.freshHits == 0 && zero.notModified == 2)
    }

    @Test("41 §1.1: min-fresh: lifetime 100 s, at 50 s 50 s left < 60 → revalidated; min-fresh=40 → fresh")
    func requestMinFresh() throws {
        let response = [("Cache-Control", "max-age=100"), ("ETag", "\"v1\"")]
        let strict = try counts([Exchange(at: 0, response: response), Exchange(at: 50, request: [("Cache-Control", "min-fresh=60")], response: response)])
        #expect(strict.freshHits == 0 && strict.notModified == 1)
        let loose = try counts([Exchange(at: 0, response: response), Exchange(at: 50, request: [("Cache-Control", "min-fresh=40")], response: response)])
        #expect(loose.freshHits == 1 && loose.notModified == 0)
    }

    @Test("41 §1.1: max-stale=15 on a 10 s lifetime: 10 s stale served, 30 s stale revalidated; must-revalidate forbids it")
    func requestMaxStale() throws {
        let response = [("Cache-Control", "max-age=10"), ("ETag", "\"v1\"")]
        let asking = [("Cache-Control", "max-stale=15")]
        let h = try counts([Exchange(at: 0, response: response), Exchange(at: 20, request: asking, response: response), Exchange(at: 40, request: asking, response: response)])
        #expect(h.staleServed == 1 && h.freshHits == 0 && h.notModified == 1)
        let strict = [("Cache-Control", "max-age=10, must-revalidate"), ("ETag", "\"v1\"")]
        let refused = try counts([Exchange(at: 0, response: strict), Exchange(at: 20, request: asking, response: strict)])
        #expect(refused.staleServed == 0 && refused.notModified == 1)
        // A bare max-stale takes any staleness.
        let any = try counts([Exchange(at: 0, response: response), Exchange(at: 5000, request: [("Cache-Control", "max-stale")], response: response)])
        #expect(any.staleServed == 1 && any.revalidations == 0)
    }

    @Test("41 §1.1: only-if-cached: an empty cache is a 504 (offline failure) each time; a fresh stored response answers it, a stale one is a 504")
    func requestOnlyIfCached() throws {
        let h = try counts(threeAsking("only-if-cached"))
        #expect(h.offlineFailures == 3 && h.onlyIfCachedFailures == 3 && h.originFetches == 0 && h.originRequests == 0)
        let response = [("Cache-Control", "max-age=100"), ("ETag", "\"v1\"")]
        let asking = [("Cache-Control", "only-if-cached")]
        let mixed = try counts([Exchange(at: 0, response: response), Exchange(at: 50, request: asking, response: response), Exchange(at: 500, request: asking, response: response)])
        #expect(mixed.originFetches == 1 && mixed.freshHits == 1 && mixed.offlineFailures == 1 && mixed.onlyIfCachedFailures == 1 && mixed.revalidations == 0)
    }

    @Test("41 §1.1: bench run --mode http on a \"Disable cache\" HAR: fresh_hits 0, not_modified 2, and a note saying what was honoured")
    func disableCacheHARThroughTheCLI() throws {
        let folder = TemporaryFolder()
        let path = folder.file("disabled.har", harText((0..<3).map { Exchange(at: Double($0 * 10), request: [("Cache-Control", "no-cache"), ("Pragma", "no-cache")]) }))
        for profile in ["rfc9111", "apple"] {
            let csv = folder.path + "/\(profile).csv"
            let result = try bench(["run", "--trace", path, "--mode", "http", "--http-profile", profile, "--backend", "lru", "--capacity", "1MiB", "--no-timing", "--csv", csv])
            #expect(result.status == 0, "\(result.err)")
            let row = try #require(try csvRows(csv).first)
            #expect(row["fresh_hits"] == "0" && row["not_modified"] == "2" && row["hits"] == "2", "\(profile): \(row)")
            #expect(result.out.contains("3 requests carried their own Cache-Control directives"), "\(result.out)")
        }
        let nostore = folder.file("nostore.har", harText(threeAsking("no-store")))
        let csv = folder.path + "/nostore.csv"
        let result = try bench(["run", "--trace", nostore, "--mode", "http", "--backend", "lru", "--capacity", "1MiB", "--no-timing", "--csv", csv])
        let row = try #require(try csvRows(csv).first)
        #expect(result.status == 0 && row["fresh_hits"] == "0" && row["hits"] == "0" && row["not_stored_reasons"] == "request-no-store=3", "\(row)")
    }

    @Test("41 §1.1: bench stats says most requests send their own Cache-Control, and which (hand count: 3 of 4)")
    func statsSaysWhichDirectives() throws {
        let folder = TemporaryFolder()
        // 1: no-cache + Pragma; 2: no-cache + Pragma; 3: max-age=0; 4: nothing.
        let most = folder.file("most.har", harText([
            Exchange(at: 0, request: [("Cache-Control", "no-cache"), ("Pragma", "no-cache")]),
            Exchange(at: 1, request: [("Cache-Control", "no-cache"), ("Pragma", "no-cache")]),
            Exchange(at: 2, request: [("Cache-Control", "max-age=0")]),
            Exchange(at: 3),
        ]))
        let result = try bench(["stats", most])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("request directives  most requests send their own Cache-Control (3 of 4, 75.00%): no-cache 2, max-age 1; Pragma: no-cache 2 (HTTP/1.0's, which RFC 9111 §5.4 deprecates: no profile reads it); as a browser's \"Disable cache\" sends no-cache on every request"), "\(result.out)")
        let few = folder.file("few.har", harText([Exchange(at: 0, request: [("Cache-Control", "only-if-cached")]), Exchange(at: 1), Exchange(at: 2), Exchange(at: 3)]))
        let fewResult = try bench(["stats", few])
        #expect(fewResult.out.contains("request directives  1 of 4 requests send their own Cache-Control: only-if-cached 1; --mode http honours"), "\(fewResult.out)")
        let none = folder.file("none.har", harText([Exchange(at: 0), Exchange(at: 1)]))
        #expect(try !bench(["stats", none]).out.contains("request directives"))
    }
}

@Suite("Trust3HTTP: bounded header lines, http-check's input, _run, --har-view repeat (issue 41, 2.1, 2.2, 6)", .onTestWorkers)
struct Trust3HTTPInputTests {
    /// One entry whose response repeats `Cache-Control: max-age=60` `lines` times (after its Date line).
    private func manyLines(_ lines: Int, name: String = "Cache-Control", value: String = "max-age=60") -> [Exchange] {
        [Exchange(at: 0, response: Array(repeating: (name, value), count: lines))]
    }

    @Test("41 §2.2: 99,999 Cache-Control lines combine into one list in linear time (100,000 took 40 s); Vary lines too")
    func repeatedLinesAreLinear() throws {
        // This thread's CPU time, not the wall clock: the bound is on the work (quadratic or
        // linear), which other tests running beside it on the same cores do not change.
        let start = threadCPUSeconds()
        let parsed = try requests(manyLines(99_999))
        let vary = try requests(manyLines(99_999, name: "Vary", value: "Accept"))
        let seconds = threadCPUSeconds() - start
        let control = try #require(parsed.first?.http?.cacheControl)
        // 99,999 × "max-age=60" (10 bytes) joined by 99,998 ", " (2 bytes).
        #expect(control.utf8.count == 99_999 * 10 + 99_998 * 2)
        #expect(vary.first?.http?.vary?.utf8.count == 99_999 * 6 + 99_998 * 2)
        // Quadratic joining took 40 s for one such entry in a release build; linear is well under a second.
        #expect(seconds < 20, "\(seconds) s")
    }

    @Test("41 §2.2: 100,001 header lines, or more than 4 MiB of header bytes, fail the entry by name (or are skipped with --skip-bad)")
    func headerLinesAreCapped() throws {
        let data = Data(harText(manyLines(100_001)).utf8)
        // 100,001 lines + the Date line.
        #expect(throws: TraceError(path: "t.har", line: nil, reason: "entry 1: 100002 header lines (request and response), more than the 100000 an entry may have")) {
            _ = try HARTraceReader.parse(data, path: "t.har", filter: HARFilter([:]), keepKeyNames: false, skipBad: false)
        }
        let (kept, skipped) = try HARTraceReader.parse(data, path: "t.har", filter: HARFilter([:]), keepKeyNames: false, skipBad: true)
        #expect(kept.isEmpty && skipped == 1)
        let big = Data(harText([Exchange(at: 0, response: [("X-Big", String(repeating: "a", count: 4 << 20))])]).utf8)
        #expect(throws: TraceError(path: "t.har", line: nil, reason: "entry 1: more than 4194304 bytes (4 MiB) of header names and values (request and response), the most an entry may have")) {
            _ = try HARTraceReader.parse(big, path: "t.har", filter: HARFilter([:]), keepKeyNames: false, skipBad: false)
        }
        // At the cap exactly (99,999 lines + Date): read.
        let atCap = Data(harText(manyLines(99_999)).utf8)
        #expect(try HARTraceReader.parse(atCap, path: "t.har", filter: HARFilter([:]), keepKeyNames: false, skipBad: false).0.count == 1)
    }

    @Test("41 §2.2: the cap through bench: exit 2, one line naming the file and the entry")
    func headerCapThroughTheCLI() throws {
        let folder = TemporaryFolder()
        let path = folder.file("lines.har", harText(manyLines(100_001)))
        let result = try runBounded(120, try builtBench, ["run", "--trace", path, "--mode", "http", "--backend", "lru", "--capacity", "1MiB"])
        #expect(result.status == 2)
        #expect(result.err == "bench: error: \(path): entry 1: 100002 header lines (request and response), more than the 100000 an entry may have\n", "\(result.err)")
    }

    @Test("41 §2.1: http-check refuses /dev/zero and a FIFO at once (was unbounded memory and a hang)")
    func httpCheckRefusesDevicesAndFIFOs() throws {
        let zero = try runBounded(20, try builtBench, ["http-check", "/dev/zero"])
        #expect(zero.status == 2 && zero.err.contains("/dev/zero: is not a regular file"), "\(zero.status) \(zero.err)")
        let folder = TemporaryFolder()
        let fifo = folder.path + "/views.har"
        #expect(mkfifo(fifo, 0o600) == 0)
        let result = try runBounded(20, try builtBench, ["http-check", fifo])
        #expect(result.status == 2 && result.err.contains("\(fifo): is not a regular file"), "\(result.status) \(result.err)")
    }

    /// A first + repeat view export whose pages say `_run: run` as written.
    private func views(run: String) -> String {
        let har = WebPageTestHAR(
            pages: [.init(id: "p1", start: 0, run: 1, cached: 0), .init(id: "p2", start: 60, run: 1, cached: 1)],
            entries: [.init(page: "p1", start: 1, url: "https://x.test/a.png", headers: [("Cache-Control", "max-age=3600")])])
        return har.json.replacingOccurrences(of: "\"_run\":1", with: "\"_run\":\(run)")
    }

    @Test("41 §6: http-check refuses a _run of -1 or 2^63 naming the page, instead of showing run 0")
    func badRunIsRefused() throws {
        let folder = TemporaryFolder()
        for run in ["-1", "9223372036854775808", "1.5"] {
            let path = folder.file("run.har", views(run: run))
            #expect(throws: TraceError(path: path, line: nil, reason: "page 1 (id 'p1'): _run '\(run)' is not a run number (WebPageTest numbers its runs 1, 2, …: a whole number from 0 to 999,999,999)")) {
                _ = try HTTPCheck.run(path: path)
            }
        }
        // A good run number is shown as written.
        let good = folder.file("good.har", views(run: "7"))
        #expect(try HTTPCheck.run(path: good).text.contains("1 run with a first and a repeat view (runs 7)"))
    }

    @Test("41 §6: --har-view repeat on a HAR without repeat views: exit 2 saying so (was 0 requests, exit 0)")
    func repeatViewMissing() throws {
        let folder = TemporaryFolder()
        let path = folder.file("plain.har", harText(threeAsking("max-age=60")))
        for capacity in ["1MiB", "10%"] {
            let result = try bench(["run", "--trace", path, "--har-view", "repeat", "--backend", "lru", "--capacity", capacity])
            #expect(result.status == 2)
            #expect(result.err == "bench: error: \(path): --har-view repeat: this HAR has no repeat view (no page with WebPageTest's _cached: 1); replay its first views with --har-view first\n", "\(result.err)")
        }
    }
}
