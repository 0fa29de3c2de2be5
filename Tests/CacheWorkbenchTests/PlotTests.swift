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

/// Issue 11 §4: `bench plot` draws real PNGs from a small run, sweep and timeline.
@Suite("bench plot", .serialized, .onTestWorkers)
struct PlotTests {
    static func isPNG(_ path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: path), data.count > 1_000 else { return false }
        return Array(data.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    }

    @Test("charts from a sweep, a timed run with warnings and its timeline: every chart they allow, each a valid PNG; the staging folder is gone")
    func charts() throws {
        try #require(FileManager.default.isExecutableFile(atPath: SourceCheckout.root.path + "/.venv/bin/python"), "run scripts/bootstrap --python: it makes .venv with matplotlib")
        let folder = TemporaryFolder()
        let sweep = try bench(["sweep", "--backend", "lru,sieve,arc", "--capacity", "2%..50%", "--points", "4", "--no-timing", "--csv", folder.path + "/sweep.csv"])
        #expect(sweep.status == 0)
        // The timed run on the bundled trace's first 10,000 requests (files' writes of all 50,000 took most of
        // this test's time in a debug build); every chart needs its rows, not the whole trace.
        let prefix = try DefaultTracePrefix.write(requests: 10_000, into: folder)
        let run = try bench(["run", "--trace", prefix, "--backend", "lru,autopurge,files", "--capacity", "32MiB", "--memory-warning", "every:4000",
                             "--csv", folder.path + "/run.csv", "--timeline", folder.path + "/timeline.csv"])
        #expect(run.status == 0)
        let out = folder.path + "/charts"
        let plot = try bench(["plot", folder.path + "/sweep.csv", folder.path + "/run.csv", "--timeline", folder.path + "/timeline.csv", "--out", out])
        #expect(plot.status == 0, "\(plot.err)")
        let charts = ["mrc.png", "hit_ratio.png", "latency.png", "disk.png", "memory.png", "miss_ratio_time.png"]
        for name in charts { #expect(Self.isPNG(out + "/" + name), "\(name)") }
        let expected = charts + ["plot_colors.json"]
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: out)) == Set(expected))
        #expect(plot.out.split(separator: "\n").count == expected.count)
    }

    @Test("a chart the inputs do not allow is named as skipped; bad inputs are one line and exit 2")
    func refusals() throws {
        try #require(FileManager.default.isExecutableFile(atPath: SourceCheckout.root.path + "/.venv/bin/python"), "run scripts/bootstrap --python: it makes .venv with matplotlib")
        let folder = TemporaryFolder()
        let run = try bench(["run", "--backend", "lru", "--capacity", "32MiB", "--no-timing", "--csv", folder.path + "/one.csv"])
        #expect(run.status == 0)
        let plot = try bench(["plot", folder.path + "/one.csv", "--out", folder.path + "/charts"])
        #expect(plot.status == 0 && plot.err.contains("skipped mrc.png: no backend has two or more capacities") && plot.err.contains("skipped latency.png"))
        // A skipped chart is named as the file it would have been.
        let pdf = try bench(["plot", folder.path + "/one.csv", "--out", folder.path + "/pdfs", "--format", "pdf"])
        #expect(pdf.status == 0 && pdf.err.contains("skipped latency.pdf: no latency columns") && pdf.err.contains("skipped disk.pdf: no disk backend rows") && !pdf.err.contains(".png"), "\(pdf.err)")
        let bad = folder.file("bad.csv", "a,b\n1,2\n")
        let notOurs = try bench(["plot", bad, "--out", folder.path + "/charts"])
        #expect(notOurs.status == 2 && notOurs.err == "bench: error: \(bad):1: not a workbench CSV (its columns match none of results, mrc, similar-keys, blob-size, timeline)\n")
        let intoFile = try bench(["plot", folder.path + "/one.csv", "--out", bad])
        #expect(intoFile.status == 2 && intoFile.err.contains("exists and is not a folder"))
        let none = try bench(["plot", folder.path + "/missing.csv", "--out", folder.path + "/charts"])
        #expect(none.status == 2 && none.err.contains("missing.csv: cannot read it"))
    }

    /// Issue 22 §6: a sweep of lru, fifo and belady plus a run with a timeline, the inputs of the tests below.
    static func policyInputs(in folder: TemporaryFolder) throws -> [String] {
        let sweep = try bench(["sweep", "--backend", "lru,fifo,belady", "--capacity", "2%..40%", "--points", "3", "--no-timing", "--csv", folder.path + "/sweep.csv"])
        #expect(sweep.status == 0, "\(sweep.err)")
        let run = try bench(["run", "--backend", "lru,fifo,belady", "--capacity", "5%", "--no-timing", "--csv", folder.path + "/run.csv",
                             "--timeline", folder.path + "/timeline.csv"])
        #expect(run.status == 0, "\(run.err)")
        return [folder.path + "/sweep.csv", folder.path + "/run.csv", "--timeline", folder.path + "/timeline.csv"]
    }

    @Test("--format png, pdf and svg each write valid files of that type; the paper style's PDFs embed TrueType (Type 42) fonts, no Type 3")
    func formats() throws {
        try #require(FileManager.default.isExecutableFile(atPath: SourceCheckout.root.path + "/.venv/bin/python"), "run scripts/bootstrap --python: it makes .venv with matplotlib")
        let folder = TemporaryFolder()
        let inputs = try Self.policyInputs(in: folder)
        let charts = ["mrc", "hit_ratio", "memory", "miss_ratio_time"]
        for format in ["png", "pdf", "svg"] {
            let out = folder.path + "/" + format
            let plot = try bench(["plot"] + inputs + ["--format", format, "--style", "paper", "--dpi", "150", "--out", out])
            #expect(plot.status == 0, "\(plot.err)")
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: out)) == Set(charts.map { $0 + "." + format } + ["plot_colors.json"]))
            for chart in charts {
                let data = try #require(FileManager.default.contents(atPath: out + "/" + chart + "." + format))
                switch format {
                case "png": #expect(Self.isPNG(out + "/" + chart + ".png"), "\(chart)")
                case "pdf":
                    let text = String(decoding: data, as: UTF8.self)
                    #expect(data.starts(with: Array("%PDF-".utf8)) && text.contains("%%EOF"), "\(chart)")
                    #expect(text.contains("/FontFile2") && !text.contains("/Subtype /Type3") && text.contains("DejaVuSerif"), "\(chart): fonts")
                default:
                    let text = String(decoding: data, as: UTF8.self)
                    #expect(text.hasPrefix("<?xml") && text.contains("<svg") && text.hasSuffix("</svg>\n"), "\(chart)")
                }
            }
        }
        let badDPI = try bench(["plot"] + inputs + ["--dpi", "5000", "--out", folder.path + "/x"])
        #expect(badDPI.status == 2 && badDPI.err == "bench: error: --dpi 5000: outside 50…600\n")
        let badFormat = try bench(["plot"] + inputs + ["--format", "jpg", "--out", folder.path + "/x"])
        #expect(badFormat.status == 2 && badFormat.err == "bench: error: --format jpg: not a chart format; use png, pdf, svg\n")
    }

    @Test("one colour per series in every chart (its backend's, from the name: lru blue #1f77b4, fifo gold #e7ba52; belady, an offline bound, gray); --only keeps the named series; an unknown name lists those the inputs have")
    func colorsAndOnly() throws {
        try #require(FileManager.default.isExecutableFile(atPath: SourceCheckout.root.path + "/.venv/bin/python"), "run scripts/bootstrap --python: it makes .venv with matplotlib")
        let folder = TemporaryFolder()
        let inputs = try Self.policyInputs(in: folder)
        let out = folder.path + "/svg"
        let plot = try bench(["plot"] + inputs + ["--format", "svg", "--out", out])
        #expect(plot.status == 0, "\(plot.err)")
        // From plot_style's table (docs/plot.md): lru is the 1st known backend (#1f77b4), fifo the 14th (#e7ba52); belady's gray is its own.
        let colors = try JSONSerialization.jsonObject(with: try #require(FileManager.default.contents(atPath: out + "/plot_colors.json"))) as? [String: String]
        #expect(colors == ["fifo": "#e7ba52", "lru": "#1f77b4", "belady": "#555555"])
        for chart in ["mrc.svg", "hit_ratio.svg", "miss_ratio_time.svg"] {
            let text = String(decoding: try #require(FileManager.default.contents(atPath: out + "/" + chart)), as: UTF8.self)
            for color in ["#1f77b4", "#e7ba52", "#555555"] { #expect(text.contains(color), "\(chart) draws \(color)") }
        }
        let only = try bench(["plot"] + inputs + ["--only", "lru,belady", "--format", "svg", "--out", folder.path + "/only"])
        #expect(only.status == 0, "\(only.err)")
        let kept = try JSONSerialization.jsonObject(with: try #require(FileManager.default.contents(atPath: folder.path + "/only/plot_colors.json"))) as? [String: String]
        #expect(kept == ["lru": "#1f77b4", "belady": "#555555"])
        let mrc = String(decoding: try #require(FileManager.default.contents(atPath: folder.path + "/only/mrc.svg")), as: UTF8.self)
        #expect(!mrc.contains("#e7ba52"), "fifo is not drawn")
        let unknown = try bench(["plot"] + inputs + ["--only", "lru,nope", "--out", folder.path + "/bad"])
        #expect(unknown.status == 2 && unknown.err == "bench: error: --only: no series named nope in the inputs; they have: belady, fifo, lru\n")
    }

    @Test("a curves file of several policies (bench mrc --policy lru,s3fifo) draws one series per policy")
    func severalCurves() throws {
        try #require(FileManager.default.isExecutableFile(atPath: SourceCheckout.root.path + "/.venv/bin/python"), "run scripts/bootstrap --python: it makes .venv with matplotlib")
        let folder = TemporaryFolder()
        let csv = folder.path + "/curves.csv"
        let curves = try bench(["mrc", "--policy", "lru,s3fifo", "--points", "4", "--csv", csv])
        #expect(curves.status == 0, "\(curves.err)")
        let plot = try bench(["plot", csv, "--format", "svg", "--out", folder.path + "/svg"])
        #expect(plot.status == 0, "\(plot.err)")
        let colors = try JSONSerialization.jsonObject(with: try #require(FileManager.default.contents(atPath: folder.path + "/svg/plot_colors.json"))) as? [String: String]
        #expect(Set(colors?.keys ?? [:].keys) == ["lru (mattson)", "s3fifo (replay)"], "\(String(describing: colors))")
        let only = try bench(["plot", csv, "--only", "s3fifo", "--format", "svg", "--out", folder.path + "/only"])
        #expect(only.status == 0, "\(only.err)")
        let kept = try JSONSerialization.jsonObject(with: try #require(FileManager.default.contents(atPath: folder.path + "/only/plot_colors.json"))) as? [String: String]
        #expect(Set(kept?.keys ?? [:].keys) == ["s3fifo (replay)"])
    }

    // MARK: issue 43 §5: charts that show every row

    /// scripts/plot.py run as bench runs it (a new staging folder), with `--record=drawn.json`:
    /// → (status, err, what each chart drew and left out, the colours, the folder drawn into).
    static func recorded(_ inputs: [String], timeline: String? = nil, options: [String] = [], in folder: TemporaryFolder) throws
        -> (status: Int32, err: String, drawn: [String: [String: Any]], colors: [String: String], staging: String) {
        try Trust2ReportTests.requirePython()
        let staging = folder.path + "/staging-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
        let arguments = [Trust2ReportTests.scripts + "/plot.py", "--out=\(staging)", "--record=drawn.json", "--bounds=belady,beladysize,pfoo-l"]
            + (timeline.map { ["--timeline=\($0)"] } ?? []) + options + ["--"] + inputs
        let run = try Trust2ReportTests.within(180, Trust2ReportTests.python, arguments, environment: ["CWB_STAGING": staging])
        let drawn = (FileManager.default.contents(atPath: staging + "/drawn.json")).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: [String: Any]] } ?? [:]
        let colors = (FileManager.default.contents(atPath: staging + "/plot_colors.json")).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: String] } ?? [:]
        return (run.status, run.err, drawn, colors, staging)
    }

    static let mib16 = 16 * 1_048_576, mib64 = 64 * 1_048_576

    /// The issue's 14 rows: lru (encoded), nscache and autopurge (pixels), the two-tier presets
    /// sdwebimage and kingfisher (pixels; memory and disk hits, a disk write amplification),
    /// files and sqlite (encoded, disk) at 16 and 64 MiB, every row timed.
    static func fourteenRows() -> [[String: String]] {
        let kinds: [(String, String, [String: String])] = [
            ("lru", "encoded", [:]), ("nscache", "pixels", [:]), ("autopurge", "pixels", [:]),
            ("sdwebimage", "pixels", ["memory_hits": "17", "disk_hits": "873", "write_amplification": "1.0", "space_amplification": "1.01"]),
            ("kingfisher", "pixels", ["memory_hits": "17", "disk_hits": "873", "write_amplification": "1.0", "space_amplification": "1.01"]),
            ("files", "encoded", ["write_amplification": "1.0", "space_amplification": "1.01"]),
            ("sqlite", "encoded", ["write_amplification": "1.2", "space_amplification": "1.02"])]
        var rows: [[String: String]] = []
        for capacity in [mib16, mib64] {
            for (index, (backend, model, more)) in kinds.enumerated() {
                let hits = backend.hasPrefix("sdweb") || backend == "kingfisher" ? 890 : 100 + 50 * index + (capacity == mib64 ? 200 : 0)
                rows.append(ReadingTests.row(backend, capacity, requests: 1000, hits: hits, evictions: 5,
                                             more.merging(["cost_model": model, "get_hit_p50_ns": "\(300 + index)", "get_hit_p99_ns": "\(900 + index)"]) { $1 }))
            }
        }
        return rows
    }

    /// A timeline of the 14 runs (run_id = ReadingTests.row's `backend-capacity`), three windows
    /// each; sdwebimage and kingfisher answer alike, so their lines coincide.
    static func fourteenTimeline(in folder: TemporaryFolder) -> String {
        var text = "run_id,backend,capacity_bytes,request_index,accounted_bytes,allocated_bytes,rss_bytes,window_hit_ratio,memory_warning\n"
        for capacity in [mib16, mib64] {
            for (index, backend) in ["lru", "nscache", "autopurge", "sdwebimage", "kingfisher", "files", "sqlite"].enumerated() {
                for window in 1...3 {
                    let ratio = backend == "sdwebimage" || backend == "kingfisher" ? 0.3 * Double(window) : 0.05 * Double(index + window)
                    text += "\(backend)-\(capacity),\(backend),\(capacity),\(100 * window),\(1000 * window),\(1100 * window),,\(ratio),0\n"
                }
            }
        }
        return folder.file("timeline14.csv", text)
    }

    static func strings(_ value: Any?) -> [String] { value as? [String] ?? [] }

    /// JSON numbers as Doubles (JSONSerialization may give an integral one as an Int).
    static func numbers(_ value: Any?) -> [Double] {
        (value as? [Any] ?? []).compactMap { ($0 as? Double) ?? ($0 as? Int).map(Double.init) }
    }

    @Test("43 §5: on the issue's 14 rows every chart draws every row: latency 14 of 14 (one panel per capacity), disk 8 of 8 (both capacities), hit_ratio 14 in four panels (two-tier presets apart from memory caches, one cost model each), memory and miss_ratio_time 14 runs; nothing left out; the coinciding kingfisher lines are said so")
    func everyRowDrawn() throws {
        let folder = TemporaryFolder()
        let csv = ReadingTests.csv(Self.fourteenRows(), extra: ["get_hit_p50_ns", "get_hit_p99_ns", "space_amplification"], in: folder)
        let run = try Self.recorded([csv], timeline: Self.fourteenTimeline(in: folder), in: folder)
        #expect(run.status == 0, "\(run.err)")
        // Hand counts: 7 backends × 2 capacities; disk rows are those with a write amplification (4 backends × 2).
        #expect(Self.strings(run.drawn["latency"]?["drawn"]).count == 14)
        #expect((run.drawn["latency"]?["panels"] as? [String: [String]])?.mapValues(\.count) == ["at 16MiB": 7, "at 64MiB": 7])
        #expect(Self.strings(run.drawn["disk"]?["drawn"]) == ["files (encoded) at 16MiB", "kingfisher (pixels) at 16MiB", "sdwebimage (pixels) at 16MiB",
                                                              "sqlite (encoded) at 16MiB", "files (encoded) at 64MiB", "kingfisher (pixels) at 64MiB",
                                                              "sdwebimage (pixels) at 64MiB", "sqlite (encoded) at 64MiB"])
        let panels = (run.drawn["hit_ratio"]?["panels"] as? [String: [String]]) ?? [:]
        #expect(panels.mapValues(\.count) == ["memory caches (encoded cost)": 2, "memory caches (pixels cost)": 4,
                                              "two-tier caches (pixels cost)": 4, "disk caches (encoded cost)": 4])
        #expect(Set(panels["two-tier caches (pixels cost)"] ?? []) == ["sdwebimage (pixels) at 16MiB", "kingfisher (pixels) at 16MiB",
                                                                       "sdwebimage (pixels) at 64MiB", "kingfisher (pixels) at 64MiB"])
        #expect(Self.strings(run.drawn["memory"]?["drawn"]).count == 14)
        #expect(Self.strings(run.drawn["miss_ratio_time"]?["drawn"]).count == 14)
        #expect((run.drawn["miss_ratio_time"]?["panels"] as? [String: [String]])?.mapValues(\.count) == ["at 16MiB": 7, "at 64MiB": 7])
        #expect(Self.strings(run.drawn["miss_ratio_time"]?["coincide"]) == ["kingfisher at 16MiB = sdwebimage at 16MiB", "kingfisher at 64MiB = sdwebimage at 64MiB"])
        for chart in ["latency", "disk", "hit_ratio", "memory", "miss_ratio_time", "mrc"] {
            let leftOut = Self.strings(run.drawn[chart]?["left_out"])
            #expect(leftOut.isEmpty, "\(chart): \(run.drawn[chart] ?? [:])")
        }
        #expect(!run.err.contains("skipped"), "\(run.err)")
    }

    @Test("43 §5: a part left out is named with the reason, in the record and as a skipped line: a row without timing (latency), a repeated backend and capacity (disk)")
    func leftOutNamed() throws {
        let folder = TemporaryFolder()
        var rows = Self.fourteenRows()
        rows.append(ReadingTests.row("lru", 256 * 1_048_576, requests: 1000, hits: 500, evictions: 5, ["cost_model": "encoded", "run_id": "untimed"]))
        rows.append(rows[5].merging(["run_id": "again", "trace": "u.har"]) { $1 })  // files at 16 MiB once more, another trace
        let csv = ReadingTests.csv(rows, extra: ["get_hit_p50_ns", "get_hit_p99_ns", "space_amplification"], in: folder)
        let run = try Self.recorded([csv], in: folder)
        #expect(run.status == 0, "\(run.err)")
        let latencyLeftOut = Self.strings(run.drawn["latency"]?["left_out"])
        #expect(latencyLeftOut.contains("1 row without timing: lru (encoded) at 256MiB"), "\(run.drawn["latency"] ?? [:])")
        #expect(Self.strings(run.drawn["latency"]?["drawn"]).count == 14)
        #expect(run.err.contains("plot: skipped latency.png: 1 row without timing: lru (encoded) at 256MiB\n"), "\(run.err)")
        #expect(Self.strings(run.drawn["disk"]?["left_out"]) == ["1 row repeating a backend and capacity already drawn (another trace or a repeat)"])
        #expect(Self.strings(run.drawn["disk"]?["drawn"]).count == 8)
    }

    @Test("43 §5: one colour per backend from its name alone: the same in plot_colors.json whatever other backends a run has, in every chart's SVG and in the report's table")
    func oneColourPerBackend() throws {
        let folder = TemporaryFolder()
        let csv = ReadingTests.csv(Self.fourteenRows(), extra: ["get_hit_p50_ns", "get_hit_p99_ns", "space_amplification"], in: folder)
        // plot_style's table (docs/plot.md): lru, nscache, autopurge, autopurge-o1, files, sqlite, sdwebimage, kingfisher take the palette in order.
        let expected = ["lru (encoded)": "#1f77b4", "nscache (pixels)": "#ff7f0e", "autopurge (pixels)": "#2ca02c", "files (encoded)": "#8c564b",
                        "sqlite (encoded)": "#e377c2", "sdwebimage (pixels)": "#bcbd22", "kingfisher (pixels)": "#17becf"]
        let all = try Self.recorded([csv], options: ["--format=svg"], in: folder)
        #expect(all.status == 0 && all.colors == expected, "\(all.err) \(all.colors)")
        // Each chart draws its rows in those colours: every backend in latency and hit_ratio, the disk rows in disk.
        let disk: Set = ["files (encoded)", "sqlite (encoded)", "sdwebimage (pixels)", "kingfisher (pixels)"]
        for (chart, labels) in [("latency.svg", Set(expected.keys)), ("hit_ratio.svg", Set(expected.keys)), ("disk.svg", disk)] {
            let text = String(decoding: try #require(FileManager.default.contents(atPath: all.staging + "/" + chart)), as: UTF8.self)
            for label in labels { #expect(text.contains(expected[label] ?? "?"), "\(chart) draws \(label)") }
        }
        // Two of them alone (one cost model, so no suffix): the same colours, not the first two of a palette.
        let two = ReadingTests.csv([ReadingTests.row("files", Self.mib16, requests: 10, hits: 5, evictions: 1, ["write_amplification": "1.0"]),
                                    ReadingTests.row("kingfisher", Self.mib16, requests: 10, hits: 6, evictions: 1, ["memory_hits": "1", "disk_hits": "5", "write_amplification": "1.0"])],
                                   in: folder, name: "two.csv")
        let pair = try Self.recorded([two], in: folder)
        #expect(pair.status == 0 && pair.colors == ["files": "#8c564b", "kingfisher": "#17becf"], "\(pair.err) \(pair.colors)")
        // The report's table: each backend's name after a square of its colour.
        let page = try ReadingTests.page([csv], in: folder)
        for (label, color) in expected {
            #expect(page.contains("<span class='swatch' style='background:\(color)'></span>\(label)</td>"), "\(label)")
        }
    }

    /// The width a PNG was drawn at, in inches: its IHDR width over the dpi it was drawn with.
    static func pngInches(_ path: String, dpi: Double) -> Double? {
        guard let data = FileManager.default.contents(atPath: path), data.count > 24 else { return nil }
        let width = data[16..<20].reduce(0) { $0 << 8 | Int($1) }
        return Double(width) / dpi
    }

    @Test("45 §5: --style paper fits its page: with 43 series (40 policies, 3 offline) at 5 capacities, mrc and hit_ratio at most 3.5 in wide (--columns 1) or 7.16 in (--columns 2), from the PNG's own width; the key in as many columns as fit; what hit_ratio leaves out said on the console; a chart wider than the page said with its width; --columns without the paper style or of 3 is one line, exit 2")
    func paperWidths() throws {
        let folder = TemporaryFolder()
        let policies = ["lru", "fifo", "clock", "sieve", "s3fifo", "arc", "lfu", "2q", "slru", "wtinylfu", "lirs", "lfuda", "gdsf", "lruk", "mq",
                        "clock2qplus", "sfifo", "s3lru", "qdlp", "car", "flashprob", "s3fifod", "fifomerge", "mru", "size", "random", "randomtwo",
                        "lruprob", "hyperbolic", "lecar", "cacheus", "crlfu", "clockpro", "lhd", "randomlru", "fiforeinsertion", "glcache", "lrb",
                        "3lcache", "lfucpp", "belady", "beladysize", "pfoo-l"]
        var rows: [[String: String]] = []
        var random = SeededRandom(seed: 45)
        for backend in policies {
            for capacity in [1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20] {
                rows.append(ReadingTests.row(backend, capacity, requests: 1000, hits: 100 + Int(random.next() % 700), evictions: 1, ["run_id": "\(backend)-\(capacity)"]))
            }
        }
        let sweep = ReadingTests.csv(rows, in: folder, name: "many.csv")
        for (columns, width) in [(1, 3.5), (2, 7.16)] {
            let paper = try Self.recorded([sweep], options: ["--style=paper", "--columns=\(columns)", "--dpi=100"], in: folder)
            #expect(paper.status == 0, "\(paper.err)")
            for chart in ["mrc", "hit_ratio"] {
                let inches = try #require(Self.pngInches(paper.staging + "/\(chart).png", dpi: 100))
                // 0.05 in: a pixel's rounding at 100 dpi and the 0.02 in pad.
                #expect(inches <= width + 0.05 && inches > width - 0.6, "\(chart) --columns \(columns): \(inches) in")
                #expect(paper.drawn[chart]?["too_wide"] == nil, "\(chart)")
            }
            // Five capacities: hit_ratio draws one and says the others, on the console, never in the figure.
            let leftOut = Self.strings(paper.drawn["hit_ratio"]?["left_out"])
            #expect(leftOut.count == 2 && leftOut.allSatisfy { paper.err.contains("plot: skipped hit_ratio.png: " + $0) }, "\(leftOut) \(paper.err)")
            let legend = Self.strings(paper.drawn["mrc"]?["legend"])
            #expect(legend.count == 44, "\(legend.count)")  // 43 series and the compulsory misses
        }
        // A label too long for a column: said with its width, not shrunk.
        let long = ReadingTests.csv([ReadingTests.row("lru", 1 << 20, requests: 10, hits: 5, evictions: 1, ["variant": String(repeating: "tinylfu-window=0.01;", count: 8)]),
                                     ReadingTests.row("fifo", 1 << 20, requests: 10, hits: 4, evictions: 1)], in: folder, name: "long.csv")
        let wide = try Self.recorded([long], options: ["--style=paper", "--dpi=100"], in: folder)
        let said = Self.numbers(wide.drawn["hit_ratio"]?["too_wide"])
        let inches = try #require(Self.pngInches(wide.staging + "/hit_ratio.png", dpi: 100))
        #expect(said.count == 1 && inches > 3.55 && abs(said[0] - inches) < 0.05, "\(said) \(inches)")
        #expect(wide.err.contains("plot: note hit_ratio.png is \(String(format: "%.2f", said.first ?? 0)) in wide, wider than the paper style's 3.5 in (--columns 1)"), "\(wide.err)")
        let notPaper = try bench(["plot", sweep, "--columns", "2", "--out", folder.path + "/x"])
        #expect(notPaper.status == 2 && notPaper.err == "bench: error: --columns 2: sizes the paper style; add --style paper\n", "\(notPaper.err)")
        let three = try bench(["plot", sweep, "--style", "paper", "--columns", "3", "--out", folder.path + "/x"])
        #expect(three.status == 2 && three.err == "bench: error: --columns 3: 1 (a column wide) or 2 (both columns of the page)\n", "\(three.err)")
    }

    /// A sweep whose miss ratios lie in 0.56…0.86: lru, fifo, belady, pfoo-l at 1, 4 and 16 KiB over 100 requests.
    static func paperSweep(in folder: TemporaryFolder, objects: Bool = false) -> String {
        let hits = ["lru": [40, 30, 20], "fifo": [35, 25, 14], "belady": [42, 32, 22], "pfoo-l": [44, 34, 24]]
        var rows: [[String: String]] = []
        for (backend, counts) in hits.sorted(by: { $0.key < $1.key }) {
            for (capacity, count) in zip([1024, 4096, 16384], counts.reversed()) {
                rows.append(ReadingTests.row(backend, capacity, requests: 100, hits: count, evictions: 1, ["ignore_obj_size": objects ? "yes" : "no", "run_id": "\(backend)-\(capacity)"]))
            }
        }
        return ReadingTests.csv(rows, in: folder, name: objects ? "objects.csv" : "sweep.csv")
    }

    @Test("43 §5: --style paper fits the y-limits to the data (0.56…0.86 with 5% of the range beyond: 0.545…0.875), has no title, and names belady no bound with sizes (a bound under --ignore-obj-size); --ylim sets them and counts what it cuts off; a bad --ylim is one line, exit 2")
    func paperLimits() throws {
        let folder = TemporaryFolder()
        let sweep = Self.paperSweep(in: folder)
        let paper = try Self.recorded([sweep], options: ["--style=paper"], in: folder)
        #expect(paper.status == 0, "\(paper.err)")
        let limits = Self.numbers(paper.drawn["mrc"]?["ylim"])
        #expect(limits.count == 2 && abs(limits[0] - 0.545) < 1e-9 && abs(limits[1] - 0.875) < 1e-9, "\(limits)")
        #expect(paper.drawn["mrc"]?["title"] as? String == "")
        let legend = Self.strings(paper.drawn["mrc"]?["legend"])
        #expect(legend.contains("belady (offline, no bound with sizes)") && legend.contains("pfoo-l (offline bound)") && !legend.contains("belady (offline bound)"), "\(legend)")
        let plain = try Self.recorded([sweep], in: folder)
        #expect(Self.numbers(plain.drawn["mrc"]?["ylim"]) == [0, 1.02] && plain.drawn["mrc"]?["title"] as? String == "Miss-ratio curves: t.har")
        let objects = try Self.recorded([Self.paperSweep(in: folder, objects: true)], options: ["--style=paper"], in: folder)
        let objectLegend = Self.strings(objects.drawn["mrc"]?["legend"])
        #expect(objectLegend.contains("belady (offline bound)"), "\(objects.drawn["mrc"] ?? [:])")
        // --ylim 0.6:0.9: belady's 0.58 and pfoo-l's 0.56, object and byte panels: 4 of 24 values below.
        let cut = try Self.recorded([sweep], options: ["--style=paper", "--ylim=0.6:0.9"], in: folder)
        #expect(Self.numbers(cut.drawn["mrc"]?["ylim"]) == [0.6, 0.9])
        #expect(Self.strings(cut.drawn["mrc"]?["left_out"]) == ["4 of 24 values outside the y-limits 0.6…0.9 (--ylim), cut off at the axis"])
        let bad = try Self.recorded([sweep], options: ["--ylim=0.9:0.5"], in: folder)
        #expect(bad.status == 2 && bad.err == "plot: error: --ylim 0.9:0.5: not LOW:HIGH with 0 ≤ LOW < HIGH ≤ 1 (a ratio's y-limits, e.g. 0.5:0.9)\n", "\(bad.err)")
        let viaBench = try bench(["plot", sweep, "--ylim", "1:2", "--out", folder.path + "/charts"])
        #expect(viaBench.status == 2 && viaBench.err == "bench: error: --ylim 1:2: not LOW:HIGH with 0 ≤ LOW < HIGH ≤ 1 (a ratio's y-limits, e.g. 0.5:0.9)\n", "\(viaBench.err)")
    }
}
