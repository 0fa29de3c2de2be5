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

/// Three WebPageTest runs (first views only), sizes a=100, b=200, c=300, d=400:
///   run 1: a b a c   run 2: a b b b   run 3: d a d
/// Counted by hand, with a cache large enough for everything:
/// - cold (each run from an empty cache): run hits 1/4, 2/4, 1/3 (total 4 of 11); bytes hit
///   100 of 700, 400 of 700, 400 of 900; compulsory misses 3 + 2 + 2 = 7;
/// - visits (one cache): a b a* c a* b* b* b* d a* d* = 7 hits of 11; compulsory misses 4.
/// Within a run 4 re-requests (a in 1; b, b in 2; d in 3), across runs 3 (a, b in 2; a in 3).
private let threeRuns = WebPageTestHAR(
    pages: [.init(id: "p1", start: 0, run: 1, cached: 0), .init(id: "p2", start: 10, run: 2, cached: 0), .init(id: "p3", start: 20, run: 3, cached: 0)],
    entries: [
        ("p1", 0, "a", 100), ("p1", 1, "b", 200), ("p1", 2, "a", 100), ("p1", 3, "c", 300),
        ("p2", 10, "a", 100), ("p2", 11, "b", 200), ("p2", 12, "b", 200), ("p2", 13, "b", 200),
        ("p3", 20, "d", 400), ("p3", 21, "a", 100), ("p3", 22, "d", 400),
    ].map { WebPageTestHAR.Entry(page: $0.0, start: Double($0.1), url: "https://x.test/\($0.2).png", size: $0.3) })

/// A browsertime export (Chrome through chrome-har): pages titled `URL run N` with `_url`,
/// no `_run`. Run 1: a a b; run 2: a b. Cold: hits 1/3 and 0/2 (mean 1/6); visits: 3 of 5.
private func browsertimeHAR(titled: Bool) -> String {
    let pages = (1...2).map { run in
        let title = titled ? "https://x.test/ run \(run)" : "Example Domain"
        return #"{"id":"page_\#(run)","startedDateTime":"\#(WebPageTestHAR.time(Double(run - 1) * 10))","title":"\#(title)","_url":"https://x.test/"}"#
    }
    let entries = [("page_1", 0.0, "a"), ("page_1", 1, "a"), ("page_1", 2, "b"), ("page_2", 10, "a"), ("page_2", 11, "b")].map { page, start, name in
        #"{"pageref":"\#(page)","startedDateTime":"\#(WebPageTestHAR.time(start))","request":{"method":"GET","url":"https://x.test/\#(name).png"},"response":{"status":200,"headers":[],"content":{"size":100,"mimeType":"image/png"}}}"#
    }
    return #"{"log":{"version":"1.2","creator":{"name":"Browsertime","version":"25"},"pages":[\#(pages.joined(separator: ","))],"entries":[\#(entries.joined(separator: ","))]}}"#
}

private let sharedHARs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/data/har").path
private let wikipedia = sharedHARs + "/webpagetest_wikipedia_3runs_first_repeat.har"
private let haveWikipedia = FileManager.default.fileExists(atPath: wikipedia)

private func run(_ trace: String, _ extra: [String], in folder: TemporaryFolder, name: String = "out.csv") throws -> (rows: [[String: String]], out: String, err: String) {
    let csv = folder.path + "/" + name
    let result = try bench(["run", "--trace", trace, "--no-timing", "--csv", csv] + extra)
    #expect(result.status == 0, "\(result.err)")
    return (try csvRows(csv), result.out, result.err)
}

private func double(_ text: String?) -> Double { text.flatMap(Double.init) ?? .nan }

