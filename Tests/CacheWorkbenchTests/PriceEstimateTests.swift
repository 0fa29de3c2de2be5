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

/// Issue 43 §2: prices where no dimension is written — the aspect-ratio folder with the width
/// as the file name, Thumbor's fit-in box, hashed icon file names, width-only URLs, and the
/// decoded-size estimate (low/central/high) before the encoded fallback, said where it decides.
/// Every expected value is a hand computation written next to it.
@Suite("Prices where no dimension is written", .onTestWorkers)
struct PriceEstimateTests {
    @Test("conventions: width as the file name after a ratio, fit-in boxes, versioned icon names", arguments: [
        // 160 × 9 / 16 = 90; 320 × 3 / 4 = 240; @2x doubles both: 320 × 180.
        ("https://news.example/img/16x9/160.jpg", 160, 90, "aspect-ratio"),
        ("https://news.example/img/4x3/320.jpg", 320, 240, "aspect-ratio"),
        ("https://news.example/img/16x9/160@2x.jpg", 320, 180, "aspect-ratio"),
        ("https://news.example/img/1x1/96.png", 96, 96, "aspect-ratio"),
        // the folder spelling still reads: 1200 × 9 / 16 = 675
        ("https://news.example/images/16x9/1200/story.jpg", 1200, 675, "aspect-ratio"),
        // Thumbor without unsafe/signature (url.py makes them optional): the fit-in box
        ("https://img.example/fit-in/300x200/https%3A%2F%2Fsrc.example%2Fa.jpg", 300, 200, "thumbor-fit-in"),
        ("https://img.example/thumbor/adaptive-full-fit-in/640x480/filters:quality(80)/a.jpg", 640, 480, "thumbor-fit-in"),
        ("https://thumbor.example/unsafe/fit-in/320x240/smart/f.jpg", 320, 240, "thumbor-fit-in"),
        ("https://thumbor.example/unsafe/300x200/smart/f.jpg", 300, 200, "thumbor"),
        // a content hash or version between the size and the extension
        ("https://site.example/static/icon-196x196.v503bbf1.png", 196, 196, "filename"),
        ("https://site.example/static/photo-300x200.55e7cbb9ba48.jpg", 300, 200, "filename"),
    ] as [(String, Int, Int, String)])
    func conventions(url: String, width: Int, height: Int, rule: String) {
        expectInferredDimensions(url, width: width, height: height, rule: rule)
    }

    @Test("the known traps state no size", arguments: [
        "https://news.example/img/16x9/story.jpg",  // a ratio with no width
        "https://news.example/img/16x9/",  // a ratio alone
        "https://news.example/img/980x240/a.jpg",  // a banner slot, not a ratio (terms past 32) and not Thumbor
        "https://news.example/img/1200x630/a.jpg",  // a social-card folder
        "https://news.example/img/a.jpg?cac=0980x244",  // a crop parameter, not w/h
        "https://news.example/img/4x3/2020-05.jpg",  // not a whole number
        "https://img.example/smart/fit-in/x/300x200/a.jpg",  // fit-in not directly before the size
        "https://site.example/static/photo-300x200.min.jpg",  // `min` has no digit: not a version
        "https://upload.wikimedia.org/wikipedia/en/9/9d/Commons-logo-31px.png",  // an original NAMED 31px, not a thumbnail
    ])
    func traps(url: String) {
        #expect(ImageURLDimensions.infer(url) == nil, "\(String(describing: ImageURLDimensions.infer(url)))")
    }

    @Test("the decoded-below-encoded rejection still holds for the new spellings")
    func rejection() {
        // 196 × 196 × 4 = 153,664 < 200,000 encoded: rejected, nothing else in the URL.
        let icon = ImageURLDimensions.infer("https://site.example/static/icon-196x196.v503bbf1.png", encodedSize: 200_000)
        #expect(icon.found == nil && icon.rejected.map { [$0.width, $0.height] } == [196, 196] && icon.rejected?.rule == .filename)
        // 160 × 90 × 4 = 57,600: 57,600 encoded holds, 57,601 is rejected.
        #expect(ImageURLDimensions.infer("https://n.example/16x9/160.jpg", encodedSize: 57_600).found?.rule == .aspectRatio)
        #expect(ImageURLDimensions.infer("https://n.example/16x9/160.jpg", encodedSize: 57_601).rejected?.rule == .aspectRatio)
    }

