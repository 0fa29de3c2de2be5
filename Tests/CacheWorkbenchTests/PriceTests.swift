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

/// Issue 21 §3: prices that hold up — URL sizes only where a convention says so, aspect-ratio
/// folders, decoded-below-encoded inferences rejected, and `bench price` to audit each price.
@Suite("Prices that hold up", .onTestWorkers)
struct PriceTests {
    @Test("a WxH segment is a size only in Thumbor's layout; a small ratio folder and a width give the height", arguments: [
        ("https://thumbor.example/unsafe/300x200/smart/img.example/a.jpg", 300, 200, "thumbor"),
        ("https://thumbor.example/unsafe/fit-in/320x240/smart/f.jpg", 320, 240, "thumbor-fit-in"),
        // signature (28 URL-safe base64 characters ending =), then meta, trim, crop, fit-in, a flipped size
        ("https://t.example/0123456789abcdefABCDEF_-xyz=/meta/trim/10x20:300x400/adaptive-full-fit-in/-640x480/smart/a.jpg", 640, 480, "thumbor-fit-in"),
        ("/unsafe/300x200/a.jpg", 300, 200, "thumbor"),
        ("https://news.example/images/16x9/1200/story.jpg", 1200, 675, "aspect-ratio"),
        ("https://news.example/images/4x3/640/story.jpg", 640, 480, "aspect-ratio"),
        ("https://news.example/images/1x1/100/story@2x.jpg", 200, 200, "aspect-ratio"),
        ("https://news.example/images/9x16/90/story.jpg", 90, 160, "aspect-ratio"),
    ] as [(String, Int, Int, String)])
    func conventions(url: String, width: Int, height: Int, rule: String) {
        expectInferredDimensions(url, width: width, height: height, rule: rule)
    }

    @Test("a WxH folder outside a documented convention states no size", arguments: [
        "https://cdn.example/300x200/star@3x.png",  // bare folder: no unsafe/signature before it
        "https://t.example/unsafe/fit-in/smart/640x480/a.jpg",  // smart comes after the size in Thumbor's layout
        "https://t.example/notasignature/300x200/a.jpg",
        "https://news.example/images/16x9/story.jpg",  // a ratio without a width
        "https://news.example/images/16x9/-1200/story.jpg",
        "https://news.example/images/33x9/1200/story.jpg",  // 33 is past the ratio terms (1…32)
        "https://gfx.example/image/19679280/90/fourByThree/35309ff782add/a.jpg",  // a named ratio: no documented convention
        // Issue 43's traps, seen on real sites: banner and social-card folders, a crop parameter.
        "https://news.example/img/980x240/a.jpg", "https://news.example/img/1200x630/a.jpg", "https://news.example/img/a.jpg?cac=0980x244",
        "https://news.example/images/16x9/story2024.jpg",  // the width-as-file-name spelling needs a whole number
    ])
    func noConvention(url: String) {
        #expect(ImageURLDimensions.infer(url) == nil, "\(String(describing: ImageURLDimensions.infer(url)))")
    }

    @Test("an inference decoding below the encoded size is rejected and the next rule tried")
    func rejection() {
        // photo-16x9.png: 16 × 9 × 4 = 576 decoded bytes < 5,000 encoded → rejected, no other rule.
        let logo = ImageURLDimensions.infer("https://blog.example/up/logo-16x9.png", encodedSize: 5000)
        #expect(logo.found == nil && logo.rejected.map { [$0.width, $0.height] } == [16, 9] && logo.rejected?.rule == .filename)
        // ?w=10&h=10 gives 400 < 1,000 → rejected; the file name's 300 × 200 (240,000) is next and holds.
        let both = ImageURLDimensions.infer("https://blog.example/up/photo-300x200.jpg?w=10&h=10", encodedSize: 1000)
        #expect(both.found.map { [$0.width, $0.height] } == [300, 200] && both.found?.rule == .filename && both.rejected?.rule == .query)
        // Exactly equal is plausible: 10 × 10 × 4 = 400.
        #expect(ImageURLDimensions.infer("https://x/a.jpg?w=10&h=10", encodedSize: 400).rejected == nil)
        #expect(ImageURLDimensions.infer("https://x/a.jpg?w=10&h=10", encodedSize: 401).found == nil)
        // The pricing rules fall through to --decoded-ratio, else the encoded size, and keep the rejection.
        let request = Request(time: 0, key: "https://blog.example/up/logo-16x9.png", size: 5000)
        let byRatio = PixelCostRules(decodedRatio: 8).price(of: request)
        #expect(byRatio.cost == 40_000 && byRatio.source == .ratio && byRatio.rejected?.rule == .filename)
        let byEncoded = PixelCostRules(estimate: nil).price(of: request)
        #expect(byEncoded.cost == 5000 && byEncoded.source == .encoded && byEncoded.rejected != nil)
        #expect(PixelCostRules(estimate: nil).cost(of: request) == (5000, .encoded))
        // By default the PNG estimate prices it (issue 43): 5,000 × 16 ÷ 3.8 = 21,052.6 → 21,053; central 42,106.
        #expect(PixelCostRules().cost(of: request) == (42_106, .estimate) && PixelCostRules().price(of: request).rejected != nil)
    }

