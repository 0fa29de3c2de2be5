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

/// Issue 21 §4 ("a reading that is right") and §9 ("charts that show everything they
/// claim"): `bench report`'s reading on crafted results CSVs, every sentence checked against
/// a hand computation written next to it.
@Suite("issue 21: the reading and the charts", .serialized, .onTestWorkers)
struct ReadingTests {
    /// The results columns these CSVs fill (a subset of RunResult's, in its order), then any extra.
    static let columns = ["run_id", "trace", "mode", "backend", "backend_options", "cost_model", "capacity_bytes", "requests", "hits",
                          "object_hit_ratio", "byte_hit_ratio", "write_amplification", "memory_warnings", "evictions", "status",
                          "working_set_bytes", "too_large", "timing", "seed", "hit_ratio_before_warnings", "hit_ratio_after_warnings",
                          "ignore_obj_size", "warmup_requests", "variant", "memory_hits", "disk_hits", "backend_remarks", "plan_id"]

    /// One row: `hits` of `requests` (the hit ratio is hits / requests), `evictions` evictions.
    static func row(_ backend: String, _ capacity: Int, requests: Int, hits: Int, evictions: Int, _ more: [String: String] = [:]) -> [String: String] {
        let ratio = String(Double(hits) / Double(requests))
        return ["run_id": "\(backend)-\(capacity)", "trace": "t.har", "mode": "demand-fill", "backend": backend, "cost_model": "encoded",
                "capacity_bytes": "\(capacity)", "requests": "\(requests)", "hits": "\(hits)", "object_hit_ratio": ratio, "byte_hit_ratio": ratio,
                "memory_warnings": "0", "evictions": "\(evictions)", "status": "ok", "working_set_bytes": "100000", "too_large": "0",
                "timing": "none", "seed": "1", "ignore_obj_size": "no", "warmup_requests": "0"].merging(more) { _, new in new }
    }

    static func csv(_ rows: [[String: String]], extra: [String] = [], in folder: TemporaryFolder, name: String = "r.csv") -> String {
        let header = columns + extra
        let lines = [header.joined(separator: ",")] + rows.map { row in header.map { CSVReport.escape(row[$0] ?? "") }.joined(separator: ",") }
        return folder.file(name, lines.joined(separator: "\n") + "\n")
    }

    /// Runs `script` (report.py or plot.py) as bench does, in a new staging folder: → (staging, status, out, err).
    static func script(_ script: String, out: (String) -> String, _ inputs: [String], timeline: String?,
                       in folder: TemporaryFolder) throws -> (staging: String, status: Int32, out: String, err: String) {
        try Trust2ReportTests.requirePython()
        let staging = folder.path + "/staging-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
        let options = ["--out=\(out(staging))"] + (timeline.map { ["--timeline=\($0)"] } ?? [])
        let result = try Trust2ReportTests.within(120, Trust2ReportTests.python, [Trust2ReportTests.scripts + "/" + script] + options + ["--"] + inputs,
                                                  environment: ["CWB_STAGING": staging])
        return (staging, result.status, result.out, result.err)
    }

    /// scripts/report.py on `inputs` → the page.
    static func page(_ inputs: [String], timeline: String? = nil, in folder: TemporaryFolder) throws -> String {
        let run = try script("report.py", out: { $0 + "/r.html" }, inputs, timeline: timeline, in: folder)
        try #require(run.status == 0, "\(run.err)")
        return try String(contentsOfFile: run.staging + "/r.html", encoding: .utf8)
    }

    /// The reading's sentences, in order.
    static func reading(_ page: String) throws -> [String] {
        let start = try #require(page.range(of: "<h2>Reading</h2><ul>"))
        let end = try #require(page.range(of: "</ul>", range: start.upperBound..<page.endIndex))
        return page[start.upperBound..<end.lowerBound].components(separatedBy: "</li>").filter { !$0.isEmpty }.map { String($0.dropFirst("<li>".count)) }
    }

