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

/// One run: a first view at 10:00:00, a repeat view at 10:01:00. Every response is dated
/// 10:00:00. Hand-computed answers (rfc9111 and apple alike; corelibs differs where noted):
/// - fresh.png      max-age=3600                → fresh (60 s < 3600 s); absent: agree
/// - stale.png      max-age=10, ETag            → revalidate (60 s > 10 s); 304: agree
///                                                corelibs: no conditional requests → fetch
/// - nostore.png    no-store                    → fetch; 200: agree
/// - busted.js?v=1  max-age=0, no validator     → fetch; absent, the repeat view asked ?v=2
/// - surprise.png   max-age=3600                → fresh; 200: disagree, unexplained
/// - redirect       301, max-age=0              → fetch; absent: disagree, a redirect
/// - heuristic.css  Last-Modified a year before → fresh (10% of a year; corelibs: no
///                                                freshness at all = fresh forever); absent: agree
/// - nocache.png    no-cache, ETag              → revalidate; 304: agree
///                                                corelibs never stores no-cache → fetch
private let date = ("Date", WebPageTestHAR.httpDate(0))
private let handMadeHAR = WebPageTestHAR(
    pages: [.init(id: "page_1_0", start: 0, run: 1, cached: 0), .init(id: "page_1_1", start: 60, run: 1, cached: 1)],
    entries: [
        .init(page: "page_1_0", start: 0.1, url: "https://x.test/fresh.png", headers: [date, ("Cache-Control", "max-age=3600")]),
        .init(page: "page_1_0", start: 0.2, url: "https://x.test/stale.png", headers: [date, ("Cache-Control", "max-age=10"), ("ETag", "\\\"s1\\\"")]),
        .init(page: "page_1_0", start: 0.3, url: "https://x.test/nostore.png", headers: [date, ("Cache-Control", "no-store")]),
        .init(page: "page_1_0", start: 0.4, url: "https://x.test/busted.js?v=1", headers: [date, ("Cache-Control", "max-age=0")]),
        .init(page: "page_1_0", start: 0.5, url: "https://x.test/surprise.png", headers: [date, ("Cache-Control", "max-age=3600")]),
        .init(page: "page_1_0", start: 0.6, url: "https://x.test/redirect", status: 301, size: 0, headers: [date, ("Cache-Control", "max-age=0"), ("Location", "/fresh.png")]),
        .init(page: "page_1_0", start: 0.7, url: "https://x.test/heuristic.css", headers: [date, ("Last-Modified", "Wed, 01 Jan 2025 10:00:00 GMT")]),
        .init(page: "page_1_0", start: 0.8, url: "https://x.test/nocache.png", headers: [date, ("Cache-Control", "no-cache"), ("ETag", "\\\"n1\\\"")]),
        .init(page: "page_1_1", start: 60.1, url: "https://x.test/stale.png", status: 304, size: 0, headers: [("ETag", "\\\"s1\\\"")]),
        .init(page: "page_1_1", start: 60.2, url: "https://x.test/nostore.png", headers: [date, ("Cache-Control", "no-store")]),
        .init(page: "page_1_1", start: 60.3, url: "https://x.test/busted.js?v=2", headers: [date, ("Cache-Control", "max-age=0")]),
        .init(page: "page_1_1", start: 60.4, url: "https://x.test/surprise.png", headers: [date, ("Cache-Control", "max-age=3600")]),
        .init(page: "page_1_1", start: 60.5, url: "https://x.test/nocache.png", status: 304, size: 0, headers: [("ETag", "\\\"n1\\\"")]),
    ])

/// The confusion table as [predicted: [absent, 304, fetched]].
private func table(_ check: HTTPCheck.ProfileCheck) -> [HTTPCheck.Prediction: [Int]] {
    Dictionary(uniqueKeysWithValues: HTTPCheck.Prediction.allCases.map { predicted in
        (predicted, HTTPCheck.Observation.allCases.map { check.count(predicted, $0) })
    })
}

private let sharedHARs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/data/har").path
/// Every file `realExports` opens: the gate checks each one it reads, not one of them.
private let haveShared = ["webpagetest_wikipedia_3runs_first_repeat.har", "webpagetest_aftonbladet_first_repeat.har"]
    .allSatisfy { FileManager.default.fileExists(atPath: sharedHARs + "/" + $0) }

