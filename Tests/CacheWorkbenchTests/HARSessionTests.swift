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

/// Two WebPageTest runs that overlap in time (run 2 starts 0.5 s into run 1) and run 1's
/// repeat view. Every response is 100 bytes, so an LRU of 100 bytes holds one object.
///   run 1 first view:  a @0, a @1
///   run 2 first view:  b @0.5, b @1.5
///   run 1 repeat view: a @5 (304, no body: sized 100 from the 200), d @5.1
private let overlapping = WebPageTestHAR(
    pages: [.init(id: "page_1_0", start: 0, run: 1, cached: 0), .init(id: "page_2_0", start: 0.5, run: 2, cached: 0),
            .init(id: "page_1_1", start: 5, run: 1, cached: 1)],
    entries: [
        .init(page: "page_1_0", start: 0, url: "https://x.test/a.png", headers: [("Date", WebPageTestHAR.httpDate(120))]),
        .init(page: "page_2_0", start: 0.5, url: "https://x.test/b.png"),
        .init(page: "page_1_0", start: 1, url: "https://x.test/a.png", headers: [("Date", WebPageTestHAR.httpDate(121))]),
        .init(page: "page_2_0", start: 1.5, url: "https://x.test/b.png"),
        .init(page: "page_1_1", start: 5, url: "https://x.test/a.png", status: 304, size: 0),
        .init(page: "page_1_1", start: 5.1, url: "https://x.test/d.png"),
    ])

private let start = ISO8601Time.seconds("2026-01-01T10:00:00Z")!

private func read(_ options: [String: String]) throws -> [Request] {
    let folder = TemporaryFolder()
    let path = folder.file("t.har", overlapping.json)
    return try InMemoryTrace.load(try TraceFile(path: path, formatOptions: options), keepKeyNames: true).requests
}

private func letters(_ requests: [Request]) -> String {
    requests.map { String($0.keyText.dropFirst("https://x.test/".count).prefix(1)) }.joined()
}