    @Test("width-only URLs give a width and no size", arguments: [
        ("https://cdn.example/images/a?w=300", 300, "query-width"),
        ("https://cdn.example/images/a?w=300&dpr=2", 600, "query-width"),
        ("https://upload.wikimedia.org/wikipedia/commons/thumb/3/35/Female_impala.jpg/300px-Female_impala.jpg", 300, "wikimedia"),
        ("https://upload.wikimedia.org/wikipedia/commons/thumb/a/ab/Doc.tif/lossy-page1-220px-Doc.tif.jpg", 220, "wikimedia"),
    ] as [(String, Int, String)])
    func widthOnly(url: String, width: Int, rule: String) {
        #expect(ImageURLDimensions.infer(url) == nil)
        let found = ImageURLDimensions.width(url)
        #expect(found.map { Int($0.width) } == width && found?.rule.rawValue == rule, "\(String(describing: found))")
    }

    @Test("a width with its height is a size, not a width-only URL; no thumb folder, no Wikimedia width")
    func notWidthOnly() {
        #expect(ImageURLDimensions.width("https://cdn.example/a?w=300&h=200") == nil)
        #expect(ImageURLDimensions.width("https://upload.wikimedia.org/wikipedia/en/9/9d/Commons-logo-31px.png") == nil)
        #expect(ImageURLDimensions.width("https://cdn.example/a?w=0") == nil)
        #expect(ImageURLDimensions.width("https://cdn.example/a?w=100001") == nil)
    }

    @Test("the estimate's low, central and high costs by format (hand-computed)", arguments: [
        // low = encoded × 8 ÷ (2 × median bpp) × 4 = encoded × 16 ÷ median; central = 2 × low; high = 4 × low
        (ImageType.jpeg, 10_000, 80_000),  // 10,000 × 16 ÷ 2.0
        (.png, 3_800, 16_000),  // 3,800 × 16 ÷ 3.8
        (.gif, 670, 1_600),  // 670 × 16 ÷ 6.7
        (.webp, 1_300, 16_000),  // 1,300 × 16 ÷ 1.3
        (.avif, 1_400, 16_000),  // 1,400 × 16 ÷ 1.4
        (.jpeg, 3, 24),  // 3 × 16 ÷ 2: a tiny file still decodes above its bytes
    ] as [(ImageType, Int, Int)])
    func estimateCosts(type: ImageType, encoded: Int, low: Int) {
        let range = DecodedSizeEstimate.costs(encoded: encoded, type: type)
        #expect(range == DecodedSizeEstimate.Range(low: low, central: 2 * low, high: 4 * low))
        #expect(range.map { $0.low >= encoded } == true)
    }

    @Test("HEIC and unknown formats are not estimated; huge sizes are capped, never trapped")
    func estimateLimits() {
        #expect(DecodedSizeEstimate.costs(encoded: 10_000, type: .heic) == nil)
        #expect(DecodedSizeEstimate.costs(encoded: 0, type: .jpeg) == nil)
        let huge = DecodedSizeEstimate.costs(encoded: SizeLimits.largestObject, type: .gif)
        #expect(huge?.high == SizeLimits.largestObject && huge?.low == SizeLimits.largestObject)
    }

    static func image(_ url: String, _ size: Int, mime: String? = "image/jpeg", width: UInt32 = 0, height: UInt32 = 0) -> Request {
        var request = Request(time: 0, key: url, size: size, width: width, height: height)
        request.http = mime.map { HTTPMetadata(method: "GET", status: 200, mimeType: $0, headers: [:]) }
        return request
    }

