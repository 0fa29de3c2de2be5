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
        let expected = ["mrc.png", "hit_ratio.png", "latency.png", "disk.png", "memory.png"]
        for name in expected { #expect(Self.isPNG(out + "/" + name), "\(name)") }
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
        let bad = folder.file("bad.csv", "a,b\n1,2\n")
        let notOurs = try bench(["plot", bad, "--out", folder.path + "/charts"])
        #expect(notOurs.status == 2 && notOurs.err == "bench: error: \(bad):1: not a workbench CSV (its columns match none of results, mrc, similar-keys, blob-size, timeline)\n")
        let intoFile = try bench(["plot", folder.path + "/one.csv", "--out", bad])
        #expect(intoFile.status == 2 && intoFile.err.contains("exists and is not a folder"))
        let none = try bench(["plot", folder.path + "/missing.csv", "--out", folder.path + "/charts"])
        #expect(none.status == 2 && none.err.contains("missing.csv: cannot read it"))
    }
}