@Suite("bench http-check: the model against a browser's repeat view", .onTestWorkers)
struct HTTPCheckTests {
    @Test("hand-made first + repeat view: confusion tables per profile, reasons for each disagreement")
    func handMade() throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.har", handMadeHAR.json)
        let check = try HTTPCheck.run(path: path)
        #expect(check.runs == [1])
        #expect(check.profiles.map(\.profile) == [.rfc9111, .apple, .corelibs])
        for profile in check.profiles.prefix(2) {
            #expect(table(profile) == [.fresh: [2, 0, 1], .revalidate: [0, 2, 0], .fetch: [2, 0, 1]], "\(profile.profile)")
            #expect(profile.agreeing == 5)
            let reasons = Dictionary(uniqueKeysWithValues: profile.checks.compactMap { check in check.reason.map { (check.url, $0) } })
            #expect(reasons == [
                "https://x.test/busted.js?v=1": "not asked: cache-busting query (the repeat view asked for 'https://x.test/busted.js?v=2' instead)",
                "https://x.test/surprise.png": "unexplained (Cache-Control: max-age=3600)",
                "https://x.test/redirect": "redirect (status 301)",
            ])
        }
        let corelibs = check.profiles[2]
        #expect(table(corelibs) == [.fresh: [2, 0, 1], .revalidate: [0, 0, 0], .fetch: [2, 2, 1]])
        #expect(corelibs.agreeing == 3)
        // corelibs never stores no-cache (HTTPURLProtocol.swift), so it fetches what the browser revalidated.
        #expect(corelibs.checks.first { $0.url == "https://x.test/nocache.png" }?.reason == "this profile does not store it (no-cache)")
        #expect(check.repeatOnly.map(\.url) == ["https://x.test/busted.js?v=2"])
        #expect(check.repeatOnly.first?.reason.hasPrefix("cache-busting query") == true)
    }

    @Test("bench http-check prints the tables; a HAR without a repeat view is one line, exit 2")
    func command() throws {
        let folder = TemporaryFolder()
        let result = try bench(["http-check", folder.file("t.har", handMadeHAR.json)])
        #expect(result.status == 0, "\(result.err)")
        // Shown: the URLs asked again (304: stale, nocache; fetched: nostore, surprise); agreeing
        // rfc9111: both revalidations and nostore's fetch; corelibs: nostore's fetch alone.
        #expect(result.out.contains("profile rfc9111: 3 of 4 first-view URLs agree where the recording shows the browser's choice (asked again in the repeat view: 304 or fetched)\n"))
        #expect(result.out.contains("  not shown: 4 of 8 first-view URLs are absent from the repeat view, a hit from the browser's cache or not asked, which the recording cannot tell apart (predicted fresh 2, revalidate 0, fetch 2; 1 not asked on evidence: a cache-busting query or no-store); with them, 5 of 8 agree if every absent URL was a cache hit\n"))
        #expect(result.out.contains("  fetch                        2         0         1       3\n"))
        #expect(result.out.contains("profile corelibs: 1 of 4 first-view URLs agree where the recording shows the browser's choice"))
        var firstOnly = handMadeHAR
        firstOnly.pages.removeLast()
        firstOnly.entries = firstOnly.entries.filter { $0.page == "page_1_0" }
        let none = try bench(["http-check", folder.file("first.har", firstOnly.json)])
        #expect(none.status == 2)
        #expect(none.err.hasPrefix("bench: error: ") && none.err.contains("no run with both a first and a repeat view"))
        #expect(none.err.split(separator: "\n").count == 1)
    }

    @Test("a repeat view with no entries (every URL a hit) still pairs, by its page's start")
    func emptyRepeatView() throws {
        var har = handMadeHAR
        har.entries = har.entries.filter { $0.page == "page_1_0" }
        let folder = TemporaryFolder()
        let check = try HTTPCheck.run(path: folder.file("t.har", har.json))
        #expect(table(check.profiles[0]) == [.fresh: [3, 0, 0], .revalidate: [2, 0, 0], .fetch: [3, 0, 0]])
    }

    @Test("real WebPageTest exports: exact confusion counts", .enabled(if: haveShared, "needs ../shared/data (the WebPageTest HAR exports); absent in a clone without it"))
    func realExports() throws {
        // Tables in profile order rfc9111, apple, corelibs; rows [absent, 304, fetched].
        let expected: [(String, [[HTTPCheck.Prediction: [Int]]])] = [
            ("webpagetest_wikipedia_3runs_first_repeat.har", [
                [.fresh: [87, 0, 0], .revalidate: [0, 3, 3], .fetch: [3, 0, 0]],
                [.fresh: [87, 0, 0], .revalidate: [0, 3, 3], .fetch: [3, 0, 0]],
                [.fresh: [60, 3, 0], .revalidate: [0, 0, 0], .fetch: [30, 0, 3]],
            ]),
            ("webpagetest_aftonbladet_first_repeat.har", [
                [.fresh: [127, 0, 0], .revalidate: [0, 3, 0], .fetch: [35, 0, 8]],
                [.fresh: [126, 0, 0], .revalidate: [0, 3, 0], .fetch: [36, 0, 8]],
                [.fresh: [104, 1, 1], .revalidate: [0, 0, 0], .fetch: [58, 2, 7]],
            ]),
        ]
        for (name, tables) in expected {
            let check = try HTTPCheck.run(path: sharedHARs + "/" + name)
            #expect(check.profiles.map(table) == tables, "\(name)")
        }
        // The Wikipedia runs' main page: the model revalidates, the browser fetched in full; it
        // varies on Cookie, which the export removed. apple refuses the tv.nu 404 (2xx only).
        let wikipedia = try HTTPCheck.run(path: sharedHARs + "/webpagetest_wikipedia_3runs_first_repeat.har")
        #expect(wikipedia.profiles[0].checks.filter { $0.reason?.hasPrefix("Vary: Cookie") == true }.count == 3)
        let aftonbladet = try HTTPCheck.run(path: sharedHARs + "/webpagetest_aftonbladet_first_repeat.har")
        #expect(aftonbladet.profiles[1].checks.first { $0.url == "http://www.tv.nu/_graphics/tabla_arrow_right.png" }?.reason == "this profile does not store it (status)")
        #expect(aftonbladet.profiles[0].checks.filter { $0.reason?.hasPrefix("not asked") == true }.count == 29)
    }
}
