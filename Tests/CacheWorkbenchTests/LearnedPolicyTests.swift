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

/// `glcache`, `lrb` and `3lcache`: libCacheSim's learned policies run by its PyPI package in a
/// Python process (`LearnedPolicyProcess`, scripts/learned_policy.py). Needs .venv, which
/// scripts/bootstrap --python makes (the suite's command does).
@Suite("Learned policies through libCacheSim's package", .onTestWorkers)
struct LearnedPolicyTests {
    @Test("object and byte hits equal libCacheSim's package driven directly", arguments: [("glcache", "GLCache"), ("lrb", "LRB"), ("3lcache", "ThreeLCache")])
    func equalToThePackage(backend: String, reference: String) throws {
        let folder = TemporaryFolder()
        let (trace, unit) = try libCacheSimTestTraces(in: folder)
        for (file, capacity) in [(trace, 8 << 20), (trace, 64 << 20), (unit, 300)] {
            try expectEqualToLibCacheSim(backend: backend, reference: reference, parameters: [], options: [:], trace: file, capacity: capacity)
        }
    }

    @Test("the learned policies run only when named: not in the default run (it must not make .venv), nor in policies; in all")
    func optIn() throws {
        let learned: Set<String> = ["glcache", "lrb", "3lcache"]
        #expect(BackendRegistry.defaultKinds.allSatisfy { !learned.contains($0.name) })
        #expect(try BackendRegistry.list(parsing: "policies").allSatisfy { !learned.contains($0.name) })
        #expect(Set(try BackendRegistry.list(parsing: "all").map(\.name)).isSuperset(of: learned))
    }

    @Test("a trace that asks for nothing twice makes no hit; every miss's insertion is an assumption, counted and said")
    func noReuseAndTheAssumptionSaid() throws {
        let folder = TemporaryFolder()
        // 6 distinct keys of 100 bytes in a 250-byte cache: 0 hits, 6 misses; at most 2 held, so
        // (assuming each went in) 4 evictions.
        var text = "time,key,size\n"
        for key in 1...6 { text += "\(key),\(key),100\n" }
        let trace = folder.file("t.csv", text)
        let run = try bench(["run", "--trace", trace, "--backend", "glcache", "--capacity", "250", "--no-timing", "--csv", folder.path + "/r.csv"])
        #expect(run.status == 0, "\(run.err)")
        let row = try #require(try csvRows(folder.path + "/r.csv").first)
        #expect(row["hits"] == "0" && row["requests"] == "6")
        #expect(run.out.contains("glcache at 250B: 6 missed objects no larger than the cache were taken to have gone in"), "\(run.out)")
        #expect(run.out.contains("glcache: libCacheSim's own code (its PyPI package, in a Python process), so their hits are libCacheSim's; req/s measures a round trip"))
    }

    @Test("--mode ops is refused as a failed row: libCacheSim's learned policies insert only through get, and LRB aborts on a removal")
    func opsModeRefused() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("ops.csv", "time,key,size,op\n0,1,100,set\n1,1,100,get\n")
        let run = try bench(["run", "--trace", trace, "--backend", "lrb", "--capacity", "1MiB", "--no-timing", "--mode", "ops"])
        #expect(run.status == 1)
        #expect(run.out.contains("FAILED: lrb replays demand fill only (--mode cache)"), "\(run.out)")
    }
}