    /// A HAR whose URLs carry aspect-ratio folders, with a Thumbor URL, a bare WxH folder and
    /// two sizes that decode below their encoded bytes. Hand-computed prices (width × height × 4):
    ///   a 16x9/1200 → 1200 × 675 → 3,240,000 (requested twice)   b 4x3/640 → 640 × 480 → 1,228,800
    ///   c 1x1/300 → 300 × 300 → 360,000   f Thumbor 320x240 → 307,200
    ///   d 16x9 without a width, e bare 300x200 folder: their encoded sizes 30,000 and 10,000
    ///   logo-16x9.png 576 < 5,000 and g ?w=100&h=50 20,000 < 30,000: rejected, encoded 5,000 and 30,000.
    static let entries: [(url: String, size: Int)] = [
        ("https://news.example/images/16x9/1200/a.jpg", 80000), ("https://news.example/images/4x3/640/b.jpg", 50000),
        ("https://news.example/images/1x1/300/c.jpg", 20000), ("https://news.example/images/16x9/1200/a.jpg", 80000),
        ("https://news.example/images/16x9/d.jpg", 30000), ("https://cdn.example/300x200/e.jpg", 10000),
        ("https://blog.example/up/logo-16x9.png", 5000), ("https://thumbor.example/unsafe/fit-in/320x240/smart/f.jpg", 15000),
        ("https://img.example/g.jpg?w=100&h=50", 30000),
    ]