    @Test("the estimate is rule 4: after dimensions, URL sizes and ratios, before the encoded fallback")
    func ruleOrder() {
        let plain = Self.image("https://x.example/a", 10_000)
        // JPEG 10,000 B: central 160,000, low 80,000, high 320,000.
        #expect(PixelCostRules().price(of: plain).cost == 160_000 && PixelCostRules().price(of: plain).source == .estimate)
        #expect(PixelCostRules(estimate: .high).price(of: plain).cost == 320_000)
        #expect(PixelCostRules(estimate: .low).price(of: plain).cost == 80_000)
        #expect(PixelCostRules(estimate: nil).price(of: plain).source == .encoded && PixelCostRules(estimate: nil).price(of: plain).cost == 10_000)
        // The type from the URL's extension when there is no content type.
        #expect(PixelCostRules().price(of: Self.image("https://x.example/a.png", 3_800, mime: nil)).cost == 32_000)
        // Unknown format: the encoded fallback.
        #expect(PixelCostRules().price(of: Self.image("https://x.example/a", 500, mime: "image/x-icon")).source == .encoded)
        // Dimensions, a URL size and a ratio come first: 10 × 10 × 4 = 400; 16x9/160 = 57,600; 8 × 10,000.
        #expect(PixelCostRules().price(of: Self.image("https://x.example/a", 100, width: 10, height: 10)).cost == 400)
        #expect(PixelCostRules().price(of: Self.image("https://x.example/16x9/160.jpg", 3_000)).source == .url)
        #expect(PixelCostRules(decodedRatio: 8).price(of: plain).cost == 80_000 && PixelCostRules(decodedRatio: 8).price(of: plain).source == .ratio)
        // A URL size rejected (1 × 1 × 4 < 43) falls to the estimate, and the rejection is kept.
        let pixel = PixelCostRules().price(of: Self.image("https://x.example/trans_1x1.gif", 43, mime: "image/gif"))
        // 43 × 16 ÷ 6.7 = 102.69 → 103; central 206.
        #expect(pixel.source == .estimate && pixel.cost == 206 && pixel.rejected?.rule == .filename)
        // A width-only URL is priced by the estimate and carries its width.
        let wide = PixelCostRules().price(of: Self.image("https://x.example/a?w=300", 12_000))
        #expect(wide.source == .estimate && wide.cost == 192_000 && wide.statedWidth.map { Int($0.width) } == 300)
        #expect(PixelCostRules().description == "url=on;decoded-ratio=none;estimate=central")
        #expect(PixelCostRules(estimate: nil).description == "url=on;decoded-ratio=none;estimate=off")
    }

    /// A HAR of the issue's aspect-folder site, with the other spellings. Hand-computed prices:
    ///   a /16x9/160.jpg 3,000 B → 160 × 90 × 4 = 57,600 (requested twice)
    ///   b /4x3/320.jpg 9,000 B → 320 × 240 × 4 = 307,200
    ///   g /fit-in/300x200/ 20,000 B → 300 × 200 × 4 = 240,000 (an upper bound)
    ///   c ?w=300 JPEG 12,000 B → estimate 96,000 / 192,000 / 384,000; 192,000 ÷ 4 ÷ 300 = 160 px tall
    ///   d Wikimedia 220px- JPEG 5,000 B → 40,000 / 80,000 / 160,000; 80,000 ÷ 4 ÷ 220 = 90.9 → 91 px tall
    ///   e logo.png 3,800 B → 16,000 / 32,000 / 64,000
    ///   f favicon (image/x-icon) 1,000 B → not estimated: encoded 1,000
    static let aspectEntries: [(url: String, size: Int, mime: String)] = [
        ("https://news.example/img/16x9/160.jpg", 3_000, "image/jpeg"), ("https://news.example/img/4x3/320.jpg", 9_000, "image/jpeg"),
        ("https://news.example/img/16x9/160.jpg", 3_000, "image/jpeg"), ("https://img.example/fit-in/300x200/g.jpg", 20_000, "image/jpeg"),
        ("https://cdn.example/images/c?w=300", 12_000, "image/jpeg"),
        ("https://upload.wikimedia.org/wikipedia/commons/thumb/3/35/F.jpg/220px-F.jpg", 5_000, "image/jpeg"),
        ("https://news.example/static/logo.png", 3_800, "image/png"), ("https://news.example/favicon.ico", 1_000, "image/x-icon"),
    ]

