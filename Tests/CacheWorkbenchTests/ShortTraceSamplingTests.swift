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

/// Issue 21 §10: on a short trace the defaults of --sample-every and --warning-window are
/// scaled to it (a hundredth and a tenth), and the table says what was chosen.
/// A file of ../shared/data (absent in a clone without it: the test is skipped).
private let shortSessionHAR = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/data/har/webpagetest_aftonbladet_first_repeat.har").path

@Suite("Short sessions: sampling and warning windows scaled to the trace", .onTestWorkers)
struct ShortTraceSamplingTests {
    @Test("the rule: N/100 and N/10, capped at the defaults, at least 1; given values kept")
    func rule() {
        let short = ShortTraceSampling(requests: 337, sampleEvery: nil, warningWindow: nil)
        #expect(short.sampleEvery == 3 && short.warningWindow == 33 && short.scaledSampleEvery && short.scaledWarningWindow)
        let tiny = ShortTraceSampling(requests: 5, sampleEvery: nil, warningWindow: nil)
        #expect(tiny.sampleEvery == 1 && tiny.warningWindow == 1)
        let edge = ShortTraceSampling(requests: 10_000, sampleEvery: nil, warningWindow: nil)
        #expect(edge.sampleEvery == 100 && edge.warningWindow == 1_000 && !edge.scaledWarningWindow)
        #expect(ShortTraceSampling(requests: 9_999, sampleEvery: nil, warningWindow: nil).warningWindow == 999)
        let long = ShortTraceSampling(requests: 409_600, sampleEvery: nil, warningWindow: nil)
        #expect(long.sampleEvery == 4_096 && !long.scaledSampleEvery && !long.scaledWarningWindow)
        #expect(long.note(warnings: true, timeline: true) == nil)
        #expect(ShortTraceSampling(requests: 409_599, sampleEvery: nil, warningWindow: nil).sampleEvery == 4_095)
        let given = ShortTraceSampling(requests: 300, sampleEvery: 50, warningWindow: nil)
        #expect(given.sampleEvery == 50 && !given.scaledSampleEvery && given.warningWindow == 30)
        #expect(given.note(warnings: false, timeline: false) == nil)  // nothing printed depends on it
        #expect(given.note(warnings: true, timeline: false)
            == "not given, so scaled to the trace's N = 300 replayed requests (before --warmup): --warning-window 30 (N/10; 1000 from 10000 requests on); give the option to set it")
    }

    @Test("counting the replayed requests skips size 0 and stops at the limit")
    func counting() throws {
        let requests = (0..<50).map { Request(time: Double($0), key: "k\($0)", size: $0 % 5 == 0 ? 0 : 10) }
        let trace = InMemoryTrace(label: "t", requests: requests)
        #expect(try ShortTraceSampling.countRequests(trace, httpMode: false) == 40)
        #expect(try ShortTraceSampling.countRequests(trace, httpMode: false, upTo: 7) == 7)
    }

    /// 200 requests over 10 keys of 10 bytes, warnings before requests 50, 100 and 150.
    /// Scaled: windows of 20, sampling every 2. By hand: the 20 requests before each warning
    /// all hit (1.0); after it the 10 keys miss once, then hit (10 of 20: 0.5). Without
    /// warnings 190 hits; with them 160: 30 lost, 10 per warning, each recovered after 10.
    /// (With the old default window of 1000, none of the windows fitted.)
    @Test("a 200-request trace gets windows that fit, and the table says what was chosen")
    func endToEnd() throws {
        let folder = TemporaryFolder()
        let rows = (0..<200).map { "\($0),k\($0 % 10),10" }.joined(separator: "\n")
        let trace = folder.file("short.csv", "time,key,size\n" + rows + "\n")
        let result = try bench(["run", "--trace", trace, "--backend", "nscache", "--capacity", "1000", "--memory-warning", "every:50",
                                "--csv", folder.path + "/r.csv", "--timeline", folder.path + "/t.csv"])
        #expect(result.status == 0, "\(result.err)")
        let row = try #require(try csvRows(folder.path + "/r.csv").first)
        #expect(row["warning_window"] == "20" && row["sample_every"] == "2")
        #expect(row["hit_ratio_before_warnings"] == "1.0")
        #expect(row["hit_ratio_after_warnings"] == "0.5")
        #expect(row["hits"] == "160" && row["warning_hits_lost"] == "30" && row["warning_hits_lost_per_warning"] == "10.0")
        #expect(row["warning_recovery_requests"] == "10.0" && row["warning_recovery_max_requests"] == "10" && row["warnings_unrecovered"] == "0")
        #expect(result.out.contains("note: not given, so scaled to the trace's N = 200 replayed requests (before --warmup): --sample-every 2 (N/100; 4096 from 409600 requests on) and --warning-window 20 (N/10; 1000 from 10000 requests on); give the option to set it"), "\(result.out)")
        #expect(!result.out.contains("did not fit"))
        // 100 timeline samples plus one per warning.
        let timeline = try String(contentsOfFile: folder.path + "/t.csv", encoding: .utf8).split(separator: "\n")
        #expect(timeline.count == 1 + 100 + 3)
        // Given values are kept and nothing is said.
        let given = try bench(["run", "--trace", trace, "--backend", "nscache", "--capacity", "1000", "--memory-warning", "every:50",
                               "--warning-window", "1000", "--sample-every", "4096", "--csv", folder.path + "/g.csv"])
        #expect(given.status == 0 && !given.out.contains("scaled to the trace") && given.out.contains("did not fit"))
        #expect(try csvRows(folder.path + "/g.csv").first?["warning_window"] == "1000")
    }

    /// A real WebPageTest HAR of a few hundred requests: the window is a tenth of what it
    /// replays, so every warning's windows fit.
    @Test("a real HAR of a few hundred requests gets a warning reading",
          .enabled(if: FileManager.default.fileExists(atPath: shortSessionHAR), "needs a HAR of ../shared/data; absent in a clone without it"))
    func realHAR() throws {
        let folder = TemporaryFolder()
        let requests = try ShortTraceSampling.countRequests(try TraceFile(path: shortSessionHAR), httpMode: false)
        #expect(requests > 100 && requests < 1_000)
        // Three warnings, the last a window's length before the end, so every window fits.
        let result = try bench(["run", "--trace", shortSessionHAR, "--backend", "nscache,autopurge", "--capacity", "50MiB",
                                "--memory-warning", "every:\((requests - requests / 10) / 3)", "--csv", folder.path + "/r.csv"])
        #expect(result.status == 0, "\(result.err)")
        for row in try csvRows(folder.path + "/r.csv") {
            #expect(row["warning_window"] == String(requests / 10))
            #expect(row["hit_ratio_before_warnings"] != "" && row["hit_ratio_after_warnings"] != "")
            #expect(row["warning_hits_lost"] != "")
        }
        #expect(result.out.contains("--warning-window \(requests / 10) (N/10"))
        #expect(!result.out.contains("did not fit"))
    }

}
