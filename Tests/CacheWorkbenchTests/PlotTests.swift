import Foundation
import Testing
@testable import CacheWorkbench

/// Issue 11 §4: `bench plot` draws real PNGs from a small run, sweep and timeline.
@Suite("bench plot", .serialized)
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
        let run = try bench(["run", "--backend", "lru,autopurge,files", "--capacity", "32MiB", "--memory-warning", "every:20000",
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

    @Test("one colour per series in every chart (sorted names: fifo, lru get tab10's first two; belady, an offline bound, gray); --only keeps the named series; an unknown name lists those the inputs have")
    func colorsAndOnly() throws {
        try #require(FileManager.default.isExecutableFile(atPath: SourceCheckout.root.path + "/.venv/bin/python"), "run scripts/bootstrap --python: it makes .venv with matplotlib")
        let folder = TemporaryFolder()
        let inputs = try Self.policyInputs(in: folder)
        let out = folder.path + "/svg"
        let plot = try bench(["plot"] + inputs + ["--format", "svg", "--out", out])
        #expect(plot.status == 0, "\(plot.err)")
        // Hand-made: online series sorted (fifo, lru) take tab10's #1f77b4, #ff7f0e; the bound takes the first gray.
        let colors = try JSONSerialization.jsonObject(with: try #require(FileManager.default.contents(atPath: out + "/plot_colors.json"))) as? [String: String]
        #expect(colors == ["fifo": "#1f77b4", "lru": "#ff7f0e", "belady": "#555555"])
        for chart in ["mrc.svg", "hit_ratio.svg", "miss_ratio_time.svg"] {
            let text = String(decoding: try #require(FileManager.default.contents(atPath: out + "/" + chart)), as: UTF8.self)
            for color in ["#1f77b4", "#ff7f0e", "#555555"] { #expect(text.contains(color), "\(chart) draws \(color)") }
        }
        let only = try bench(["plot"] + inputs + ["--only", "lru,belady", "--format", "svg", "--out", folder.path + "/only"])
        #expect(only.status == 0, "\(only.err)")
        let kept = try JSONSerialization.jsonObject(with: try #require(FileManager.default.contents(atPath: folder.path + "/only/plot_colors.json"))) as? [String: String]
        #expect(kept == ["lru": "#1f77b4", "belady": "#555555"])
        let mrc = String(decoding: try #require(FileManager.default.contents(atPath: folder.path + "/only/mrc.svg")), as: UTF8.self)
        #expect(!mrc.contains("#ff7f0e"), "fifo is not drawn")
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
}