    /// Four JPEGs, no dimensions anywhere: 10,000, 20,000, 5,000 B, the first requested twice.
    static let bareEntries: [(url: String, size: Int, mime: String)] = [
        ("https://news.example/a/b1", 10_000, "image/jpeg"), ("https://news.example/a/b2", 20_000, "image/jpeg"),
        ("https://news.example/a/b3", 5_000, "image/jpeg"), ("https://news.example/a/b1", 10_000, "image/jpeg"),
    ]

    static func har(_ entries: [(url: String, size: Int, mime: String)], in folder: TemporaryFolder, name: String) -> String {
        let items = entries.enumerated().map { index, entry in
            #"{"startedDateTime":"2024-05-01T10:00:\#(String(format: "%02d", index)).000Z","request":{"method":"GET","url":"\#(entry.url)","headers":[]},"response":{"status":200,"headers":[],"content":{"size":\#(entry.size),"mimeType":"\#(entry.mime)"},"bodySize":\#(entry.size)}}"#
        }
        return folder.file(name, #"{"log":{"version":"1.2","creator":{"name":"test","version":"1"},"entries":[\#(items.joined(separator: ","))]}}"#)
    }

    @Test("bench price on the aspect-folder HAR: rules, counts, the estimate's range and the widths (hand-computed)")
    func priceAspectFolders() throws {
        let folder = TemporaryFolder()
        let har = Self.har(Self.aspectEntries, in: folder, name: "aspect.har")
        let result = try bench(["price", har, "--csv", folder.path + "/p.csv"])
        #expect(result.status == 0, "\(result.err)")
        let out = result.out
        #expect(PriceTests.row(out, "https://news.example/img/16x9/160.jpg").prefix(6) == ["url:aspect-ratio", "160", "90", "3000", "57600", "2"])
        #expect(PriceTests.row(out, "https://news.example/img/4x3/320.jpg").prefix(6) == ["url:aspect-ratio", "320", "240", "9000", "307200", "1"])
        #expect(PriceTests.row(out, "https://img.example/fit-in/300x200/g.jpg").prefix(6) == ["url:thumbor-fit-in", "300", "200", "20000", "240000", "1"])
        #expect(PriceTests.row(out, "https://cdn.example/images/c?w=300").prefix(6) == ["estimate:jpeg", "-", "-", "12000", "192000", "1"])
        #expect(out.contains("https://cdn.example/images/c?w=300  (estimate 96000–384000 bytes; URL width 300 (query-width), no height: about 160 px tall at this price)"))
        #expect(out.contains("220px-F.jpg  (estimate 40000–160000 bytes; URL width 220 (wikimedia), no height: about 91 px tall at this price)"))
        #expect(PriceTests.row(out, "https://news.example/static/logo.png").prefix(6) == ["estimate:png", "-", "-", "3800", "32000", "1"])
        #expect(PriceTests.row(out, "https://news.example/favicon.ico").prefix(6) == ["encoded", "-", "-", "1000", "1000", "1"])
        #expect(out.contains("objects by rule: url:thumbor-fit-in 1, url:aspect-ratio 2, estimate:jpeg 2, estimate:png 1, encoded 1\n"), "\(out)")
        #expect(out.contains("requests by rule (a replay's cost_from_* columns): url:4,estimate:3,encoded:1\n"))
        // encoded 3,000 + 9,000 + 20,000 + 12,000 + 5,000 + 3,800 + 1,000 = 53,800;
        // decoded 57,600 + 307,200 + 240,000 + 192,000 + 80,000 + 32,000 + 1,000 = 909,800;
        // the estimated three at their low ends (96,000 + 40,000 + 16,000) and high ends (384,000 + 160,000 + 64,000).
        #expect(out.contains("first-request totals: encoded 53800 bytes, decoded 909800 bytes"))
        #expect(out.contains("objects 3, requests 3 (jpeg:2,png:1), priced at its central value; over its range (half to twice the central decoded size) the first-request decoded total is 757800 to 1213800 bytes"), "\(out)")
        #expect(out.contains("2 estimated objects state a width but no height in the URL (query-width 1, wikimedia 1)"))
        // 3 of 8 requests: not mostly estimates, so no such sentence.
        #expect(!out.contains("rest mostly on the estimate"))
        let rows = try PriceTests.priceRows(folder.path + "/p.csv")
        let c = rows.first { $0["key"] == "https://cdn.example/images/c?w=300" }
        #expect(c?["rule"] == "estimate" && c?["estimate_type"] == "jpeg" && c?["estimate_low_bytes"] == "96000" && c?["decoded_bytes"] == "192000"
                && c?["estimate_high_bytes"] == "384000" && c?["url_width"] == "300" && c?["url_width_rule"] == "query-width")
        // --estimate high prices the three at their high ends: 909,800 − 304,000 + 608,000 = 1,213,800.
        let high = try bench(["price", har, "--estimate", "high"])
        #expect(high.out.contains("decoded 1213800 bytes") && high.out.contains("priced at its high end"), "\(high.out)")
        // --estimate off: the three fall to their encoded sizes; 909,800 − 304,000 + 20,800 = 626,600.
        let off = try bench(["price", har, "--estimate", "off"])
        #expect(off.out.contains("requests by rule (a replay's cost_from_* columns): url:4,encoded:4\n") && off.out.contains("decoded 626600 bytes"))
    }