    /// These CSVs have neither outcome_bits nor model_of (issue 43 §4): the unpaired fallback, said.
    static let rule = "Rule for every comparison below: this CSV has no per-request outcomes (no outcome_bits column: written before it), "
        + "so rows are not paired: two hit ratios differ only when the difference is larger than 1.96 standard errors of a "
        + "difference of two proportions, √(p₁(1−p₁)/n₁ + p₂(1−p₂)/n₂) over the requests replayed (95%); a smaller difference is a tie. "
        + "Rows are compared only within one cost model and one class (memory caches, two-tier caches, disk caches, policy simulators). "
        + "This CSV has no model_of column (written before it): policy simulators cannot be told from memory caches, so both are ranked as memory caches."

    @Test("21 §4: a 2-request difference over 337 requests is a tie, said with its uncertainty; 40 requests is a difference; the ceiling from the run that evicted nothing")
    func tiesAndCeiling() throws {
        let folder = TemporaryFolder()
        let rows = [
            Self.row("lru", 1024, requests: 337, hits: 170, evictions: 40), Self.row("fifo", 1024, requests: 337, hits: 168, evictions: 44),
            Self.row("lru", 2048, requests: 337, hits: 190, evictions: 3), Self.row("fifo", 2048, requests: 337, hits: 150, evictions: 10),
            Self.row("arc", 2048, requests: 337, hits: 188, evictions: 3),
            Self.row("lru", 4096, requests: 337, hits: 200, evictions: 0), Self.row("fifo", 4096, requests: 337, hits: 200, evictions: 0),
        ]
        let lines = try Self.reading(Self.page([Self.csv(rows, in: folder)], in: folder))
        // Ceiling: lru at 4KiB evicted nothing, so its 337 − 200 = 137 misses were all first requests: 200/337 = 59.35%.
        // 1KiB: p₁ = 170/337, p₂ = 168/337; difference 2/337 = 0.593 points; SE = √((0.504451·0.495549 + 0.498516·0.501484)/337)
        // = √(0.499978/337) = 0.0385177, × 1.96 = 7.55 points > 0.59: a tie. n for it to count: 3.8416 · 0.499978 / (2/337)² = 54,533.6 → 54,534.
        // 2KiB: lru 190/337 = 56.38%, arc 188/337 = 55.79% (margin √((0.245928 + 0.246650)/337) · 1.96 = 7.49 points: tied),
        // fifo 150/337 = 44.51%: 40/337 = 11.87 points against √((0.245928 + 0.246987)/337) · 1.96 = 7.50 points: below.
        #expect(lines == [
            "Ceiling of t.har: at most 59.35% of its 337 requests can hit (200 re-requests; 137 compulsory misses, first requests of their objects), "
                + "measured by lru at 4KiB, which evicted nothing.",
            Self.rule,
            "At 1KiB (encoded cost), among memory caches: <b>lru</b> and <b>fifo</b> are indistinguishable on this trace: hit ratios 49.85%–50.45%; "
                + "the largest difference, 0.59 points, is within its uncertainty (±7.55 points over 337 requests): too few requests to tell them apart "
                + "(about 54,534 each would be needed).",
            "At 2KiB (encoded cost), among memory caches: <b>lru</b> and <b>arc</b> lead with 55.79%–56.38%, indistinguishable from each other on this "
                + "trace (within ±7.49 points); the best, lru, is 11.87 points above fifo, more than the uncertainty (±7.50 points over 337 requests).",
            "At 4KiB (encoded cost), among memory caches: <b>fifo</b> and <b>lru</b> are indistinguishable on this trace: the same hit ratio, 59.35%.",
            "Knee of each curve — the smallest capacity measured within 1 point of the curve's best hit ratio (the plateau is the best measured, so a "
                + "sweep that stops early puts the knee at its end): lru: 4KiB (59.35%, plateau 59.35%, ceiling 59.35%); fifo: 4KiB (59.35%, plateau 59.35%, ceiling 59.35%).",
        ])
        #expect(!lines.joined().contains("best by") && !lines.joined().contains("0.0 points"))
    }

    @Test("21 §4: a trace with no reuse says nothing to size, and compares and sizes nothing; without a run that evicted nothing the ceiling is unknown")
    func noReuse() throws {
        let folder = TemporaryFolder()
        // 100 requests, 100 first requests: lru at 1KiB evicted nothing and hit nothing.
        let rows = [1024, 2048, 4096].map { Self.row("lru", $0, requests: 100, hits: 0, evictions: 0) } + [Self.row("fifo", 1024, requests: 100, hits: 0, evictions: 0)]
        #expect(try Self.reading(Self.page([Self.csv(rows, in: folder)], in: folder)) == [
            "No reuse in t.har: every one of its 100 requests asks for an object for the first time (measured by lru at 1KiB, which evicted nothing), "
                + "so no cache can hit: nothing to size.",
        ])
        // Every run evicted: the ceiling is not known, and said so.
        let evicting = [Self.row("lru", 1024, requests: 100, hits: 10, evictions: 5), Self.row("lru", 2048, requests: 100, hits: 20, evictions: 1)]
        let lines = try Self.reading(Self.page([Self.csv(evicting, in: folder, name: "e.csv")], in: folder))
        #expect(lines.first == "The ceiling of t.har (100 requests) is not known: no row records its compulsory misses and every run evicted, refused "
            + "or released something, so none shows which misses were compulsory (replay one capacity above the working set, or with a bench that "
            + "writes compulsory_misses, to measure it).")
        // A row that was refused objects (too_large) or was warned is no ceiling either.
        let refused = [Self.row("lru", 1024, requests: 100, hits: 10, evictions: 0, ["too_large": "3"]),
                       Self.row("fifo", 1024, requests: 100, hits: 12, evictions: 0, ["memory_warnings": "1"])]
        #expect(try Self.reading(Self.page([Self.csv(refused, in: folder, name: "f.csv")], in: folder)).first?.hasPrefix("The ceiling of t.har (100 requests) is not known") == true)
    }

    @Test("21 §4: the ceiling comes from the row's compulsory_misses and unique_objects, even when every run evicted")
    func ceilingFromColumns() throws {
        let folder = TemporaryFolder()
        let ceiling = ["unique_objects": "137", "compulsory_misses": "137"]
        // Every run evicted; the rows say 137 of the 337 requests were first requests: 200 / 337 = 59.35%.
        let rows = [Self.row("lru", 1024, requests: 337, hits: 170, evictions: 40, ceiling), Self.row("lru", 2048, requests: 337, hits: 190, evictions: 3, ceiling)]
        let lines = try Self.reading(Self.page([Self.csv(rows, extra: ["unique_objects", "compulsory_misses"], in: folder)], in: folder))
        #expect(lines.first == "Ceiling of t.har: at most 59.35% of its 337 requests can hit (200 re-requests; 137 compulsory misses, first requests of "
            + "their objects), the replay's compulsory_misses; 137 unique objects in the trace.")
        // After a warm-up the counted first requests are fewer than the trace's objects: 100 requests, 60 compulsory → 40%.
        let warmed = [Self.row("fifo", 1024, requests: 100, hits: 20, evictions: 9, ["unique_objects": "80", "compulsory_misses": "60", "warmup_requests": "30"])]
        #expect(try Self.reading(Self.page([Self.csv(warmed, extra: ["unique_objects", "compulsory_misses"], in: folder, name: "w.csv")], in: folder)).first
            == "Ceiling of t.har: at most 40.00% of its 100 requests can hit (40 re-requests; 60 compulsory misses, first requests of their objects), "
            + "the replay's compulsory_misses; 80 unique objects in the trace.")
        // No reuse, said from the columns though the run evicted.
        let none = [Self.row("lru", 1024, requests: 100, hits: 0, evictions: 90, ["unique_objects": "100", "compulsory_misses": "100"])]
        #expect(try Self.reading(Self.page([Self.csv(none, extra: ["unique_objects", "compulsory_misses"], in: folder, name: "n.csv")], in: folder))
            == ["No reuse in t.har: every one of its 100 requests asks for an object for the first time (the replay's compulsory_misses; 100 unique "
                + "objects in the trace), so no cache can hit: nothing to size."])
    }

    @Test("21 §4: like with like — tiers with tiers, disk with disk, memory with memory; foundation-nscache never ranked; one cost model per comparison")
    func likeWithLike() throws {
        let folder = TemporaryFolder()
        let tier = ["memory_hits": "300", "disk_hits": "600", "write_amplification": "1.0"]
        let rows = [
            // The tier hits far more than the memory caches: it is not "above" them, it is compared with the other tier.
            Self.row("lru", 1024, requests: 1000, hits: 400, evictions: 9), Self.row("fifo", 1024, requests: 1000, hits: 300, evictions: 9),
            Self.row("sdwebimage", 1024, requests: 1000, hits: 900, evictions: 9, tier), Self.row("nuke", 1024, requests: 1000, hits: 700, evictions: 9, tier),
            Self.row("foundation-nscache", 1024, requests: 1000, hits: 950, evictions: 9),
            Self.row("lru", 1024, requests: 1000, hits: 100, evictions: 9, ["cost_model": "pixels", "run_id": "p"]),
        ]
        let lines = try Self.reading(Self.page([Self.csv(rows, in: folder)], in: folder))
        // lru − fifo = 10 points; SE = √((0.4·0.6 + 0.3·0.7)/1000) = √0.00045 = 0.0212132, × 1.96 = 4.16 points.
        // sdwebimage − nuke = 20 points; SE = √((0.9·0.1 + 0.7·0.3)/1000) = √0.0003 = 0.0173205, × 1.96 = 3.39 points.
        let compared = lines.filter { $0.hasPrefix("At ") }
        #expect(compared == [
            "At 1KiB (encoded cost), among memory caches: <b>lru (encoded)</b> has the best hit ratio, 40.00%, 10.00 points above fifo (encoded), more than the "
                + "uncertainty (±4.16 points over 1,000 requests).",
            "At 1KiB (encoded cost), among two-tier caches: <b>sdwebimage (encoded)</b> has the best hit ratio, 90.00%, 20.00 points above nuke (encoded), more than "
                + "the uncertainty (±3.39 points over 1,000 requests).",
        ])
        #expect(lines.contains("foundation-nscache (encoded) at 1KiB: the Linux swift-corelibs-foundation NSCache, not Apple's: shown in the table, "
            + "never ranked as an iOS candidate."))
    }

    @Test("21 §4: rows of two traces are never compared with each other; each sentence names its trace")
    func tracesApart() throws {
        let folder = TemporaryFolder()
        // On a.har lru 400 vs fifo 300 of 1000 (10 points > ±4.16, as in likeWithLike); b.har's lru at 900 is not "above" a.har's.
        let rows = [Self.row("lru", 1024, requests: 1000, hits: 400, evictions: 9, ["trace": "a.har"]),
                    Self.row("fifo", 1024, requests: 1000, hits: 300, evictions: 9, ["trace": "a.har", "run_id": "f"]),
                    Self.row("lru", 1024, requests: 1000, hits: 900, evictions: 9, ["trace": "b.har", "run_id": "b"])]
        let compared = try Self.reading(Self.page([Self.csv(rows, in: folder)], in: folder)).filter { $0.hasPrefix("On ") }
        #expect(compared == ["On a.har: At 1KiB (encoded cost), among memory caches: <b>lru</b> has the best hit ratio, 40.00%, 10.00 points above fifo, "
            + "more than the uncertainty (±4.16 points over 1,000 requests)."])
    }

    @Test("21 §4, §8: wherever nscache is ranked, one merged note says it is a model of NSCache, whose limits are hints")
    func nscacheNote() throws {
        let folder = TemporaryFolder()
        let rows = [1024, 2048].flatMap { [Self.row("nscache", $0, requests: 100, hits: 10, evictions: 3), Self.row("lru", $0, requests: 100, hits: 11, evictions: 3)] }
        let lines = try Self.reading(Self.page([Self.csv(rows, in: folder)], in: folder))
        #expect(lines.last == "2 rows — nscache at 1KiB, nscache at 2KiB: nscache is modeled as an LRU with a hard cost limit; Apple's NSCache treats its "
            + "limits as hints (“not a strict limit”) and does not document its eviction order, so its ranking is the model's, not a measurement of NSCache.")
    }

    @Test("21 §4: memory warnings read from the counterfactual columns (cost, unaffected, decodes), 'not measured' without them, never the timeline gap")
    func warningCost() throws {
        let folder = TemporaryFolder()
        let warned = ["memory_warnings": "3"]
        let measured = [
            Self.row("lru", 1024, requests: 1000, hits: 500, evictions: 40, warned.merging(["warning_hits_lost": "39", "warning_recovery_requests": "120"]) { $1 }),
            Self.row("nuke", 1024, requests: 1000, hits: 500, evictions: 40,
                     warned.merging(["warning_hits_lost": "0", "warning_memory_hits_lost": "24", "memory_hits": "300", "disk_hits": "200"]) { $1 }),
            Self.row("fifo", 1024, requests: 1000, hits: 500, evictions: 40, warned.merging(["warning_hits_lost": "0"]) { $1 }),
            Self.row("arc", 1024, requests: 1000, hits: 500, evictions: 40, warned.merging(["warning_hits_lost": "0"]) { $1 }),
            Self.row("lfu", 1024, requests: 1000, hits: 500, evictions: 40, warned.merging(["warning_hits_lost": "-6", "warning_hits_lost_per_warning": "-2"]) { $1 }),
        ]
        let extra = ["warning_hits_lost", "warning_memory_hits_lost", "warning_hits_lost_per_warning", "warning_recovery_requests"]
        let lines = try Self.reading(Self.page([Self.csv(measured, extra: extra, in: folder)], in: folder))
        // 39 hits over 3 warnings = 13.0 each; fifo and arc lost none: one line for both.
        #expect(Array(lines.suffix(4)) == [
            "lru at 1KiB: 3 memory warnings cost 39 hits (13.0 per warning) against the same replay without warnings; recovery took 120 requests "
                + "(against the replay without warnings).",
            "nuke at 1KiB: 3 memory warnings cost no hits, but 24 memory hits became disk hits (decodes), against the same replay without warnings.",
            "2 rows — fifo at 1KiB, arc at 1KiB: unaffected by 3 memory warnings: the same hits as the same replay without warnings.",
            "lfu at 1KiB: 3 memory warnings gained 6 hits (2.0 per warning) against the same replay without warnings.",
        ])
        // A CSV from before the counterfactual: not measured, one line for the rows it covers, even with a timeline.
        let old = [Self.row("lru", 1024, requests: 1000, hits: 500, evictions: 40, warned), Self.row("fifo", 1024, requests: 1000, hits: 500, evictions: 40, warned)]
        var timeline = "run_id,backend,capacity_bytes,request_index,accounted_bytes,allocated_bytes,rss_bytes,window_hit_ratio,memory_warning\n"
        for index in stride(from: 0, to: 1000, by: 100) { timeline += "lru-1024,lru,1024,\(index),\(index),\(index),,\(index < 500 ? "0.6" : "0.2"),0\n" }
        timeline += "lru-1024,lru,1024,450,0,0,,,1\n"
        let page = try Self.page([Self.csv(old, in: folder, name: "old.csv")], timeline: folder.file("t.csv", timeline), in: folder)
        #expect(try Self.reading(page).last == "2 rows — lru at 1KiB, fifo at 1KiB: memory warnings: what they cost in hits was not measured "
            + "(this CSV has no warning_hits_lost column: no replay without warnings to compare with).")
        #expect(!page.contains("cost about") && !page.contains("hits each"))
    }

    @Test("21 §4: the configuration lists the command line, capacity units, warm-up, every backend's parameters and the pricing rules' counts; notes merged")
    func configurationAndNotes() throws {
        let folder = TemporaryFolder()
        let pixels = ["cost_model": "pixels", "cost_from_dimensions": "120", "cost_from_url": "30", "cost_from_ratio": "0", "cost_from_encoded": "5"]
        let rows = [
            Self.row("lru", 10, requests: 1000, hits: 500, evictions: 4, pixels.merging(["ignore_obj_size": "yes", "warmup_requests": "200",
                                                                                             "backend_remarks": "3 orphaned bodies removed"]) { $1 }),
            Self.row("autopurge", 10, requests: 1000, hits: 480, evictions: 4, pixels.merging(["ignore_obj_size": "yes", "warmup_requests": "200",
                "backend_options": "preferred=0.6", "backend_remarks": "5 orphaned bodies removed; 1 purge"]) { $1 }),
            Self.row("fifo", 20, requests: 1000, hits: 470, evictions: 4, pixels.merging(["ignore_obj_size": "yes", "warmup_requests": "200",
                                                                                              "backend_remarks": "2 orphaned bodies removed"]) { $1 }),
        ]
        let extra = ["cost_from_dimensions", "cost_from_url", "cost_from_ratio", "cost_from_encoded"]
        let page = try Self.page([Self.csv(rows, extra: extra, in: folder)], in: folder)
        #expect(page.contains("<tr><th>command line</th><td>not recorded in the results CSV</td></tr>"))
        #expect(page.contains("<tr><th>capacities in</th><td>objects (--ignore-obj-size: every object counts 1, whatever its size)</td></tr>"))
        #expect(page.contains("<tr><th>warm-up</th><td>200 requests replayed first and left out of the figures</td></tr>"))
        #expect(page.contains("<tr><th>backend parameters</th><td>lru: defaults; autopurge: preferred=0.6; fifo: defaults</td></tr>"))
        #expect(page.contains("<tr><th>pricing</th><td>pixels: requests priced 120 from the trace&#x27;s dimensions, 30 from URL rules, "
            + "0 by --decoded-ratio, 5 at their encoded size</td></tr>"))
        // With the command column: each distinct command line once (a sweep's rows share one).
        let commands = rows.map { $0.merging(["command": "bench run --trace 'my t.har' --backend lru,autopurge,fifo --ignore-obj-size"]) { $1 } }
        let commanded = try Self.page([Self.csv(commands, extra: extra + ["command"], in: folder, name: "c.csv")], in: folder)
        #expect(commanded.contains("<tr><th>command line</th><td>bench run --trace &#x27;my t.har&#x27; --backend lru,autopurge,fifo --ignore-obj-size</td></tr>"))
        // Demand-fill rows have no HTTP rules: no such line. HTTP rows: each backend's layers.
        #expect(!page.contains("HTTP rules by layer") && !commanded.contains("HTTP rules by layer"))
        let layered = [Self.row("afnetworking", 10, requests: 4, hits: 2, evictions: 0, ["mode": "http", "http_rules": "memory:none;disk:rfc9111"]),
                       Self.row("lru", 10, requests: 4, hits: 1, evictions: 0, ["mode": "http", "http_rules": "whole:rfc9111"])]
        let http = try Self.page([Self.csv(layered, extra: ["http_rules"], in: folder, name: "h.csv")], in: folder)
        #expect(http.contains("<tr><th>HTTP rules by layer</th><td>afnetworking: memory:none;disk:rfc9111; lru: whole:rfc9111</td></tr>"))
        // The same remark on three rows: one line naming them, with each row's count.
        let lines = try Self.reading(page)
        #expect(lines.contains("3 rows — lru at 10 objects (3), autopurge at 10 objects (5), fifo at 20 objects (2): orphaned bodies removed."))
        #expect(lines.contains("autopurge at 10 objects (1): purge."))
        #expect(lines.filter { $0.contains("orphaned") }.count == 1)
    }

    @Test("21 §4: the validator takes results CSVs with and without the warning columns, and refuses a bad cell in them as one line")
    func warningColumnsValidated() throws {
        let folder = TemporaryFolder()
        let bad = Self.csv([Self.row("lru", 1024, requests: 10, hits: 1, evictions: 1, ["warning_hits_lost": "many"])], extra: ["warning_hits_lost"], in: folder)
        let result = try Self.script("report.py", out: { $0 + "/r.html" }, [bad], timeline: nil, in: folder)
        #expect(result.status == 2 && result.err == "plot: error: \(bad):2: not a workbench results CSV (warning_hits_lost 'many' is not a number)\n")
    }

    /// scripts/plot.py on `inputs` → (printed, complaints).
    static func plot(_ inputs: [String], timeline: String? = nil, in folder: TemporaryFolder) throws -> (out: String, err: String) {
        let run = try script("plot.py", out: { $0 }, inputs, timeline: timeline, in: folder)
        try #require(run.status == 0, "\(run.err)")
        return (run.out.replacingOccurrences(of: run.staging + "/", with: ""), run.err)
    }

    @Test("21 §9: memory.png draws 30 runs and names the 3 it left out; hit_ratio.png draws each cost model in a panel of its own (issue 43 §5), leaving none out")
    func chartsSayWhatTheyLeaveOut() throws {
        let folder = TemporaryFolder()
        var timeline = "run_id,backend,capacity_bytes,request_index,accounted_bytes,allocated_bytes,rss_bytes,window_hit_ratio,memory_warning\n"
        for run in 0..<33 { for index in [0, 100, 200] { timeline += "run\(run),lru,1024,\(index),\(index),\(index),,0.5,0\n" } }
        let rows = [Self.row("lru", 1024, requests: 100, hits: 40, evictions: 1), Self.row("fifo", 1024, requests: 100, hits: 30, evictions: 1),
                    Self.row("lru", 1024, requests: 100, hits: 20, evictions: 1, ["cost_model": "pixels", "run_id": "p"])]
        let drawn = try Self.plot([Self.csv(rows, in: folder)], timeline: folder.file("t.csv", timeline), in: folder)
        #expect(drawn.out.split(separator: "\n").contains("memory.png") && drawn.out.split(separator: "\n").contains("hit_ratio.png"))
        #expect(drawn.err.contains("plot: skipped memory.png: 3 of 33 runs left out (it draws the first 30): run30, run31, run32\n"))
        // Two encoded rows and one pixels row: two panels, nothing left out.
        #expect(!drawn.err.contains("skipped hit_ratio.png"), "\(drawn.err)")
        let few = try Self.plot([Self.csv(rows, in: folder, name: "few.csv")], timeline: folder.file("t6.csv", timeline.split(separator: "\n").prefix(1 + 3 * 6).joined(separator: "\n") + "\n"), in: folder)
        #expect(!few.err.contains("memory.png"))
    }

    @Test("21 §9: what a disk figure rests on — the durability column's value, or 'durability not recorded' — in the reading and the charts' titles")
    func durabilityNamed() throws {
        let folder = TemporaryFolder()
        let disk = ["write_amplification": "1.5", "space_amplification": "1.25"]
        let unrecorded = try Self.reading(Self.page([Self.csv([Self.row("files", 4096, requests: 10, hits: 5, evictions: 1, disk)], extra: ["space_amplification"], in: folder)], in: folder))
        #expect(unrecorded.contains("files at 4KiB writes 1.50× the payload bytes it stores and keeps 1.25× the cached bytes on disk (durability not recorded)."))
        let recorded = Self.csv([Self.row("sqlite", 4096, requests: 10, hits: 5, evictions: 1, disk.merging(["durability": "full"]) { $1 })],
                                extra: ["space_amplification", "durability"], in: folder, name: "d.csv")
        #expect(try Self.reading(Self.page([recorded], in: folder)).contains(
            "sqlite at 4KiB writes 1.50× the payload bytes it stores and keeps 1.25× the cached bytes on disk (durability full)."))
        // The charts' titles use the same words (plot.durability_title, read from the same CSV).
        let program = "import sys; sys.path.insert(0, sys.argv[1]); import plot; print(plot.durability_title(plot.read(sys.argv[2])[1]))"
        let titled = try Trust2ReportTests.within(60, Trust2ReportTests.python, ["-c", program, Trust2ReportTests.scripts, recorded])
        #expect(titled.out == "durability full\n", "\(titled.err)")
    }
}