private func expectTimes(_ requests: [Request], _ expected: [Double]) {
    #expect(requests.count == expected.count)
    for (request, time) in zip(requests, expected) { #expect(abs(request.time - start - time) < 1e-6, "\(request.keyText) at \(request.time - start), expected \(time)") }
}

private let sharedHARs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/data/har").path
private func shared(_ name: String) -> String { sharedHARs + "/" + name }
/// Every file `realExports` opens: the gate checks each one it reads, not one of them.
private let haveShared = ["webpagetest_wikipedia_3runs_first_repeat.har", "webpagetest_aftonbladet_first_repeat.har"]
    .allSatisfy { FileManager.default.fileExists(atPath: shared($0)) }

@Suite("HAR sessions: pages, runs and views", .onTestWorkers)
struct HARSessionTests {
    @Test("sequential replays run 1 then run 2 (moved 0.5 s later); as-recorded interleaves by start time")
    func orders() throws {
        let sequential = try read([:])
        #expect(letters(sequential) == "aabb")
        expectTimes(sequential, [0, 1, 1, 2])
        let recorded = try read(["har-pages": "as-recorded"])
        #expect(letters(recorded) == "abab")
        expectTimes(recorded, [0, 0.5, 1, 1.5])
    }

    @Test("--har-view: first leaves the repeat view out, all keeps it inside its run, repeat keeps only it")
    func views() throws {
        let all = try read(["har-view": "all"])
        // Run 1 (first view, then its repeat view) ends at 5.1; run 2 is moved by 4.6 s.
        #expect(letters(all) == "aaadbb")
        expectTimes(all, [0, 1, 5, 5.1, 5.1, 6.1])
        #expect(all[2].size == 100)  // the 304 revalidated the 100-byte body
        #expect(letters(try read(["har-view": "all", "har-pages": "as-recorded"])) == "ababad")
        #expect(letters(try read(["har-view": "repeat"])) == "ad")
    }

    @Test("the notes say a repeat view is present and what was left out or moved")
    func notes() throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.har", overlapping.json)
        let notes = try TraceFile(path: path).readingNotes()
        #expect(notes == [
            "this HAR holds 1 repeat view (WebPageTest _cached: 1); the browser answered a repeat view's cache hits without the network, so they are absent from the HAR; its 2 repeat-view requests are left out (--har-view first)",
            "--har-pages sequential: 1 run or page started before the previous one ended and was replayed after it, moved later by up to 0.50 s (gaps within each kept); --har-pages as-recorded interleaves them by start time",
        ])
        let allNotes = try TraceFile(path: path, formatOptions: ["har-view": "all", "har-pages": "as-recorded"]).readingNotes()
        #expect(allNotes == ["2 requests from 1 repeat view are replayed (--har-view all); the browser answered a repeat view's cache hits without the network, so they are absent from the HAR and a hit ratio here leaves them out"])
        // A HAR without pages: nothing to say.
        let plain = folder.file("plain.har", WebPageTestHAR(pages: [], entries: overlapping.entries).json)
        #expect(try TraceFile(path: plain).readingNotes().isEmpty)
    }

    @Test("bench run: hand-computed hits of an LRU holding one object, both orders, first view and all views")
    func replayBothWays() throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.har", overlapping.json)
        // (options, hits, requests), the runs as visits of one cache: aabb → a, b hit; abab →
        // none; aaadbb → a, a, b; ababad → none. Cold (the default), each run from an empty
        // cache: aa | bb → a, b; aaad | bb → a, a, b (no hit crossed a run boundary here).
        let visits = ["--har-runs", "visits"]
        let cases: [([String], Int, Int)] = [
            (visits, 2, 4), (visits + ["--har-pages", "as-recorded"], 0, 4),
            (visits + ["--har-view", "all"], 3, 6), (visits + ["--har-view", "all", "--har-pages", "as-recorded"], 0, 6),
            ([], 2, 4), (["--har-view", "all"], 3, 6),
        ]
        for (options, hits, requests) in cases {
            let csv = folder.path + "/out.csv"
            let result = try bench(["run", "--trace", path, "--backend", "lru", "--capacity", "100B", "--csv", csv] + options)
            #expect(result.status == 0, "\(result.err)")
            let row = try #require(try csvRows(csv).first)
            #expect(row["hits"] == String(hits), "\(options)")
            #expect(row["requests"] == String(requests), "\(options)")
            #expect(result.err.contains("repeat view"), "\(options): \(result.err)")
        }
        for command in [["mrc", "--trace", path], ["sweep", "--trace", path, "--backend", "lru", "--capacity", "100B,200B"]] {
            let result = try bench(command)
            #expect(result.status == 0, "\(command): \(result.err)")
            #expect(result.err.contains("bench: note: this HAR holds 1 repeat view"), "\(command): \(result.err)")
        }
        // Interleaved by start time, the runs have no boundary to empty a cache at.
        let interleaved = try bench(["run", "--trace", path, "--backend", "lru", "--har-pages", "as-recorded"])
        #expect(interleaved.status == 2 && interleaved.err.contains("--har-runs cold: --har-pages as-recorded interleaves overlapping runs"))
        let bad = try bench(["run", "--trace", path, "--backend", "lru", "--har-view", "sideways"])
        #expect(bad.status == 2)
        #expect(bad.err == "bench: error: --har-view must be one of first, repeat, all, not 'sideways'\n")
    }

    @Test("bench stats: pages, runs, views, per-view ceilings and the clock skew over a minute")
    func stats() throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.har", overlapping.json)
        let result = try bench(["stats", path])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("pages               3 (2 WebPageTest runs); first views: 2 pages, 4 requests; repeat views: 1 pages, 2 requests\n"))
        #expect(result.out.contains("re-request ceiling  first views 50.00% (2 of 4)\n"))
        #expect(result.out.contains("repeat views 0.00% (0 of 2); the browser's cache hits are absent"))
        // Date is 120 s after each of the two entries that carry one: (120 + 120) / 2.
        #expect(result.out.contains("clock skew          the servers' Date (+ Age) is 120.00 s ahead of the recorded start times (median of 2 responses); apparent ages clamp to 0"))
        // Under a minute: no line.
        var near = overlapping
        near.entries[0].headers = [("Date", WebPageTestHAR.httpDate(59))]
        near.entries[2].headers = [("Date", WebPageTestHAR.httpDate(60))]
        let quiet = try bench(["stats", folder.file("near.har", near.json)])
        #expect(!quiet.out.contains("clock skew"))
    }

    @Test("HARSessionSummary: Age moves the servers' clock; the median of an even count is the mean of the middle two")
    func skew() throws {
        var har = overlapping
        har.entries[0].headers = [("Date", WebPageTestHAR.httpDate(0)), ("Age", "300")]  // 300 s
        har.entries[2].headers = [("Date", WebPageTestHAR.httpDate(0))]  // -1 s
        var allViews = try HARFilter([:])
        allViews.view = .all
        let reading = try HARTraceReader.read(Data(har.json.utf8), path: "t.har", filter: allViews, keepKeyNames: false, skipBad: false)
        let summary = HARSessionSummary(reading)
        #expect(summary.clockSkew == 149.5)
        #expect(summary.runs == 2 && summary.pages == 3 && summary.repeatViewRequests == 2 && summary.firstViewReRequests == 2)
    }

    @Test("malformed pages are read as none; a numeric pageref is no page", .timeLimit(.minutes(1)))
    func lenientPages() throws {
        let text = #"{"log":{"pages":[1,"x"],"entries":[{"pageref":7,"startedDateTime":"2026-01-01T10:00:00Z","request":{"url":"https://x.test/a"},"response":{"status":200}}]}}"#
        let (requests, _) = try HARTraceReader.parse(Data(text.utf8), path: "t.har", filter: try HARFilter([:]), keepKeyNames: true, skipBad: false)
        #expect(requests.count == 1)
    }

    @Test("real WebPageTest exports: 3 overlapping runs of Wikipedia; aftonbladet's one run", .enabled(if: haveShared, "needs ../shared/data (the WebPageTest HAR exports); absent in a clone without it"))
    func realExports() throws {
        let wikipedia = try TraceFile(path: shared("webpagetest_wikipedia_3runs_first_repeat.har"))
        let requests = try InMemoryTrace.load(wikipedia, keepKeyNames: false).requests
        #expect(requests.count == 96)  // 3 first views of 32; the 6 repeat-view requests left out
        for (earlier, later) in zip(requests, requests.dropFirst()) { #expect(earlier.time <= later.time) }
        let notes = try wikipedia.readingNotes()
        #expect(notes.count == 2)
        #expect(notes[0].hasPrefix("this HAR holds 3 repeat views") && notes[0].contains("its 6 repeat-view requests are left out"))
        #expect(notes[1].hasPrefix("--har-pages sequential: 1 run or page started before the previous one ended"))
        let aftonbladet = try TraceFile(path: shared("webpagetest_aftonbladet_first_repeat.har"))
        #expect(try InMemoryTrace.load(aftonbladet, keepKeyNames: false).requests.count == 175)
        #expect(try aftonbladet.readingNotes() == [
            "this HAR holds 1 repeat view (WebPageTest _cached: 1); the browser answered a repeat view's cache hits without the network, so they are absent from the HAR; its 37 repeat-view requests are left out (--har-view first)",
        ])
    }
}