    static func aspectRatioHAR(in folder: TemporaryFolder) -> String {
        let entries = Self.entries.enumerated().map { index, entry in
            #"{"startedDateTime":"2024-05-01T10:00:0\#(index).000Z","request":{"method":"GET","url":"\#(entry.url)","headers":[]},"response":{"status":200,"headers":[],"content":{"size":\#(entry.size),"mimeType":"image/jpeg"},"bodySize":\#(entry.size)}}"#
        }
        return folder.file("ratios.har", #"{"log":{"version":"1.2","creator":{"name":"test","version":"1"},"entries":[\#(entries.joined(separator: ","))]}}"#)
    }

    static let priceColumns = ["key", "requests", "rule", "url_rule", "width", "height", "encoded_bytes", "decoded_bytes",
                               "rejected_rule", "rejected_width", "rejected_height", "price_changed",
                               "estimate_type", "estimate_low_bytes", "estimate_high_bytes", "url_width", "url_width_rule"]

    /// `bench price --csv`'s rows by column, read quote-aware (URLs hold commas), header checked.
    static func priceRows(_ path: String) throws -> [[String: String]] {
        let table = try ResultsTable.parse(try String(contentsOfFile: path, encoding: .utf8), path: path, columns: priceColumns)
        return table.rows.map { Dictionary(uniqueKeysWithValues: zip(table.header, $0)) }
    }

    /// The listing's row for `key`, split on blanks: rule, width, height, encoded, decoded, requests, key, …
    static func row(_ table: String, _ key: String) -> [String] {
        let line = table.split(separator: "\n").first { $0.contains("  \(key)") } ?? ""
        return line.split(separator: " ").map(String.init)
    }

    @Test("bench price lists each unique image with its rule, dimensions, encoded and decoded cost (hand-computed)")
    func listing() throws {
        let folder = TemporaryFolder()
        let har = Self.aspectRatioHAR(in: folder)
        // --estimate off: this listing checks the URL rules and the encoded fallback (the
        // estimate that now precedes it: PriceEstimateTests).
        let result = try bench(["price", har, "--cost", "pixels", "--estimate", "off", "--csv", folder.path + "/p.csv"])
        #expect(result.status == 0, "\(result.err)")
        let out = result.out
        #expect(Self.row(out, "https://news.example/images/16x9/1200/a.jpg") == ["url:aspect-ratio", "1200", "675", "80000", "3240000", "2", "https://news.example/images/16x9/1200/a.jpg"])
        #expect(Self.row(out, "https://news.example/images/4x3/640/b.jpg").prefix(6) == ["url:aspect-ratio", "640", "480", "50000", "1228800", "1"])
        #expect(Self.row(out, "https://news.example/images/1x1/300/c.jpg").prefix(6) == ["url:aspect-ratio", "300", "300", "20000", "360000", "1"])
        #expect(Self.row(out, "https://news.example/images/16x9/d.jpg").prefix(6) == ["encoded", "-", "-", "30000", "30000", "1"])
        #expect(Self.row(out, "https://cdn.example/300x200/e.jpg").prefix(6) == ["encoded", "-", "-", "10000", "10000", "1"])
        #expect(Self.row(out, "https://thumbor.example/unsafe/fit-in/320x240/smart/f.jpg").prefix(6) == ["url:thumbor-fit-in", "320", "240", "15000", "307200", "1"])
        #expect(out.contains("https://blog.example/up/logo-16x9.png  (rejected filename 16x9: decoded 576 < encoded 5000)"))
        #expect(out.contains("https://img.example/g.jpg?w=100&h=50  (rejected query 100x50: decoded 20000 < encoded 30000)"))
        #expect(out.contains(": 8 unique objects in 9 requests, priced under --cost pixels (url=on;decoded-ratio=none;estimate=off)"))
        #expect(out.contains("objects by rule: url:thumbor-fit-in 1, url:aspect-ratio 3, encoded 4\n"))
        #expect(out.contains("requests by rule (a replay's cost_from_* columns): url:5,encoded:4\n"))
        // 80,000 + 50,000 + 20,000 + 30,000 + 10,000 + 5,000 + 15,000 + 30,000; decoded as listed above.
        #expect(out.contains("first-request totals: encoded 240000 bytes, decoded 5211000 bytes"))
        #expect(out.contains("rejected (decoded below encoded, so the size in the URL is not the image's): objects 2, requests 2"))

        let rows = try Self.priceRows(folder.path + "/p.csv")
        #expect(rows.count == 8)
        let a = rows.first { $0["key"] == "https://news.example/images/16x9/1200/a.jpg" }
        #expect(a?["requests"] == "2" && a?["rule"] == "url" && a?["url_rule"] == "aspect-ratio" && a?["width"] == "1200" && a?["height"] == "675")
        #expect(a?["encoded_bytes"] == "80000" && a?["decoded_bytes"] == "3240000" && a?["rejected_rule"] == "" && a?["price_changed"] == "false")
        let g = rows.first { $0["key"] == "https://img.example/g.jpg?w=100&h=50" }
        #expect(g?["rule"] == "encoded" && g?["width"] == "" && g?["decoded_bytes"] == "30000" && g?["rejected_rule"] == "query"
                && g?["rejected_width"] == "100" && g?["rejected_height"] == "50")

        // --decoded-ratio 8 prices the four encoded fallbacks at 8 × their size instead.
        let ratio = try bench(["price", har, "--decoded-ratio", "8"])
        #expect(Self.row(ratio.out, "https://blog.example/up/logo-16x9.png").prefix(6) == ["ratio", "-", "-", "5000", "40000", "1"])
        #expect(ratio.out.contains("requests by rule (a replay's cost_from_* columns): url:5,ratio:4\n"))
        // --infer-dimensions off: every request by its encoded size, nothing rejected.
        let off = try bench(["price", har, "--infer-dimensions", "off", "--estimate", "off"])
        #expect(off.out.contains("requests by rule (a replay's cost_from_* columns): encoded:9\n") && off.out.contains("URL inferences rejected (decoded below encoded): none"))
    }

