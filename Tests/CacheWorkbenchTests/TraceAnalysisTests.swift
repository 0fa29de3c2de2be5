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

/// `bench analyze` against hand computations, and against libCacheSim's traceAnalyzer
/// through figures it printed (literals below, so CI needs no binary).
@Suite("bench analyze", .onTestWorkers)
struct TraceAnalysisTests {
    /// time, id, size. Object 1 is requested at 0, 2 and 8 (its size changes 100 → 150 at 8),
    /// object 2 at 1 and 10, object 3 at 7.
    static let hand = "time,key,size\n0,1,100\n1,2,200\n2,1,100\n7,3,300\n8,1,150\n10,2,200\n"

    static func handAnalysis() throws -> TraceAnalysis {
        let folder = TemporaryFolder()
        return try TraceAnalysis.compute(TraceFile(path: folder.file("t.csv", hand)), window: 5, scanLength: 2)
    }

    @Test("every figure of a six-request trace, computed by hand")
    func handComputed() throws {
        let analysis = try Self.handAnalysis()
        #expect(analysis.requests == 6)
        #expect(analysis.objects == 3)
        // 100+200+100+300+150+200 requested; first sizes 100+200+300.
        #expect(analysis.requestBytes == 1050)
        #expect(analysis.objectBytes == 600)
        #expect(analysis.compulsoryMissRatio == 0.5)
        #expect(abs(analysis.byteCompulsoryMissRatio - 600.0 / 1050.0) < 1e-12)
        // Frequencies 3, 2, 1.
        #expect(analysis.xHit == [1, 1, 1, 0, 0, 0, 0, 0])
        #expect(analysis.mostPopular == [3, 2, 1])
        #expect(analysis.frequencyCounts == [1: 1, 2: 1, 3: 1])
        #expect(analysis.zipf == .failure(.tooFewObjects(3)))
        // Re-requests: 1 at t2 (2 s, 2 requests after, 1 object between: {2}); 1 at t8 (6 s,
        // 2 requests, {3}); 2 at t10 (9 s, 4 requests, {1, 3}). Seconds / 5 → 0, 1, 1;
        // log1.5 of 2, 2, 4 → 1, 1, 3; of distances 1, 1, 2 → 0, 0, 1.
        #expect(analysis.reuseSeconds == [0: 1, 1: 2])
        #expect(analysis.reuseRequests == [1: 2, 3: 1])
        #expect(analysis.reuseDistance == [0: 2, 1: 1])
        #expect(analysis.sizeRequests == [100: 2, 150: 1, 200: 2, 300: 1])
        #expect(analysis.sizeObjects == [100: 1, 200: 1, 300: 1])
        #expect(analysis.objectsWithSizeChange == 1)
        #expect(analysis.requestsWithSizeChange == 1)
        // Windows of 5 s, closed after counting the request that crosses the end (reqRate.cpp):
        // [t0 t1 t2 t7] then [t8 t10]; objects first seen in the window: 1,2,3 then 1,2.
        #expect(analysis.windows == [
            TraceWindow(start: 0, requests: 4, bytes: 700, objects: 3, newObjects: 3, complete: true),
            TraceWindow(start: 5, requests: 2, bytes: 350, objects: 2, newObjects: 0, complete: true),
        ])
        // New-object flags T T F T F F: one run of 2 (≥ 2), one of 1.
        #expect(analysis.scans == ScanSummary(minimumLength: 2, runs: 1, requestsInRuns: 2, longestRun: 2))
        #expect(analysis.endTime == 10)
    }

    @Test("the summary's sentences state the hand-computed figures")
    func text() throws {
        let text = try Self.handAnalysis().text(label: "t")
        #expect(text.contains("compulsory miss ratio 0.5000 of requests, 0.5714 of bytes"))
        #expect(text.contains("one-hit wonders       1 objects (0.3333 of objects)"))
        #expect(text.contains("X-hit (objects)       1:1 2:1 3:1 4:0"))
        // 4 and 2 requests in 5 s windows.
        #expect(text.contains("request rate          min 0.4000, max 0.8000 req/s over 2 complete 5 s windows"))
        #expect(text.contains("size changes          1 objects, 1 requests"))
        #expect(text.contains("scans                 1 runs of >= 2 requests to new objects (2 requests; longest run 2)"))
        #expect(text.contains("Zipf                  none: too few objects (3 < 200)"))
    }

    @Test("log-1.5 bins: every integer falls in the bin whose bounds hold it")
    func logBins() {
        #expect(LogBins.bin(1) == 0)
        #expect(LogBins.bin(2) == 1)
        #expect(LogBins.bin(3) == 2)
        #expect(LogBins.bin(4) == 3)
        for value in 1...100_000 {
            let bounds = LogBins.bounds(LogBins.bin(value))
            #expect(bounds.lower <= value && value < bounds.upperExclusive, "value \(value)")
        }
    }

    @Test("Zipf: fewer than 200 objects is refused with the reason; equal frequencies fit a flat line")
    func zipfFit() throws {
        #expect(ZipfFit.fit(frequencies: Array(repeating: 5, count: 199)) == .failure(.tooFewObjects(199)))
        // log(freq) is the same at every rank: slope 0, so α = 0 (up to rounding).
        let flat = try ZipfFit.fit(frequencies: Array(repeating: 5, count: 200)).get()
        #expect(abs(flat.alpha) < 1e-9)
        // The slope of a real trace is pinned by the traceAnalyzer literals below.
    }

    /// Figures libCacheSim's traceAnalyzer (libCacheSim-pypi-0.3.5 source, built with cmake,
    /// target traceAnalyzer) printed for the trace of
    /// `bench gen --requests 4000 --images 400 --seed 3 --rate 1 --keys id --plain --out s.csv`, from
    /// `traceAnalyzer s.csv csv -t "time-col=1,obj-id-col=2,obj-size-col=3,delimiter=,,has-header=false,obj-id-is-num=true" --common --reuse --size --reqRate --popularity`:
    /// stdout, s.csv.reuse and s.csv.reqRate_w300.
    @Test("equal to libCacheSim's traceAnalyzer on a generated trace (recorded figures)")
    func traceAnalyzerLiterals() throws {
        let folder = TemporaryFolder()
        let path = folder.path + "/s.csv"
        let generated = try bench(["gen", "--requests", "4000", "--images", "400", "--seed", "3", "--rate", "1", "--keys", "id", "--plain", "--out", path])
        #expect(generated.status == 0)
        let analysis = try TraceAnalysis.compute(TraceFile(path: path))
        let text = analysis.text(label: "s")
        // "number of requests: 4000, number of objects: 825"
        #expect(analysis.requests == 4000 && analysis.objects == 825)
        // "compulsory miss ratio (req/byte): 0.2062/0.2025"
        #expect(text.contains("compulsory miss ratio 0.2062 of requests, 0.2025 of bytes"))
        // "object size weighted by req/obj: 234473/230204"
        #expect(Int(analysis.requestBytes / 4000) == 234473 && Int(analysis.objectBytes / 825) == 230204)
        // "time span: 4056"
        #expect(analysis.endTime == 4056)
        // "popularity: Zipf alpha=0.9310, R2=0.9657"
        #expect(text.contains("alpha 0.9310, R² 0.9657"))
        // "X-hit (number of obj accessed X times): 293(0.3552), 193(0.2339), ..."
        #expect(analysis.xHit == [293, 193, 100, 61, 41, 31, 16, 14])
        #expect(analysis.mostPopular == [226, 165, 118, 96, 90, 84, 73, 67])
        // "request rate min 0.9067 req/s, max 1.0400 req/s" / "object rate min 0.5400 obj/s, max 0.6567 obj/s"
        #expect(text.contains("request rate          min 0.9067, max 1.0400 req/s over 13 complete 300 s windows"))
        #expect(text.contains("object rate           min 0.5400, max 0.6567 obj/s"))
        // s.csv.reqRate_w300, byte rate (bytes / 300, integer division).
        let byteRate = analysis.windows.filter(\.complete).map { Int($0.bytes / 300) }
        #expect(byteRate == [236474, 253146, 233078, 222616, 238645, 227486, 244715, 233994, 257154, 231935, 213386, 214181, 183189])
        // s.csv.reuse, reuse virtual time (log base 1.5); -1 holds the first requests (= objects).
        #expect(Self.cells(analysis.reuseRequests, first: analysis.objects) == Self.reuseVirtual)
        // s.csv.reuse, reuse real time (granularity 5).
        #expect(Self.cells(analysis.reuseSeconds, first: analysis.objects) == Self.reuseReal)
    }

    static func cells(_ histogram: [Int: Int], first: Int) -> String {
        var all = histogram
        all[-1] = first
        return all.keys.sorted().map { "\($0):\(all[$0]!)" }.joined(separator: " ")
    }

    static let reuseVirtual = "-1:825 0:43 1:32 2:49 3:75 4:77 5:126 6:151 7:142 8:213 9:208 10:233 11:244 12:248 13:257 14:232 15:267 16:212 17:176 18:116 19:70 20:4"
    static let reuseReal = """
        -1:825 0:170 1:179 2:124 3:119 4:90 5:83 6:94 7:64 8:50 9:61 10:52 11:37 12:36 13:41 14:44 15:39 16:37 17:33 18:33 19:31 20:31 21:32 22:30 23:28 24:22 25:25 26:19 27:21 28:21 29:24 30:12 31:22 32:26 33:23 34:18 35:22 36:14 37:13 38:11 39:15 40:10 41:13 42:14 43:20 44:13 45:21 46:7 47:15 48:22 49:15 50:21 51:12 52:7 53:9 54:12 55:5 56:7 57:10 58:19 59:10 60:10 61:4 62:9 63:6 64:5 65:11 66:14 67:11 68:3 69:5 70:8 71:7 72:10 73:8 74:8 75:5 76:9 77:11 78:12 79:4 80:6 81:3 82:9 83:9 84:10 85:6 86:4 87:4 88:7 89:10 90:4 91:5 92:4 93:9 94:5 95:5 96:3 97:5 98:9 99:12 100:9 101:11 102:14 103:4 104:8 105:4 106:5 107:7 108:4 109:6 110:9 111:5 112:3 113:4 114:4 115:9 116:4 117:12 118:3 119:7 120:2 121:3 122:6 123:2 124:3 125:5 126:6 127:5 128:4 129:7 130:7 131:8 132:2 133:3 134:8 135:9 136:4 137:6 138:6 139:4 140:3 141:3 142:5 143:3 144:3 145:4 146:4 147:5 148:6 149:3 150:5 151:5 152:3 153:2 154:7 155:5 156:1 157:5 158:4 159:2 160:4 161:2 162:2 163:4 164:1 165:5 166:5 167:4 168:1 169:2 170:2 172:3 173:1 174:3 175:2 177:3 178:3 179:4 180:2 181:5 182:2 183:2 184:3 185:1 186:4 187:1 188:4 189:3 190:3 191:4 193:2 194:2 195:2 196:2 197:3 198:1 199:1 200:3 201:2 202:3 203:5 205:6 207:2 208:4 209:1 210:1 211:2 213:3 214:1 215:3 216:1 217:2 218:4 219:3 220:1 221:4 222:1 223:1 224:1 225:1 226:1 227:2 228:2 229:4 230:1 231:2 232:2 233:3 234:2 235:1 236:3 238:2 239:1 240:4 241:3 242:2 243:3 244:2 246:1 247:1 248:3 249:2 250:3 251:1 252:2 253:3 255:3 256:1 258:2 259:2 260:1 261:1 262:4 264:2 265:1 266:2 269:4 271:2 272:1 273:3 274:2 277:2 278:1 279:3 281:3 282:1 284:3 285:4 286:2 287:1 288:2 289:1 290:1 291:3 292:2 294:4 295:2 297:1 298:1 299:1 300:2 302:3 304:3 305:3 306:1 308:1 310:3 312:1 313:2 315:1 316:2 320:2 321:1 322:3 323:3 324:2 325:1 326:1 327:1 329:1 331:2 332:1 333:1 334:1 335:2 336:1 338:1 340:1 343:1 344:2 345:1 346:5 348:1 352:2 353:1 355:3 356:1 357:1 364:1 366:3 368:1 369:1 370:1 371:1 374:1 375:2 376:1 380:2 385:2 386:3 388:1 392:1 394:1 395:1 396:1 399:1 400:1 403:1 404:2 406:1 408:2 414:1 415:1 416:1 417:1 419:2 420:1 422:1 424:2 426:1 427:1 428:1 435:1 436:2 437:2 440:1 451:1 454:1 455:1 457:1 458:1 459:1 461:2 462:1 466:1 467:1 469:1 470:1 471:1 477:1 479:1 481:1 482:1 485:1 486:3 487:1 489:1 490:1 492:1 493:1 497:1 498:1 501:1 505:1 506:1 512:1 513:1 516:1 524:1 526:1 527:2 530:1 540:1 548:1 549:1 552:1 556:1 559:1 560:1 569:2 572:1 573:1 575:1 584:2 586:1 588:1 590:2 592:1 594:2 599:1 601:1 607:1 608:2 611:1 613:1 654:1 677:1 686:1 713:1 724:1 741:1
        """

    @Test("CLI: --csv and --json carry the hand-computed figures; bad input and bad options are one line, exit 2")
    func cli() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", Self.hand)
        let result = try bench(["analyze", trace, "--window", "5", "--csv", folder.path + "/out", "--json", folder.path + "/a.json"])
        #expect(result.status == 0)
        #expect(result.out.contains("objects               3"))
        let summary = Dictionary(uniqueKeysWithValues: try csvRows(folder.path + "/out/summary.csv").map { ($0["figure"]!, $0["value"]!) })
        #expect(summary["requests"] == "6" && summary["objects"] == "3" && summary["one_hit_wonders"] == "1")
        #expect(summary["compulsory_miss_ratio"] == "0.5")
        let rate = try csvRows(folder.path + "/out/rate.csv")
        #expect(rate.map { $0["requests"]! } == ["4", "2"])
        let distance = try csvRows(folder.path + "/out/reuse_distance.csv")
        #expect(distance.map { [$0["bin"]!, $0["from_objects"]!, $0["to_objects"]!, $0["requests"]!] } == [["0", "1", "2", "2"], ["1", "2", "3", "1"]])
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.path + "/a.json"))) as! [String: Any]
        #expect(json["requests"] as? Int == 6)
        #expect((json["xhit"] as? [[String: Any]])?.first?["objects"] as? Int == 1)
        #expect(json["zipf_alpha"] is NSNull)

        let bad = folder.file("bad.csv", "time,key,size\n0,1,100\n1,2,notasize\n")
        let broken = try bench(["analyze", bad])
        #expect(broken.status == 2)
        #expect(broken.err.hasPrefix("bench: error: \(bad):3:"))
        #expect(broken.err.split(separator: "\n").count == 1)
        let window = try bench(["analyze", trace, "--window", "0"])
        #expect(window.status == 2)
        #expect(window.err == "bench: error: --window must be at least 1 second (got 0)\n")
        // 1e12 s at 1 s windows would be 1e12 rows: refused, not a hang.
        let far = folder.file("far.csv", "time,key,size\n0,1,100\n1000000000000,1,100\n")
        let span = try bench(["analyze", far, "--window", "1"])
        #expect(span.status == 2)
        #expect(span.err == "bench: error: --window 1: the trace spans 1000000000000 s, over 10000000 windows; give a longer --window\n")
    }

    @Test("bench plot given analyze's summary.csv draws the four analysis charts, and only those")
    func plot() throws {
        try #require(FileManager.default.isExecutableFile(atPath: SourceCheckout.root.path + "/.venv/bin/python"), "run scripts/bootstrap --python: it makes .venv with matplotlib")
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", Self.hand)
        #expect(try bench(["analyze", trace, "--window", "5", "--csv", folder.path + "/a"]).status == 0)
        let drawn = try bench(["plot", folder.path + "/a/summary.csv", "--out", folder.path + "/charts"])
        #expect(drawn.status == 0, "\(drawn.err)")
        let charts = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/charts").sorted()
        #expect(charts == ["analysis_decay.png", "analysis_popularity.png", "analysis_rate.png", "analysis_reuse.png", "analysis_size.png"])
    }

    @Test("hostile requests (times out of order, NaN, ±huge, size 0 and Int.max) end in figures or an error, never a trap")
    func hostile() throws {
        let times: [Double] = [5, 1, .nan, -1e30, 1e30, 3, 3, .infinity, 0]
        let requests = times.enumerated().map { index, time in
            Request(time: time, id: UInt64(index % 3), size: index % 2 == 0 ? 0 : Int.max)
        }
        // ±1e30 clamp to ±2e18 s: far more than 10M windows of 1e9 s, so refused.
        #expect(throws: WorkbenchError.self) { try TraceAnalysis.compute(requests: requests, window: 1_000_000_000) }
        let bounded = requests.filter { abs($0.time) < 1e6 || $0.time.isNaN }
        let analysis = try TraceAnalysis.compute(requests: bounded, window: 1)
        #expect(analysis.requests == bounded.count)
        #expect(analysis.windows.map(\.requests).reduce(0, +) == bounded.count)
    }

    /// Objects 1 and 2 come in the warm-up (10 s, 10 s windows); 3 and 4 first in window 1,
    /// 5 in window 3. Window 1 ends with 3 and 4 requested: row [2, 0] (the row before it, at
    /// the warm-up's end, is [0]); window 2 sees 3 again (twice, counted once): [1, 0, 0];
    /// window 3 is unfinished, so no row. traceAnalyzer printed `0,` / `2,0,` / `1,0,0,`.
    @Test("popularity decay by hand, equal to traceAnalyzer's rows; a warm-up that is not whole windows is refused")
    func popularityDecayByHand() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("d.csv", "0,1,10\n5,2,10\n12,3,10\n15,1,10\n18,4,10\n25,3,10\n26,3,10\n31,5,10\n")
        let analysis = try TraceAnalysis.compute(TraceFile(path: trace), window: 10, decayWarmup: 10)
        #expect(analysis.popularityDecay.rows == [[0], [2, 0], [1, 0, 0]])
        #expect(analysis.text(label: "d").contains("popularity decay      3 windows after a 10 s warm-up"))
        let table = try #require(analysis.tables(trace: "d").first { $0.name == "popularity_decay" })
        #expect(table.rows == [["0", "0", "0"], ["1", "0", "2"], ["1", "1", "0"], ["2", "0", "1"], ["2", "1", "0"], ["2", "2", "0"]])
        // traceAnalyzer's default warm-up, a day: nothing ends after it on this trace.
        #expect(try TraceAnalysis.compute(TraceFile(path: trace), window: 10).popularityDecay.rows.isEmpty)
        let refused = try bench(["analyze", trace, "--window", "10", "--decay-warmup", "15"])
        #expect(refused.status == 2 && refused.err == "bench: error: --decay-warmup must be 0 or more seconds and a multiple of --window (10), not 15\n")
    }

    /// `bench gen --requests 20000 --images 2000 --rate 2 --keys id --plain --seed 5` (9,908 s),
    /// 300 s windows after a 1,200 s warm-up: traceAnalyzer (libCacheSim dbf8423,
    /// `--popularityDacay --warmup-sec 1200 --time-window 300`) wrote 30 rows: the first four and
    /// the last are below, with the sum of all cells.
    @Test("popularity decay on a generated trace equals traceAnalyzer's rows (literals)")
    func popularityDecayAgainstTraceAnalyzer() throws {
        var spec = ImageFeedSpec()
        spec.requests = 20_000
        spec.images = 2_000
        spec.rate = 2
        spec.seed = 5
        spec.keys = .id
        let requests = Array(ImageFeedGenerator(spec: spec).requests())
        let decay = try TraceAnalysis.compute(requests: requests, window: 300, decayWarmup: 1_200).popularityDecay
        #expect(decay.rows.count == 30)
        #expect(Array(decay.rows.prefix(4)) == [[0], [202, 0], [21, 201, 0], [19, 14, 177, 0]])
        #expect(decay.rows.last == [16, 15, 12, 11, 8, 10, 7, 7, 4, 5, 9, 6, 8, 6, 2, 0, 3, 4, 4, 1, 2, 2, 2, 4, 2, 0, 3, 2, 47, 0])
        #expect(decay.rows.joined().reduce(0, +) == 5_755)
    }
}
