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

/// Issue 9 §3: never a silently wrong or misleading answer.
@Suite("Honest answers", .serialized, .onTestWorkers)
struct HonestAnswerTests {
    // MARK: §3.1 pixel cost without dimensions

    @Test("image-CDN URL conventions give dimensions, each by its rule", arguments: [
        ("https://img.example/a.jpg?w=300&h=200", 300, 200, "query"),
        ("https://assets.imgix.net/p.jpg?width=400&height=100&dpr=2", 800, 200, "query"),
        ("https://res.cloudinary.com/demo/image/upload/w_300,h_200,c_fill/sample.jpg", 300, 200, "cloudinary"),
        ("https://res.cloudinary.com/demo/image/upload/c_fill,h_100,w_50,dpr_2.0/sample.jpg", 100, 200, "cloudinary"),
        ("https://thumbor.example/unsafe/300x200/smart/img.example/a.jpg", 300, 200, "thumbor"),
        ("https://thumbor.example/unsafe/-300x-200/a.jpg", 300, 200, "thumbor"),
        ("https://blog.example/wp-content/uploads/2024/01/photo-300x200.jpg", 300, 200, "filename"),
        ("https://cdn.example/icons/star_40x40@2x.png", 80, 80, "filename"),
        ("https://thumbor.example/unsafe/300x200/star@3x.png", 900, 600, "thumbor"),  // issue 21 §3: Thumbor's layout only
    ] as [(String, Int, Int, String)])
    func urlRules(url: String, width: Int, height: Int, rule: String) {
        expectInferredDimensions(url, width: width, height: height, rule: rule)
    }

    @Test("URLs without a stated size, or with implausible ones, give nothing", arguments: [
        "https://img.example/a.jpg", "https://img.example/a.jpg?w=300", "https://img.example/a.jpg?w=0&h=10",
        "https://img.example/a.jpg?w=1000000&h=10", "https://img.example/x/a@2x.png", "https://host:8080/a.jpg",
        "https://img.example/a.jpg?w=abc&h=10", "?", "", "/", "@2x", "a-1x.jpg",
    ])
    func urlNothing(url: String) {
        #expect(ImageURLDimensions.infer(url) == nil)
    }

    @Test("pixel cost rules in order: dimensions, URL, ratio, encoded fallback")
    func ruleOrder() {
        let rules = PixelCostRules(inferFromURL: true, decodedRatio: 6)
        #expect(rules.cost(of: Request(time: 0, key: "https://x/a.jpg?w=10&h=10", size: 5, width: 3, height: 3)) == (36, .dimensions))
        #expect(rules.cost(of: Request(time: 0, key: "https://x/a.jpg?w=10&h=10", size: 5)) == (400, .url))
        #expect(rules.cost(of: Request(time: 0, key: "https://x/a.jpg", size: 5)) == (30, .ratio))
        // A JPEG by its extension: the estimate, 5 × 16 ÷ 2.0 = 40 at the low end, 80 central (issue 43).
        #expect(PixelCostRules().cost(of: Request(time: 0, key: "https://x/a.jpg", size: 5)) == (80, .estimate))
        #expect(PixelCostRules(estimate: nil).cost(of: Request(time: 0, key: "https://x/a.jpg", size: 5)) == (5, .encoded))
        #expect(PixelCostRules(inferFromURL: false, estimate: nil).cost(of: Request(time: 0, key: "https://x/a.jpg?w=10&h=10", size: 5)) == (5, .encoded))
    }