@Suite("HAR runs: cold runs and visits (--har-runs)", .serialized, .onTestWorkers)
struct HARRunsTests {
    @Test("runs are found: WebPageTest _run; browsertime titles 'URL run N'; the k-th page of a _url; DevTools reloads are no runs")
    func detection() throws {
        let document = try JSONDecoder().decode(HARDocument.self, from: Data(threeRuns.json.utf8))
        let wpt = HARRuns(pages: document.log.pages!)
        #expect(wpt.count == 3 && wpt.source == .webPageTest && wpt.runOfPage == [0, 1, 2])
        for titled in [true, false] {
            let pages = try JSONDecoder().decode(HARDocument.self, from: Data(browsertimeHAR(titled: titled).utf8)).log.pages!
            let runs = HARRuns(pages: pages)
            #expect(runs.count == 2 && runs.runOfPage == [0, 1] && runs.source == (titled ? .browsertimeTitles : .browsertimeURLs))
        }
        #expect(HARRuns.iteration(title: "https://x.test/ run 12") == 12)
        #expect(HARRuns.iteration(title: "a run b") == nil && HARRuns.iteration(title: nil) == nil)
        // Three pages of one URL titled by it, no _url (Chrome DevTools): reloads in one browser.
        let devtools = #"{"log":{"pages":[{"id":"a","title":"https://x.test/"},{"id":"b","title":"https://x.test/"}],"entries":[]}}"#
        #expect(HARRuns(pages: try JSONDecoder().decode(HARDocument.self, from: Data(devtools.utf8)).log.pages!).count == 0)
    }

    @Test("cold: each run from an empty cache; the row's mean and range of per-run ratios, totals, per-run compulsory misses (lru and the files disk cache)")
    func coldByHand() throws {
        let folder = TemporaryFolder()
        let har = folder.file("three.har", threeRuns.json)
        let result = try run(har, ["--backend", "lru,files", "--capacity", "1MiB"], in: folder)
        #expect(result.rows.count == 2)
        for row in result.rows {
            #expect(row["har_runs"] == "cold" && row["runs"] == "3")
            #expect(row["requests"] == "11" && row["hits"] == "4" && row["compulsory_misses"] == "7")
            #expect(abs(double(row["object_hit_ratio"]) - 4.0 / 11) < 1e-9)
            #expect(abs(double(row["run_hit_ratio_mean"]) - (0.25 + 0.5 + 1.0 / 3) / 3) < 1e-9)
            #expect(double(row["run_hit_ratio_min"]) == 0.25 && double(row["run_hit_ratio_max"]) == 0.5)
            let perRun = (row["run_hit_ratios"] ?? "").split(separator: ";").map { Double($0) ?? .nan }
            #expect(perRun.count == 3 && perRun[0] == 0.25 && perRun[1] == 0.5 && abs(perRun[2] - 1.0 / 3) < 1e-12)
            #expect(abs(double(row["run_byte_hit_ratio_mean"]) - (1.0 / 7 + 4.0 / 7 + 4.0 / 9) / 3) < 1e-9)
            #expect(abs(double(row["run_byte_hit_ratio_min"]) - 1.0 / 7) < 1e-12 && abs(double(row["run_byte_hit_ratio_max"]) - 4.0 / 7) < 1e-12)
        }
        // The table shows the mean and range, and says which figure is the mean.
        #expect(result.out.contains("36.11% (25.00%–50.00%)"))
        #expect(result.out.contains("note: --har-runs cold:") && result.out.contains("the mean over runs of each run's own ratio"))
        #expect(result.err.contains("--har-runs cold (the default): each run is replayed from an empty cache"))
    }

    @Test("visits: one cache over the runs, as before; said in the notes")
    func visitsByHand() throws {
        let folder = TemporaryFolder()
        let har = folder.file("three.har", threeRuns.json)
        let result = try run(har, ["--backend", "lru,files", "--capacity", "1MiB", "--har-runs", "visits"], in: folder)
        for row in result.rows {
            #expect(row["har_runs"] == "visits" && row["runs"] == "3" && row["run_hit_ratio_mean"] == "")
            #expect(row["requests"] == "11" && row["hits"] == "7" && row["compulsory_misses"] == "4")
        }
        #expect(result.out.contains("63.64%"))
        #expect(result.out.contains("note: --har-runs visits:") && result.err.contains("--har-runs visits replays them one after another into one cache"))
    }

    @Test("cold under memory warnings: each run's schedule and counterfactual (autopurge, every:3)")
    func coldWarnings() throws {
        // Warnings before the 4th request of runs 1 and 2 (run 3 has 3): run 1 loses nothing
        // (c is a first request), run 2 loses its last b. Hits 1 + 1 + 1 = 3 against 4 unwarned.
        let folder = TemporaryFolder()
        let har = folder.file("three.har", threeRuns.json)
        let row = try #require(try run(har, ["--backend", "autopurge", "--capacity", "1MiB", "--memory-warning", "every:3"], in: folder).rows.first)
        #expect(row["hits"] == "3" && row["memory_warnings"] == "2" && row["warning_hits_lost"] == "1")
        #expect(row["run_hit_ratios"] == "0.25;0.25;\(1.0 / 3)")
    }