    @Test("bench price on a HAR without any dimension: everything estimated, and said so")
    func priceWithoutDimensions() throws {
        let folder = TemporaryFolder()
        let har = Self.har(Self.bareEntries, in: folder, name: "bare.har")
        let result = try bench(["price", har])
        #expect(result.status == 0, "\(result.err)")
        // central 16 × encoded: 160,000 + 320,000 + 80,000 = 560,000; low 280,000; high 1,120,000.
        #expect(result.out.contains("objects by rule: estimate:jpeg 3\n") && result.out.contains("requests by rule (a replay's cost_from_* columns): estimate:4\n"))
        #expect(result.out.contains("first-request totals: encoded 35000 bytes, decoded 560000 bytes"))
        #expect(result.out.contains("the first-request decoded total is 280000 to 1120000 bytes"))
        #expect(result.out.contains("These prices rest mostly on the estimate: 4 of 4 requests (100.00%) were priced by it"), "\(result.out)")
    }

    @Test("bad --estimate values: one line, exit 2; --estimate with --cost encoded is refused")
    func estimateErrors() throws {
        let folder = TemporaryFolder()
        let har = Self.har(Self.bareEntries, in: folder, name: "bare.har")
        let bad = try bench(["price", har, "--estimate", "middle"])
        #expect(bad.status == 2 && bad.err == "bench: error: --estimate must be central, low, high or off, not 'middle'\n", "\(bad.err)")
        let encoded = try bench(["run", "--trace", har, "--backend", "lru", "--capacity", "1MiB", "--cost", "encoded", "--estimate", "high"])
        #expect(encoded.status == 2 && encoded.err.contains("--estimate prices objects by pixels") && encoded.err.split(separator: "\n").count == 1, "\(encoded.err)")
    }

    /// Four JPEGs replayed in the order A B C A B D A C; central costs 16 × encoded:
    /// A 1,000 B → 16,000, B 2,000 → 32,000, C 3,000 → 48,000, D 1,000 → 16,000.
    /// LRU at 64,000 (hand replay): A, B miss (48,000); C misses and evicts A then B (48,000);
    /// A misses (64,000); B misses, evicts C (48,000); D misses (64,000); A hits; C misses,
    /// evicts B and D (64,000): 1 hit. At 128,000: A B C miss (96,000), A and B hit, D misses
    /// (112,000), A and C hit: 4 hits.
    static let lruEntries: [(url: String, size: Int, mime: String)] = ["A", "B", "C", "A", "B", "D", "A", "C"].map { name in
        ("https://s.example/\(name)", ["A": 1_000, "B": 2_000, "C": 3_000, "D": 1_000][name]!, "image/jpeg")
    }