    @Test("a run under pixel cost counts each rule in the CSV, in the table and on stderr")
    func fallbackReported() throws {
        let folder = TemporaryFolder()
        var text = "time,key,size\n"
        for index in 0..<40 { text += "\(index),https://cdn.example/\(index % 10).jpg\(index % 2 == 0 ? "?w=100&h=100" : ""),1000\n" }
        let trace = folder.file("t.csv", text)
        // --estimate off: the JPEGs' estimate (PriceEstimateTests) would price the 20 otherwise.
        let result = try bench(["run", "--trace", trace, "--backend", "nscache,lru", "--cost", "pixels", "--estimate", "off", "--capacity", "1MiB", "--csv", folder.path + "/r.csv"])
        #expect(result.status == 0, "\(result.err)")
        let rows = try csvRows(folder.path + "/r.csv")
        for row in rows {
            #expect(row["cost_from_url"] == "20" && row["cost_from_encoded"] == "20" && row["cost_from_dimensions"] == "0")
            #expect(row["pixel_rules"] == "url=on;decoded-ratio=none;estimate=off")
        }
        #expect(result.err.contains("bench: note: nscache at 1MiB: 20 of 40 requests had no dimensions"))
        // The same sentence for both rows is said once, after both (issue 24 §4).
        #expect(result.out.contains("note: 2 rows — nscache at 1MiB, lru at 1MiB: 20 of 40 requests had no dimensions"), "\(result.out)")
        let ratio = try bench(["run", "--trace", trace, "--backend", "lru", "--cost", "pixels", "--decoded-ratio", "8", "--capacity", "1MiB", "--csv", folder.path + "/q.csv"])
        // No fallback note; the one note may be that the trace's facts came from the cache (the run above read it).
        let ratioNotes = ratio.err.split(separator: "\n").filter { $0.hasPrefix("bench: note") && !$0.contains("from the trace facts cache of") }
        #expect(ratio.status == 0 && ratioNotes.isEmpty, "\(ratio.err)")
        #expect(try csvRows(folder.path + "/q.csv")[0]["cost_from_ratio"] == "20")
        let encoded = try bench(["run", "--trace", trace, "--backend", "lru", "--capacity", "1MiB", "--csv", folder.path + "/e.csv"])
        #expect(try csvRows(folder.path + "/e.csv")[0]["cost_from_encoded"] == "")  // not applicable under encoded cost
        #expect(encoded.status == 0)
    }

    // MARK: §3.2 keys are byte strings

    @Test("NUL inside keys: the same hits in every backend with the same policy")
    func nulKeys() throws {
        let folder = TemporaryFolder()
        var bytes = Array("time,key,size\n".utf8)
        for (index, key) in ["a\u{0}b", "a\u{0}c", "a\u{0}b", "a\u{0}c", "a"].enumerated() {
            bytes += Array("\(index),\(key),100\n".utf8)
        }
        let trace = folder.bytes("nul.csv", bytes)
        let result = try bench(["run", "--trace", trace, "--backend", "lru,nscache,autopurge-o1,files,sqlite", "--cost", "encoded",
                                "--capacity", "1MiB", "--csv", folder.path + "/r.csv"])
        #expect(result.status == 0, "\(result.err)")
        #expect(try csvRows(folder.path + "/r.csv").map { $0["hits"] } == ["2", "2", "2", "2", "2"])
    }

    @Test("keys that are not valid UTF-8 are refused, naming file and line")
    func invalidUTF8Keys() throws {
        let folder = TemporaryFolder()
        let trace = folder.bytes("bad.csv", Array("time,key,size\n0,".utf8) + [0xFF, 0xFE] + Array(",10\n".utf8))
        let result = try bench(["run", "--trace", trace, "--backend", "lru"])
        #expect(result.status == 2 && result.err.contains("bad.csv:2: key '\\xff\\xfe' is not valid UTF-8"), "\(result.err)")
    }

    // MARK: §3.3 hit and miss latency apart