    @Test("the price list's rule counts are the replay's cost_from_* and the table's note")
    func agreesWithReplay() throws {
        let folder = TemporaryFolder()
        let har = Self.aspectRatioHAR(in: folder)
        let run = try bench(["run", "--trace", har, "--backend", "lru,nscache", "--cost", "pixels", "--estimate", "off", "--capacity", "4MiB", "--csv", folder.path + "/r.csv"])
        #expect(run.status == 0, "\(run.err)")
        for row in try csvRows(folder.path + "/r.csv") {
            #expect(row["cost_from_url"] == "5" && row["cost_from_encoded"] == "4" && row["cost_from_ratio"] == "0" && row["cost_from_dimensions"] == "0")
        }
        // The fallback note does not claim the rejected URL sizes were absent.
        #expect(run.out.contains("4 of 9 requests had no dimensions (none in the trace, none in the URL that decodes to at least its encoded size; the decoded-size estimate is off)"))
        // One note for both rows, not one per row.
        // logo-16x9.png and g.jpg?w=100&h=50: two requests whose URL size was rejected.
        #expect(run.out.components(separatedBy: "pixel costs by rule, in requests: url:5,encoded:4; URL sizes rejected for decoding below the encoded bytes: 2 — every pixel-cost row (2)").count == 2, "\(run.out)")
        // The prices decide the outcome. Hand replay of LRU at 4 MiB (4,194,304): a (3,240,000)
        // then b (1,228,800) exceed it, so a is evicted before its second request: 0 hits.
        // Counterfactual with URL sizes off (encoded: 80,000 + 50,000 + 20,000 fit): 1 hit.
        let lru = try csvRows(folder.path + "/r.csv").first { $0["backend"] == "lru" }
        #expect(lru?["hits"] == "0")
        let encoded = try bench(["run", "--trace", har, "--backend", "lru", "--cost", "pixels", "--infer-dimensions", "off", "--estimate", "off", "--capacity", "4MiB", "--csv", folder.path + "/e.csv"])
        let encodedRows = try csvRows(folder.path + "/e.csv")
        #expect(encoded.status == 0 && encodedRows.first?["hits"] == "1")
    }

    @Test("bad options and traces: one line, exit 2", arguments: [
        (["--cost", "encoded"], "bench price audits pixel prices, so --cost must be pixels"),
        (["--decoded-ratio", "-1"], "--decoded-ratio"),
        (["--infer-dimensions", "maybe"], "--infer-dimensions must be url or off"),
    ])
    func errors(options: [String], message: String) throws {
        let folder = TemporaryFolder()
        let result = try bench(["price", Self.aspectRatioHAR(in: folder)] + options)
        #expect(result.status == 2 && result.err.hasPrefix("bench: error: ") && result.err.contains(message) && result.err.split(separator: "\n").count == 1, "\(result.err)")
        let empty = try bench(["price", Self.aspectRatioHAR(in: folder), "--status", "404"])
        #expect(empty.status == 0 && empty.out.contains("0 unique objects in 0 requests") && empty.out.contains("objects by rule: none\n"))
        let missing = try bench(["price", folder.path + "/absent.har"])
        #expect(missing.status == 2 && missing.err.split(separator: "\n").count == 1)
    }

    static let sharedHARs = SourceCheckout.root.deletingLastPathComponent().appendingPathComponent("shared/data/har").path
    static var haveSharedHARs: Bool { FileManager.default.fileExists(atPath: sharedHARs) }

    @Test("real HARs: every price holds up (no URL price below its encoded size) and the counts add up", .enabled(if: haveSharedHARs, "needs ../shared/data (the real HAR exports); absent in a clone without it"))
    func realHARs() throws {
        let folder = TemporaryFolder()
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.sharedHARs).filter { $0.hasSuffix(".har") }.sorted()
        #expect(names.count >= 5)
        for name in names {
            let csv = folder.path + "/\(name).csv"
            let result = try bench(["price", Self.sharedHARs + "/" + name, "--images-only", "--csv", csv])
            #expect(result.status == 0, "\(name): \(result.err)")
            let rows = try Self.priceRows(csv)
            for row in rows where row["rule"] == "url" {
                #expect(Int(row["decoded_bytes"]!)! >= Int(row["encoded_bytes"]!)!, "\(name): \(row)")
                #expect(Int(row["decoded_bytes"]!)! == Int(row["width"]!)! * Int(row["height"]!)! * 4, "\(name): \(row)")
            }
            let requests = rows.reduce(0) { $0 + Int($1["requests"]!)! }
            #expect(result.out.contains("\(rows.count) unique objects in \(requests) requests"), "\(name)")
        }
        // The news site's query-sized thumbnails (gfx.omni-cdn.se …?w=140&h=74) are read by the query rule.
        let news = try Self.priceRows(folder.path + "/webpagetest_aftonbladet_first_repeat.har.csv")
        #expect(news.contains { $0["url_rule"] == "query" && $0["width"] == "140" && $0["height"] == "74" })
        // Its 43-byte trans_1x1.gif decodes to 4 bytes: the file name's 1x1 is rejected, and the
        // GIF estimate prices it: 43 × 16 ÷ 6.7 = 102.69 → 103 at the low end, 206 central.
        #expect(news.contains { $0["key"]!.hasSuffix("/trans_1x1.gif") && $0["rule"] == "estimate" && $0["rejected_rule"] == "filename"
                                && $0["encoded_bytes"] == "43" && $0["decoded_bytes"] == "206" })
    }
}