    @Test("scale invariance: prices × 2 at capacity × 2 replay identically (the size range's claim)", arguments: ["lru", "nscache"])
    func scaleInvariance(backend: String) throws {
        #expect(DecodedSizeEstimate.scaleFreeBackends.contains(backend))
        let folder = TemporaryFolder()
        let har = Self.har(Self.lruEntries, in: folder, name: "lru.har")
        func hits(_ estimate: String, _ capacity: Int) throws -> String? {
            let csv = folder.path + "/\(backend)-\(estimate)-\(capacity).csv"
            let result = try bench(["run", "--trace", har, "--backend", backend, "--cost", "pixels", "--estimate", estimate,
                                    "--capacity", "\(capacity)B", "--no-timing", "--csv", csv])
            #expect(result.status == 0, "\(result.err)")
            return try csvRows(csv).first?["hits"]
        }
        #expect(try hits("central", 64_000) == "1")
        #expect(try hits("high", 128_000) == "1")
        #expect(try hits("low", 32_000) == "1")
        #expect(try hits("central", 128_000) == "4")
        #expect(try hits("high", 256_000) == "4")
        #expect(try hits("low", 64_000) == "4")
    }

    @Test("the table says when an answer rests mostly on estimates, and the CSV counts the rule")
    func tableSentence() throws {
        let folder = TemporaryFolder()
        let har = Self.har(Self.lruEntries, in: folder, name: "lru.har")
        let run = try bench(["run", "--trace", har, "--backend", "lru", "--cost", "pixels", "--capacity", "64000B", "--no-timing", "--csv", folder.path + "/r.csv"])
        #expect(run.status == 0, "\(run.err)")
        let row = try csvRows(folder.path + "/r.csv")[0]
        #expect(row["cost_from_estimate"] == "8" && row["cost_from_encoded"] == "0" && row["pixel_rules"] == "url=on;decoded-ratio=none;estimate=central")
        #expect(run.out.contains("this answer rests mostly on estimates — 8 of 8 requests were priced by the decoded-size estimate"), "\(run.out)")
        #expect(run.out.contains("every priced request was estimated, so this row's hits at capacity C are exactly those at 2C under prices twice as high"))
        #expect(run.err.contains("bench: note: lru at ") && run.err.contains(": this answer rests mostly on estimates — 8 of 8 requests"), "\(run.err)")
        #expect(run.out.contains("pixel costs by rule, in requests: estimate:8; estimate by format: jpeg:8, at its central value"))
        // Half estimated (4 of 8 by dimensions would not be "mostly"): a mixed HAR with the
        // aspect entries has 3 of 8 estimated: no sentence.
        let mixed = try bench(["run", "--trace", Self.har(Self.aspectEntries, in: folder, name: "aspect.har"), "--backend", "lru", "--cost", "pixels",
                               "--capacity", "1MiB", "--no-timing"])
        #expect(mixed.status == 0 && !mixed.out.contains("rests mostly on estimates"), "\(mixed.out)")
    }