    @Test("sweep honours --har-runs: the same rows as run, cold and visits")
    func sweep() throws {
        let folder = TemporaryFolder()
        let har = folder.file("three.har", threeRuns.json)
        for (mode, hits) in [("cold", "4"), ("visits", "7")] {
            let csv = folder.path + "/sweep-\(mode).csv"
            let result = try bench(["sweep", "--trace", har, "--backend", "lru,fifo", "--capacity", "1KiB,1MiB", "--points", "2", "--no-timing", "--har-runs", mode, "--csv", csv])
            #expect(result.status == 0, "\(result.err)")
            let rows = try csvRows(csv)
            #expect(rows.count == 4 && rows.allSatisfy { $0["har_runs"] == mode })
            #expect(rows.filter { $0["capacity_bytes"] == "1048576" }.allSatisfy { $0["hits"] == hits })
        }
    }

    @Test("a browsertime HAR: cold mean 1/6 over its two runs, visits 3 of 5")
    func browsertime() throws {
        let folder = TemporaryFolder()
        let har = folder.file("bt.har", browsertimeHAR(titled: true))
        let cold = try #require(try run(har, ["--backend", "lru", "--capacity", "1MiB"], in: folder).rows.first)
        #expect(cold["hits"] == "1" && cold["requests"] == "5" && cold["run_hit_ratios"] == "\(1.0 / 3);0.0")
        #expect(abs(double(cold["run_hit_ratio_mean"]) - 1.0 / 6) < 1e-12)
        let visits = try #require(try run(har, ["--backend", "lru", "--capacity", "1MiB", "--har-runs", "visits"], in: folder, name: "v.csv").rows.first)
        #expect(visits["hits"] == "3")
    }

    @Test("a HAR with one run keeps today's row: no run columns, no note")
    func oneRun() throws {
        let folder = TemporaryFolder()
        let one = WebPageTestHAR(pages: [.init(id: "p1", start: 0, run: 1, cached: 0)],
                                 entries: ["a", "b", "a"].enumerated().map { .init(page: "p1", start: Double($0.offset), url: "https://x.test/\($0.element)") })
        let result = try run(folder.file("one.har", one.json), ["--backend", "lru", "--capacity", "1MiB"], in: folder)
        #expect(result.rows.first?["hits"] == "1" && result.rows.first?["har_runs"] == "" && result.rows.first?["runs"] == "")
        #expect(!result.out.contains("har-runs") && !result.err.contains("har-runs"))
    }