    @Test("gets are timed as hits and misses apart; the table shows hit latency")
    func hitAndMissLatency() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", CLITests.handTrace)
        let result = try bench(["run", "--trace", trace, "--backend", "files", "--capacity", "10", "--csv", folder.path + "/r.csv"])
        #expect(result.status == 0, "\(result.err)")
        let row = try csvRows(folder.path + "/r.csv")[0]
        #expect(row["get_hits_timed"] == row["hits"] && row["get_misses_timed"] == row["misses"])
        #expect(Int(row["get_hit_p50_ns"] ?? "") != nil && Int(row["get_miss_p50_ns"] ?? "") != nil)
        #expect(result.out.contains("hit p50") && result.out.contains("miss p50"))
    }

    // MARK: §3.4 at: times are relative to the first request

    @Test("at:T counts from the first request, so epoch-stamped traces work")
    func relativeWarningTimes() throws {
        let requests = (0..<100).map { Request(time: 1_700_000_000 + Double($0), id: UInt64($0 % 10), size: 10) }
        var options = ReplayOptions()
        options.memoryWarnings = .at([30, 60])
        options.warningWindow = 5
        let tally = try replay(requests, backend: NSCacheLike(.init(totalCostLimit: 1_000)), capacity: 1_000, options: options)
        #expect(tally.warnings.map(\.requestIndex) == [30, 60])
    }

    // MARK: §3.5 sampling exactly where asked

    @Test("--sample-every below the reader's chunk samples exactly, and the end once")
    func exactSampling() throws {
        var options = ReplayOptions()
        options.timeline = true
        options.memorySampleInterval = 7
        let requests = (0..<100).map { Request(time: Double($0), id: UInt64($0 % 10), size: 10) }
        let tally = try replay(requests, backend: NSCacheLike(.init(totalCostLimit: 1_000)), capacity: 1_000, options: options)
        #expect(tally.timeline.map(\.requestIndex) == Array(stride(from: 7, through: 98, by: 7)) + [100])
        options.memorySampleInterval = 10
        let even = try replay(requests, backend: NSCacheLike(.init(totalCostLimit: 1_000)), capacity: 1_000, options: options)
        #expect(even.timeline.map(\.requestIndex) == Array(stride(from: 10, through: 100, by: 10)))
    }

    // MARK: §3.6 and §3.9 the table

    @Test("the table groups rows by cost model and says what figures rest on")
    func tableSaysSo() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", "time,key,size,width,height\n0,a,10,10,10\n1,b,5000,10,10\n2,a,10,10,10\n3,c,0,10,10\n")
        let result = try bench(["run", "--trace", trace, "--backend", "lru,nscache", "--capacity", "1000", "--memory-warning", "every:2", "--warning-window", "50"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("-- cost encoded:") && result.out.contains("-- cost pixels:"))
        #expect(result.out.contains("compare only within a group"))
        #expect(result.out.contains("too large") && result.out.contains("lru at 1000B: 1 request was for an object larger than the whole capacity, counted as a miss and not stored"))
        #expect(result.out.contains("the 50-request window did not fit"))
        // One cost model: no groups.
        let single = try bench(["run", "--trace", trace, "--backend", "lru,nscache", "--cost", "encoded"])
        #expect(!single.out.contains("-- cost"))
    }

    // MARK: §3.7 skipping a bad first row of a headerless format

    @Test("--skip-bad skips a bad first row in headerless formats", arguments: [
        ("twitter", "t.twitter", "bad\n0,a,1,10,1,get,0\n"), ("webcachesim", "t.tr", "x y z\n0 1 10\n"),
        ("csv", "t.csv", "0,a,-1\n1,b,10\n"), ("tencent", "t.txt", "bad\n20160201000000 a jpg 0 10 1 PC 10\n"),
    ])
    func skipFirstRow(format: String, name: String, text: String) throws {
        let folder = TemporaryFolder()
        let file = try TraceFile(path: folder.file(name, text), format: TraceFormat.named(format), skipBadRows: true)
        let loaded = try InMemoryTrace.load(file, keepKeyNames: true)
        #expect(loaded.requests.count == 1 && loaded.skippedRows == 1)
    }

    // MARK: §3.8 errors: one line, escaped, short; options for other formats refused

    @Test("error messages escape control bytes and cut long fields")
    func escapedErrors() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", "time,key,size\n0,a,\u{1B}[31mred\n")
        let result = try bench(["run", "--trace", trace, "--backend", "lru"])
        #expect(result.status == 2 && result.err.contains("\\x1b[31mred") && !result.err.contains("\u{1B}"))
        let long = folder.file("l.csv", "time,key,size\n0,a," + String(repeating: "9x", count: 5_000_000) + "\n")
        let longResult = try bench(["run", "--trace", long, "--backend", "lru"])
        #expect(longResult.status == 2 && longResult.err.utf8.count < 400, "\(longResult.err.utf8.count)")
        #expect(longResult.err.contains("(10000000 bytes)"))
    }

    @Test("plain text starting with BZh is not taken for bzip2")
    func notBzip2() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", "BZh,key,size\n")
        #expect(Compression.byMagic(Array("BZh,key,size\n".utf8)) == nil)
        #expect(Compression.byMagic([0x42, 0x5A, 0x68, 0x39, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59]) == .bzip2)
        let result = try bench(["stats", trace, "--format", "csv"])
        #expect(!result.err.contains("bzip2"), "\(result.err)")
    }

    @Test("reading options for another format are refused, not dropped", arguments: [
        ["--status", "200"], ["--columns", "key=1"], ["--images-only"], ["--delimiter", ";"],
    ])
    func foreignOptions(options: [String]) throws {
        let result = try bench(["run", "--backend", "lru"] + options)
        #expect(result.status == 2 && result.err.contains("applies to the"), "\(result.err)")
    }
}