    @Test("the report's reading: answers resting mostly on estimates say so; the knee's range only where it is exact")
    func readingSentences() throws {
        let folder = TemporaryFolder()
        let columns = ["pixel_rules", "cost_from_dimensions", "cost_from_url", "cost_from_ratio", "cost_from_encoded", "cost_from_estimate"]
        func pixels(_ dimensions: Int, _ estimate: Int, rules: String = "url=on;decoded-ratio=none;estimate=central") -> [String: String] {
            ["cost_model": "pixels", "pixel_rules": rules, "cost_from_dimensions": "\(dimensions)", "cost_from_url": "0", "cost_from_ratio": "0",
             "cost_from_encoded": "0", "cost_from_estimate": "\(estimate)"]
        }
        let mib = 1 << 20
        // lru: all 1,000 estimated, hits 10, 50, 55 of 1,000 at 1, 2, 4 MiB: plateau 5.5%, the knee the
        // smallest capacity within 1 point (≥ 4.5%): 2 MiB; over the range 1 MiB (low) to 4 MiB (high).
        // nscache: 900 of 1,000 estimated (mostly, not all): no range. fifo: all estimated, not scale-free.
        // sieve: 400 of 1,000 estimated: not mostly, no sentence.
        var rows: [[String: String]] = []
        for (backend, priced) in [("lru", pixels(0, 1000)), ("nscache", pixels(100, 900)), ("fifo", pixels(0, 1000)), ("sieve", pixels(600, 400))] {
            for (capacity, hits) in [(mib, 10), (2 * mib, 50), (4 * mib, 55)] {
                rows.append(ReadingTests.row(backend, capacity, requests: 1000, hits: hits, evictions: 5, priced))
            }
        }
        let lines = try ReadingTests.reading(try ReadingTests.page([ReadingTests.csv(rows, extra: columns, in: folder)], in: folder))
        let estimateLines = lines.filter { $0.contains("rests mostly on estimates") }
        #expect(estimateLines.count == 3, "\(lines)")
        let lead = "this answer rests mostly on estimates — "
        let why = " were priced by the decoded-size estimate (encoded bytes at the format\u{2019}s median bits per pixel, HTTP Archive 2024), whose decoded sizes could be half to twice those replayed."
        #expect(estimateLines.contains("lru: " + lead + "1,000 of 1,000 priced requests" + why
            + " Its knee, 2MiB at the estimate\u{2019}s central value, is 1MiB at its low end and 4MiB at its high end (exact: every request was estimated, and prices × 2 at capacity × 2 replay identically)."), "\(estimateLines)")
        #expect(estimateLines.contains("nscache: " + lead + "900 of 1,000 priced requests" + why
            + " No size range is computed for its knee, 2MiB (not every priced request was estimated): replay with --estimate low and --estimate high to see it move."))
        #expect(estimateLines.contains("fifo: " + lead + "1,000 of 1,000 priced requests" + why
            + " No size range is computed for its knee, 2MiB (fifo does not decide by cost ÷ capacity alone): replay with --estimate low and --estimate high to see it move."))
        #expect(!lines.contains { $0.hasPrefix("sieve: this answer") })
    }

    static let sharedHARs = PriceTests.sharedHARs

    @Test("real HARs without and with bodies: requests by rule", .enabled(if: PriceTests.haveSharedHARs, "needs ../shared/data (the real HAR exports)"))
    func realHARCounts() throws {
        // Counted by hand from the HARs' entries (see docs/price.md): aftonbladet has no bodies;
        // safari has its PNG bodies (dimensions).
        let news = try bench(["price", Self.sharedHARs + "/webpagetest_aftonbladet_first_repeat.har", "--images-only"])
        #expect(news.status == 0, "\(news.err)")
        #expect(news.out.contains(Self.newsRequestsByRule), "\(news.out)")
        let safari = try bench(["price", Self.sharedHARs + "/safari_webkit_with_content.har", "--images-only"])
        #expect(safari.status == 0, "\(safari.err)")
        #expect(safari.out.contains(Self.safariRequestsByRule), "\(safari.out)")
    }

    /// aftonbladet's first view, 96 image requests with a size (the default view): 8 by URL — 6
    /// `?w=…&h=…` (gfx.omni-cdn.se 140×74 × 3, images.svd-cdn.se × 3) and 2 file names
    /// (`morgonTvLogo_84x29.png`: 9,744 ≥ 3,566; `plus_41x16.png`: 2,624 ≥ 2,536); 2 of no
    /// estimated format (`hierta.svg`, `favicon.ico`); the other 86 (60 JPEG, 6 PNG, 20 GIF,
    /// the three `?w=300` among them) by the estimate.
    static let newsRequestsByRule = "requests by rule (a replay's cost_from_* columns): url:8,estimate:86,encoded:2\n"
    /// safari's 4 PNGs have bodies: all 4 by their dimensions, nothing estimated.
    static let safariRequestsByRule = "requests by rule (a replay's cost_from_* columns): dimensions:4\n"
}
