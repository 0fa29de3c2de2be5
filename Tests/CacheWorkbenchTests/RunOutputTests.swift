import Foundation
#if canImport(Glibc)
import Glibc
#endif
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

/// Issue 24 §3–§5: a run that says what ran, keeps what it finished and refuses what cannot fit.
@Suite("Run output", .serialized, .onTestWorkers)
struct RunOutputTests {
    /// 20 requests, 10 keys of 100 bytes each requested twice in a row pattern k0…k9, k0…k9.
    static func twiceTrace(_ folder: TemporaryFolder) -> String {
        var text = "time,key,size\n"
        for index in 0..<20 { text += "\(index),k\(index % 10),100\n" }
        return folder.file("t.csv", text)
    }

    /// The row's cells by column name, parsed as CSV (the `command` cell is quoted).
    static func rows(_ path: String) throws -> [[String: String]] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = CSVRowText.fields(of: lines[0])
        return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, CSVRowText.fields(of: $0))) }
    }

    @Test("notes shared by rows are said once, after the rows they cover; exact repeats are dropped")
    func notesMerge() {
        let notes = [
            "lru at 1MiB: 3 requests too large", "a trace note", "fifo at 1MiB: 3 requests too large",
            "lru at 2MiB: 1 requests too large", "a trace note", "fifo at 1MiB: 3 requests too large",
        ]
        let merged = NoteMerging.merged(notes, subjects: ["lru at 1MiB", "fifo at 1MiB", "lru at 2MiB"])
        #expect(merged == ["2 rows — lru at 1MiB, fifo at 1MiB: 3 requests too large", "a trace note", "lru at 2MiB: 1 requests too large"])
        // Rows whose labels extend one another stay apart.
        #expect(NoteMerging.merged(["x at 1 (10%): a", "x at 1: a"], subjects: ["x at 1", "x at 1 (10%)"]) == ["2 rows — x at 1 (10%), x at 1: a"])
    }

    @Test("--verify says how many hits it read back and checked: every disk hit (hand count: 10 of 20)")
    func verifiedHits() throws {
        let folder = TemporaryFolder()
        let trace = Self.twiceTrace(folder)
        let run = try bench(["run", "--trace", trace, "--backend", "files,sqlite", "--capacity", "1MiB", "--verify", "--no-timing", "--csv", folder.path + "/r.csv"])
        #expect(run.status == 0, "\(run.err)")
        // k0…k9 miss once each, then hit once each: 10 hits per backend, each read from disk.
        #expect(try Self.rows(folder.path + "/r.csv").map { $0["hits"] } == ["10", "10"])
        #expect(run.out.contains("note: 2 rows — files at 1MiB, sqlite at 1MiB: verified 10 hits: each body read back matched"), "\(run.out)")
        let unchecked = try bench(["run", "--trace", trace, "--backend", "files", "--capacity", "1MiB", "--no-timing"])
        #expect(unchecked.status == 0 && !unchecked.out.contains("verified"))
        // A warm-up's hits are not among the counted ones: 5 warm-up requests hit nothing, the 10 hits stay.
        let warmed = try bench(["run", "--trace", trace, "--backend", "files", "--capacity", "1MiB", "--verify", "--no-timing", "--warmup", "15"])
        #expect(warmed.out.contains("files at 1MiB: verified 5 hits"), "\(warmed.out)")
    }

    @Test("a warm start says how many entries it reopened; a cold one says it had none")
    func warmStart() throws {
        let folder = TemporaryFolder()
        let trace = Self.twiceTrace(folder)
        let arguments = ["run", "--trace", trace, "--backend", "files", "--capacity", "1MiB", "--no-timing", "--cache-dir", folder.path + "/cd"]
        let cold = try bench(arguments)
        #expect(cold.status == 0 && cold.out.contains("note: files at 1MiB: cold start: \(folder.path)/cd/files held no entries"), "\(cold.out)\(cold.err)")
        let warm = try bench(arguments)
        // The first run left all 10 objects (1000 bytes fit in 1 MiB).
        #expect(warm.status == 0 && warm.out.contains("note: files at 1MiB: warm start: reopened 10 entries (1000B) an earlier run left in \(folder.path)/cd/files"), "\(warm.out)")
    }

    @Test("under --ignore-obj-size rows and the working set are counted in objects, never bytes")
    func objectUnits() throws {
        let folder = TemporaryFolder()
        let run = try bench(["run", "--trace", Self.twiceTrace(folder), "--backend", "files", "--capacity", "5", "--ignore-obj-size", "--verify", "--no-timing"])
        #expect(run.status == 0)
        #expect(run.out.contains("note: files at 5 objects: verified") && run.out.contains("working set 10 objects"), "\(run.out)")
        // Without the folder's path: a UUID's hex digits can spell "10B" (a clean clone's run failed so).
        let text = run.out.replacingOccurrences(of: folder.path, with: "")
        #expect(!text.contains("at 5B") && !text.contains("10B"), "\(run.out)")
    }

    @Test("a trace that asks for no object twice is said to be unable to rank caches; one with a repeat is not")
    func noReuseSaid() throws {
        let folder = TemporaryFolder()
        // 4 requests, 4 keys: 4 compulsory misses of 4 counted; the second trace repeats k0.
        let fresh = folder.file("fresh.csv", "time,key,size\n0,k0,10\n1,k1,10\n2,k2,10\n3,k3,10\n")
        let repeated = folder.file("repeat.csv", "time,key,size\n0,k0,10\n1,k1,10\n2,k0,10\n")
        let none = try bench(["run", "--trace", fresh, "--backend", "lru,fifo", "--capacity", "1MiB", "--no-timing"])
        #expect(none.status == 0)
        #expect(none.out.contains("note: no reuse in \(fresh): each of its 4 counted requests asks for an object for the first time"), "\(none.out)")
        #expect(none.out.components(separatedBy: "no reuse in").count == 2, "said once for the trace, not per row")
        let some = try bench(["run", "--trace", repeated, "--backend", "lru", "--capacity", "1MiB", "--no-timing"])
        #expect(some.status == 0 && !some.out.contains("no reuse"), "\(some.out)")
        // A warm-up that takes the repeat away leaves 1 counted request, its object's first.
        let warmed = try bench(["run", "--trace", repeated, "--backend", "lru", "--capacity", "1MiB", "--no-timing", "--warmup", "2"])
        #expect(warmed.status == 0 && !warmed.out.contains("no reuse"), "k0 was requested in the warm-up: not compulsory")
    }

    @Test("a materialized run that cannot fit in available memory is refused with the figures and the fix")
    func memoryRefusal() throws {
        let folder = TemporaryFolder()
        let trace = Self.twiceTrace(folder)
        // nscache holds payloads: at 50% of the 1000-byte working set, 500 bytes; at 5000 bytes, all 1000.
        let tight = ["CWB_MEM_AVAILABLE": "1000"]
        let refused = try bench(["run", "--trace", trace, "--backend", "nscache", "--capacity", "50%,5000", "--csv", folder.path + "/r.csv"], environment: tight)
        #expect(refused.status == 2)
        #expect(refused.err == "bench: error: materializing payloads would hold about 1000B (the largest point: nscache at 4.88KiB, up to 1000B), above the 900B a replay may take (90% of the machine's 1000B MemAvailable): --no-materialize simulates the same counts without payload memory, or choose smaller capacities\n", "\(refused.err)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/r.csv"))
        // 90% of 1112 bytes is 1000.8: the same run fits; so does the refused one without payloads.
        #expect(try bench(["run", "--trace", trace, "--backend", "nscache", "--capacity", "50%,5000", "--no-timing"], environment: ["CWB_MEM_AVAILABLE": "1112"]).status == 0)
        #expect(try bench(["run", "--trace", trace, "--backend", "nscache", "--capacity", "50%,5000", "--no-timing", "--no-materialize"], environment: tight).status == 0)
        // A sweep adds the points that run at once: 2 jobs hold 1000 + 500 bytes.
        let sweep = try bench(["sweep", "--trace", trace, "--backend", "nscache", "--capacity", "50%,5000", "--jobs", "2", "--no-timing"], environment: ["CWB_MEM_AVAILABLE": "1200"])
        #expect(sweep.status == 2 && sweep.err.contains("would hold about 1.46KiB with 2 points at once (--jobs; the largest point: nscache at 4.88KiB, up to 1000B)") && sweep.err.contains("or --jobs 1"), "\(sweep.err)")
    }

    @Test("a timed sweep runs one point at a time unless --jobs says otherwise; then the table, the CSV and the report say so")
    func timedSweepsAlone() throws {
        let folder = TemporaryFolder()
        let trace = Self.twiceTrace(folder)
        let alone = try bench(["sweep", "--trace", trace, "--backend", "clock,fifo", "--capacity", "300,500", "--csv", folder.path + "/a.csv"])
        #expect(alone.status == 0, "\(alone.err)")
        #expect(try Self.rows(folder.path + "/a.csv").map { $0["points_at_once"] } == ["1", "1", "1", "1"])
        #expect(!alone.err.contains("ran at once"))
        let together = try bench(["sweep", "--trace", trace, "--backend", "clock,fifo", "--capacity", "300,500", "--jobs", "2", "--csv", folder.path + "/b.csv"])
        #expect(together.status == 0)
        let rows = try Self.rows(folder.path + "/b.csv")
        #expect(rows.map { $0["points_at_once"] } == ["2", "2", "2", "2"])
        #expect(together.err.contains("bench: note: 2 points ran at once (--jobs 2): latency, throughput and the heap and RSS columns include the other points in flight"), "\(together.err)")
        // Untimed, the four points are fed from one read (lru would come from its one-pass
        // curve: clock and fifo are fed), all four in memory at once; hit counts are the same.
        let untimed = try bench(["sweep", "--trace", trace, "--backend", "clock,fifo", "--capacity", "300,500", "--no-timing", "--csv", folder.path + "/c.csv"])
        #expect(untimed.status == 0)
        #expect(try Self.rows(folder.path + "/c.csv").map { $0["points_at_once"] } == ["4", "4", "4", "4"])
        #expect(untimed.err.contains("4 untimed points were fed from one read of the trace"), "\(untimed.err)")
        // The pass read the file once: rchar over the pass (the kernel's count) is the file's
        // size (the file system's) to within the 18 bytes format detection reads again.
        let generated = folder.path + "/zipf.csv"
        #expect(try bench(["gen", "--requests", "20000", "--keys", "id", "--plain", "--out", generated]).status == 0)
        let size = try FileManager.default.attributesOfItem(atPath: generated)[.size] as! Int
        let pass = try bench(["sweep", "--trace", generated, "--backend", "clock,fifo", "--capacity", "1%,5%", "--no-timing"])
        #expect(pass.status == 0 && size > 300_000)
        #expect(pass.err.contains("during the pass (rchar), 1.000× the trace file's \(ByteCount.format(size))"), "\(pass.err)")
        #expect(pass.err.contains("the simulators' heap at the end was ") && pass.err.contains("peak RSS ") && pass.err.contains("jemalloc then held "))
        // Compressed, the process reads the decompressor's pipe: no comparison with the file.
        let gzipped = folder.path + "/zipf.csv.gz"
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -c \(ShellQuoting.word(generated)) > \(ShellQuoting.word(gzipped))"]
        try gzip.run()
        gzip.waitUntilExit()
        let compressed = try bench(["sweep", "--trace", gzipped, "--backend", "clock,fifo", "--capacity", "1%,5%", "--no-timing"])
        #expect(compressed.status == 0 && compressed.err.contains("during the pass (rchar)") && !compressed.err.contains("the trace file's"), "\(compressed.err)")
        #expect(try Self.rows(folder.path + "/c.csv").map { $0["hits"] } == rows.map { $0["hits"] })
        // The report's reading says which rows ran contended (each row at once, merged).
        let page = try ReadingTests.page([folder.path + "/b.csv"], in: folder)
        let lines = try ReadingTests.reading(page)
        #expect(lines.contains { $0.hasPrefix("4 rows — ") && $0.contains("2 points ran at once (sweep --jobs): latency, throughput and memory figures are contended") }, "\(lines)")
        #expect(try !ReadingTests.reading(ReadingTests.page([folder.path + "/a.csv"], in: folder)).contains { $0.contains("ran at once") })
    }

    @Test("the report prints latencies as the table does: ns below 10 µs, µs below 10 ms, then ms")
    func reportLatencyUnits() throws {
        let folder = TemporaryFolder()
        let rows = [
            ReadingTests.row("sqlite", 1024, requests: 10, hits: 5, evictions: 0, ["get_hit_p50_ns": "544767", "set_p50_ns": "12000000"]),
            ReadingTests.row("lru", 1024, requests: 10, hits: 5, evictions: 0, ["get_hit_p50_ns": "510", "set_p50_ns": "9999"]),
        ]
        let page = try ReadingTests.page([ReadingTests.csv(rows, extra: ["get_hit_p50_ns", "set_p50_ns"], in: folder)], in: folder)
        for cell in ["<td>544 µs</td>", "<td>12 ms</td>", "<td>510 ns</td>", "<td>9999 ns</td>"] { #expect(page.contains(cell), "\(cell)") }
        #expect(!page.contains("544767"))
    }

    @Test("the table says each row's options beyond the defaults, cut to 120 columns; the CSV keeps them whole")
    func optionsSaid() throws {
        let folder = TemporaryFolder()
        let trace = Self.twiceTrace(folder)
        let run = try bench(["run", "--trace", trace, "--backend", "nscache,lru,nscache[key-hash=cf]", "--key-hash", "full", "--count-limit", "500",
                             "--capacity", "1MiB", "--no-timing"])
        #expect(run.status == 0)
        // lru takes neither flag; the variant's key-hash is in its label, so only count-limit is said for it.
        #expect(run.out.contains("options set (not the defaults; the CSV's backend_options and http_settings hold every setting):\n  nscache: count-limit=500, key-hash=full\n  nscache[key-hash=cf]: count-limit=500\n"), "\(run.out)")
        let plain = try bench(["run", "--trace", trace, "--backend", "nscache,lru", "--capacity", "1MiB", "--no-timing"])
        #expect(!plain.out.contains("options set"))
        let long = try bench(["run", "--trace", trace, "--backend", "sqlite", "--inline-limit", "20KB", "--batch", "10", "--page-size", "8192",
                              "--mmap-size", "0", "--durability", "consistent", "--journal-mode", "wal", "--sqlite-evict", "lru", "--capacity", "1MiB",
                              "--no-timing", "--csv", folder.path + "/r.csv"])
        let line = try #require(long.out.split(separator: "\n").first { $0.hasPrefix("  sqlite: ") })
        #expect(line.count == 120 && line.hasSuffix("…") && line.hasPrefix("  sqlite: batch=10, durability=consistent, inline-limit=20KB, journal-mode=wal"), "\(line)")
        #expect(try Self.rows(folder.path + "/r.csv")[0]["backend_options"]?.contains("sqlite-evict=lru") == true)
    }

    @Test("bench mrc prints miss ratios as percentages, as bench run prints hit ratios (the CSV keeps ratios)")
    func mrcPercentages() throws {
        let folder = TemporaryFolder()
        // At the whole working set only first requests miss: 10 of 20, 50.00%.
        let run = try bench(["mrc", "--trace", Self.twiceTrace(folder), "--capacity", "100%", "--csv", folder.path + "/m.csv"])
        #expect(run.status == 0 && run.out.contains("50.00%      50.00%"), "\(run.out)")
        #expect(try Self.rows(folder.path + "/m.csv")[0]["object_miss_ratio"] == "0.5")
    }

    @Test("clockpro rows say they evicted nothing and why, when they did")
    func clockProSaid() throws {
        let folder = TemporaryFolder()
        let run = try bench(["run", "--trace", Self.twiceTrace(folder), "--backend", "clockpro", "--capacity", "500", "--no-timing", "--csv", folder.path + "/r.csv"])
        #expect(try Self.rows(folder.path + "/r.csv")[0]["evictions"] == "0")
        #expect(run.out.contains("note: clockpro at 500B: evicted nothing (evictions 0): libCacheSim's ClockPro.c"), "\(run.out)")
    }

    @Test("an untimed sweep's lru points from the one-pass curve count objects under --ignore-obj-size, as replays do")
    func sweepCurveInObjects() throws {
        let folder = TemporaryFolder()
        // k0…k9 twice, sizes 100: at 5 objects LRU keeps k5…k9 when k0 comes back (no hits);
        // at 10 objects every second request hits (10). In bytes, 5 and 10 would hold nothing.
        let trace = Self.twiceTrace(folder)
        let sweep = try bench(["sweep", "--trace", trace, "--backend", "lru", "--ignore-obj-size", "--capacity", "5,10", "--no-timing", "--csv", folder.path + "/s.csv"])
        #expect(sweep.status == 0, "\(sweep.err)")
        let rows = try Self.rows(folder.path + "/s.csv")
        #expect(rows.map { $0["method"] } == ["mattson", "mattson"])
        #expect(rows.map { $0["hits"] } == ["0", "10"] && rows.map { $0["too_large"] } == ["0", "0"], "\(rows.map { $0["hits"] })")
    }

    @Test("the ETA of the points to come: each at the mean of its backend's finished points, else of all")
    func pointETA() {
        var eta = PointETA()
        #expect(eta.seconds(for: ["lru"]) == nil)  // nothing finished: no estimate
        eta.finished(backend: "lru", seconds: 2)
        eta.finished(backend: "lru", seconds: 4)
        eta.finished(backend: "sqlite", seconds: 10)
        // lru 3 + sqlite 10 + fifo at the mean of all, 16 / 3.
        let expected: Double = 3 + 10 + 16.0 / 3
        #expect(eta.seconds(for: ["lru", "sqlite", "fifo"]) == expected)
        #expect(eta.seconds(for: []) == 0)
    }

    @Test("a % capacity above 1 GiB is said in bytes before the run starts")
    func largeShareSaid() throws {
        let folder = TemporaryFolder()
        // 4 objects of 1 GiB: 50% is 2 GiB (no payloads: lru is a policy simulator).
        var text = "time,key,size\n"
        for index in 0..<4 { text += "\(index),k\(index),1073741824\n" }
        let run = try bench(["run", "--trace", folder.file("big.csv", text), "--backend", "lru", "--capacity", "50%,10%", "--no-timing"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.err.contains("bench: note: 50% of the trace's working set under --cost encoded (4GiB) is 2GiB (2147483648 bytes)\n"), "\(run.err)")
        #expect(!run.err.contains("10% of"))  // 429496730 bytes: below 1 GiB, nothing said
    }

    @Test("bench run writes each finished row to --csv as it finishes: a kill keeps what was done")
    func rowsAsTheyFinish() throws {
        let folder = TemporaryFolder()
        // The default trace: lru finishes in well under a second; sqlite with full durability
        // then runs for many seconds, long enough to see the first row while it runs.
        let executable = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .deletingLastPathComponent().appendingPathComponent("bench")
        let process = Process()
        process.executableURL = executable
        process.arguments = ["run", "--backend", "lru,sqlite", "--capacity", "64MiB", "--durability", "full", "--no-timing", "--csv", folder.path + "/r.csv"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // sqlite's temporary cache folder goes in this test's folder: the kill leaves it behind.
        let tmpdir = folder.path + "/tmp"
        try FileManager.default.createDirectory(atPath: tmpdir, withIntermediateDirectories: true)
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": tmpdir]) { $1 }
        try process.run()
        var seenWhileRunning: [[String: String]]?
        for _ in 0..<1200 where process.isRunning {  // up to 120 s
            if let rows = try? Self.rows(folder.path + "/r.csv"), !rows.isEmpty {
                seenWhileRunning = process.isRunning ? rows : nil
                break
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let rows = try #require(seenWhileRunning, "no finished row on disk while the run was still going")
        #expect(rows.count == 1 && rows[0]["backend"] == "lru" && rows[0]["status"] == "ok")
        // The file the kill left is whole: the header and lru's row, nothing half-written.
        #expect(try Self.rows(folder.path + "/r.csv").map { $0["backend"] } == ["lru"])
    }
}
