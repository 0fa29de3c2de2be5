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

private func read(_ path: String, _ format: String) throws -> [Request] {
    try InMemoryTrace.load(TraceFile(path: path, format: TraceFormat.named(format)), keepKeyNames: false).requests
}

/// Issue 10 §3–4: the block traces the policy papers used, object-count capacities and
/// a warm-up.
@Suite("Research mode", .serialized, .onTestWorkers)
struct ResearchModeTests {
    @Test("ARC .lis: each block of a line is one 512-byte request, in order; detected by name")
    func arcList() throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.lis", "1000 1 0 0\n2000 3 7 1\n\n1000 1 0 2\n")
        #expect(try TraceFormat.detect(path: path).name == "arc-lis")
        let requests = try read(path, "arc-lis")
        #expect(requests.map(\.id) == [1000, 2000, 2001, 2002, 1000])
        #expect(requests.allSatisfy { $0.size == 512 } && requests.map(\.time) == [0, 1, 2, 3, 4])
        for (text, reason) in [("5\n", "expected 'start_block n_blocks …'"), ("5 0 0 0\n", "n_blocks is 0"),
                               ("9223372036854775807 2 0 0\n", "above 2^63"), ("5 2000000 0 0\n", "n_blocks")] {
            let bad = folder.file("bad.lis", text)
            #expect { _ = try read(bad, "arc-lis") } throws: { "\($0)".contains(bad + ":1: ") && "\($0)".contains(reason) }
        }
    }

    @Test("the ARC paper's OLTP trace reads as the paper counts it", .enabled(if: FileManager.default.fileExists(atPath: sharedTrace("arc_OLTP.lis.zst")), "needs ../shared/data/arc_OLTP.lis.zst; absent in a clone without ../shared"))
    func oltp() throws {
        let stats = try TraceStatistics.compute(TraceFile(path: sharedTrace("arc_OLTP.lis.zst")))
        #expect(stats.requests == 914_145 && stats.uniqueKeys == 186_880)
    }

    @Test("LIRS: one block per line; comments and separators skipped")
    func lirs() throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.trc", "# comment\n17\n18\n\n*\n17\n")
        #expect(try read(path, "lirs").map(\.id) == [17, 18, 17])
        let bad = folder.file("bad.trc", "17\nx\n")
        #expect { _ = try read(bad, "lirs") } throws: { "\($0)".contains(bad + ":2: block 'x' is not a whole number") }
    }

    @Test("--ignore-obj-size: capacities in objects, the same hits as the unit-size trace")
    func ignoreObjectSize() throws {
        let folder = TemporaryFolder()
        var sized = "time,key,size\n", unit = "time,key,size\n"
        var random = SeededRandom(seed: 3)
        for index in 0..<3_000 {
            let key = random.next() % 400
            sized += "\(index),\(key),\(1 + random.next() % 5_000)\n"
            unit += "\(index),\(key),1\n"
        }
        let sizedPath = folder.file("sized.csv", sized), unitPath = folder.file("unit.csv", unit)
        for backend in ["lru", "sieve", "arc"] {
            let ignored = try bench(["run", "--trace", sizedPath, "--backend", backend, "--capacity", "100", "--ignore-obj-size", "--csv", folder.path + "/a.csv"])
            let plain = try bench(["run", "--trace", unitPath, "--backend", backend, "--capacity", "100", "--csv", folder.path + "/b.csv"])
            #expect(ignored.status == 0 && plain.status == 0, "\(ignored.err)\(plain.err)")
            let a = try csvRows(folder.path + "/a.csv")[0], b = try csvRows(folder.path + "/b.csv")[0]
            #expect(a["hits"] == b["hits"] && a["byte_hit_ratio"] == a["object_hit_ratio"], "\(backend)")
            #expect(a["ignore_obj_size"] == "yes" && b["ignore_obj_size"] == "no")
            #expect(ignored.out.contains("--ignore-obj-size: every object counts 1") && ignored.out.contains("100 obj"))
        }
    }

    @Test("--warmup N or a share: the cache warms, the counters start after it")
    func warmup() throws {
        // A B A B …: after a warm-up of 2 every request hits.
        let requests = (0..<10).map { Request(time: Double($0), id: UInt64($0 % 2), size: 1) }
        var options = ReplayOptions()
        options.warmupRequests = 2
        let tally = try replay(requests, backend: LRUCache(capacity: 10), capacity: 10, options: options)
        #expect(tally.requests == 8 && tally.hits == 8 && tally.warmupRequests == 2)
        let folder = TemporaryFolder()
        let path = folder.file("t.csv", "time,key,size\n" + (0..<10).map { "\($0),\($0 % 2),1" }.joined(separator: "\n") + "\n")
        let result = try bench(["run", "--trace", path, "--backend", "lru", "--warmup", "20%", "--csv", folder.path + "/r.csv"])
        #expect(result.status == 0, "\(result.err)")
        let row = try csvRows(folder.path + "/r.csv")[0]
        #expect(row["warmup_requests"] == "2" && row["requests"] == "8" && row["hits"] == "8")
        #expect(try bench(["run", "--trace", path, "--backend", "lru", "--warmup", "1.5"]).status == 2)
    }
}

/// A file of `../shared/data/traces/` (present in CI beside the checkout).
func sharedTrace(_ name: String) -> String {
    SourceCheckout.root.deletingLastPathComponent().appendingPathComponent("shared/data/traces/" + name).path
}