    @Test("refusals: a bad --har-runs, --warmup or --cache-dir with cold runs, cold under --mode http; mrc says it replays runs as visits")
    func refusalsAndOtherCommands() throws {
        let folder = TemporaryFolder()
        let har = folder.file("three.har", threeRuns.json)
        let bad = try bench(["run", "--trace", har, "--har-runs", "warm"])
        #expect(bad.status == 2 && bad.err == "bench: error: --har-runs must be one of cold, visits, not 'warm'\n")
        let warmup = try bench(["run", "--trace", har, "--backend", "lru", "--warmup", "2"])
        #expect(warmup.status == 2 && warmup.err.hasPrefix("bench: error: --warmup does not apply to --har-runs cold"))
        let cacheDir = try bench(["run", "--trace", har, "--backend", "files", "--cache-dir", folder.path + "/c"])
        #expect(cacheDir.status == 2 && cacheDir.err.hasPrefix("bench: error: --cache-dir reopens a warm folder"))
        let http = try bench(["run", "--trace", har, "--backend", "lru", "--mode", "http", "--har-runs", "cold"])
        #expect(http.status == 2 && http.err.hasPrefix("bench: error: --har-runs cold does not apply to --mode http"))
        for result in [bad, warmup, cacheDir, http] { #expect(result.err.split(separator: "\n").count == 1) }
        let httpDefault = try bench(["run", "--trace", har, "--backend", "lru", "--mode", "http", "--no-timing"])
        #expect(httpDefault.status == 0 && httpDefault.err.contains("--mode http replays them one after another into one cache"))
        let mrc = try bench(["mrc", "--trace", har, "--points", "2"])
        #expect(mrc.status == 0, "\(mrc.err)")
        #expect(mrc.err.contains("bench: note: this HAR holds 3 WebPageTest runs") && mrc.err.contains("bench mrc replays them one after another into one cache"))
        let analyze = try bench(["analyze", har])
        #expect(analyze.status == 0 && analyze.err.contains("bench analyze takes them one after another into one cache"))
    }

    @Test("stats: the ceiling within a run and across runs apart; no reuse within a run said in one sentence")
    func statsCeilings() throws {
        let folder = TemporaryFolder()
        let har = folder.file("three.har", threeRuns.json)
        let stats = try bench(["stats", har])
        #expect(stats.status == 0, "\(stats.err)")
        #expect(stats.out.contains("re-requests         63.64% of requests (the most a cache can hit if runs are replayed as visits of one user"))
        #expect(stats.out.contains("within a run 36.36% (4 of 11)") && stats.out.contains("across runs 27.27% (3 of 11)"))
        #expect(!stats.out.contains("one page load gives a memory cache nothing to hold"))
        let json = try bench(["stats", har, "--json"])
        #expect(json.out.contains(#""independent_runs": {"runs": 3, "first_view_requests": 11, "re_requests_within_run": 4, "re_requests_across_runs": 3}"#))
        // Two runs of a b: no reuse within either.
        let noReuse = WebPageTestHAR(
            pages: [.init(id: "p1", start: 0, run: 1, cached: 0), .init(id: "p2", start: 10, run: 2, cached: 0)],
            entries: [("p1", 0, "a"), ("p1", 1, "b"), ("p2", 10, "a"), ("p2", 11, "b")].map { .init(page: $0.0, start: Double($0.1), url: "https://x.test/\($0.2)") })
        let none = try bench(["stats", folder.file("none.har", noReuse.json)])
        #expect(none.out.contains("within a run 0.00% (0 of 4)") && none.out.contains("across runs 50.00% (2 of 4)"))
        #expect(none.out.contains("no first-view request repeats a key within its run: one page load gives a memory cache nothing to hold; repeat visits are a separate question (the repeat view, or --har-runs visits)"))
    }

    /// Counted by hand with python over the file: 3 first views of the same 32 URLs (all 200,
    /// sizes from Content-Length, 307,426 bytes a run); no URL twice within a run, so 64 of 96
    /// first-view requests are re-requests, all across runs.
    @Test("the WebPageTest Wikipedia HAR: ceilings 0 within, 64 of 96 across; cold 0 hits, visits 64 (lru and nscache at 1 MiB, encoded sizes)",
          .enabled(if: haveWikipedia, "needs ../shared/data/har (the WebPageTest export)"))
    func wikipediaByHand() throws {
        let stats = try bench(["stats", wikipedia])
        #expect(stats.out.contains("within a run 0.00% (0 of 96)") && stats.out.contains("across runs 66.67% (64 of 96)"))
        #expect(stats.out.contains("one page load gives a memory cache nothing to hold"))
        let folder = TemporaryFolder()
        let cold = try run(wikipedia, ["--backend", "lru,nscache", "--cost", "encoded", "--capacity", "1MiB"], in: folder).rows
        for row in cold {
            #expect(row["runs"] == "3" && row["requests"] == "96" && row["hits"] == "0" && row["compulsory_misses"] == "96")
            #expect(row["run_hit_ratios"] == "0.0;0.0;0.0")
        }
        // 307,426 encoded bytes a run fit in 1 MiB (the estimated bitmaps, under --cost auto, do not).
        let visits = try run(wikipedia, ["--backend", "lru,nscache", "--cost", "encoded", "--capacity", "1MiB", "--har-runs", "visits"], in: folder, name: "v.csv").rows
        for row in visits {
            #expect(row["hits"] == "64" && row["compulsory_misses"] == "32")
            #expect(abs(double(row["byte_hit_ratio"]) - 2.0 / 3) < 1e-12)
        }
    }
}
