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

#if canImport(Glibc)
import Glibc
#endif

/// Issue 44 §1: how many times each command reads its trace, measured as the process's
/// `rchar` (/proc/PID/io) at its exit, and the trace facts cache (`TraceFactsCache`) that
/// lets a command on an unchanged file read it once. The trace is `bench gen`'s 300,000
/// requests (seed 3) as oracleGeneral, 7,200,000 bytes; every expected count below is a
/// literal taken from 1ab180c's build on that file (before this work), its SHA-256 from
/// `sha256sum` (since 94570f3, whose oracleGeneral writes next access 1-based as libCacheSim's
/// traceConv does; the counts, which do not read it, unchanged).
@Suite("one read per command", .serialized, .onTestWorkers)
struct OneReadTests {
    static let traceBytes = 7_200_000
    static let traceSHA256 = "101b773cab517033516e5fe4ab697043af6466df68a6fbe691b0b770a176677c"

    /// The generated trace, made once for the suite (kept in its own folder).
    nonisolated(unsafe) static let fixture: (folder: TemporaryFolder, trace: String) = {
        let folder = TemporaryFolder()
        let csv = folder.path + "/g.csv"
        let trace = folder.path + "/t.oracleGeneral"
        _ = try? bench(["gen", "--requests", "300000", "--keys", "id", "--plain", "--seed", "3", "--out", csv])
        _ = try? bench(["convert", csv, trace])
        try? FileManager.default.removeItem(atPath: csv)
        return (folder, trace)
    }()

    /// Runs the built bench under `timeout` with `environment` (added to this process's),
    /// waits for `timeout` to exit without reaping it (`WNOWAIT`), and reads its `rchar`:
    /// Linux adds a reaped child's I/O counts to its parent's, so `timeout`'s figure holds
    /// bench's whole run (and a decompressor's, which bench reaps), plus `timeout`'s own
    /// start-up. Output goes to files in `folder`.
    static func measured(_ arguments: [String], environment: [String: String], folder: String) throws -> (status: Int32, rchar: Int, out: String, err: String) {
        let executable = try builtBench
        let argv = ["/usr/bin/timeout", "-k", "5", "600", executable] + arguments
        // Where the cache goes comes from `environment` alone, never from this process's.
        let variables = ProcessInfo.processInfo.environment.filter { !["XDG_CACHE_HOME", "HOME"].contains($0.key) }
            .merging(environment) { _, new in new }.map { "\($0.key)=\($0.value)" }
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var cEnvironment: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer { (cArguments + cEnvironment).forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let (outPath, errPath) = (folder + "/measured.out", folder + "/measured.err")
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/timeout", &actions, nil, &cArguments, &cEnvironment)
        try #require(spawned == 0)
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 {
            try #require(errno == EINTR)
        }
        let io = try String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let line = try #require(io.split(separator: "\n").first { $0.hasPrefix("rchar: ") })
        let rchar = try #require(Int(line.dropFirst("rchar: ".count)))
        let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return ((status >> 8) & 0xff, rchar, out, err)
    }

    /// What a command reads besides its trace: `bench list`'s start-up (the binary's
    /// libraries, /proc), measured, plus 256 KiB for the rest (the format sniffer's 4 KiB
    /// and the compression peek, /proc/meminfo and the environment probe, a cache entry of
    /// under 1 KiB).
    static func allowance(_ environment: [String: String], folder: String) throws -> Int {
        try measured(["list"], environment: environment, folder: folder).rchar + (256 << 10)
    }

    /// `hits` by `backend capacity_bytes` of a results CSV, and every row's checksum, working set and unique objects.
    static func hits(_ csv: String) throws -> [String: String] {
        var found: [String: String] = [:]
        for row in try csvRows(csv) {
            #expect(row["trace_sha256"] == traceSHA256 && row["working_set_bytes"] == "7000221392" && row["unique_objects"] == "30788")
            #expect(row["requests"] == "300000" && row["status"] == "ok")
            found["\(row["backend"] ?? "") \(row["capacity_bytes"] ?? "")"] = row["hits"]
        }
        return found
    }

    /// A fresh cache folder (and HOME, so nothing falls back to the user's own).
    static func environment(_ folder: TemporaryFolder) -> [String: String] {
        ["XDG_CACHE_HOME": folder.path + "/xdg", "HOME": folder.path + "/home"]
    }

    /// A test's folder, its fresh cache environment, and the allowance measured in it.
    static func fresh() throws -> (folder: TemporaryFolder, environment: [String: String], allowance: Int) {
        let folder = TemporaryFolder()
        let environment = Self.environment(folder)
        return (folder, environment, try Self.allowance(environment, folder: folder.path))
    }

    static func cacheEntries(_ environment: [String: String]) -> [String] {
        let folder = environment["XDG_CACHE_HOME"]! + "/cacheworkbench/trace-facts"
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted().map { folder + "/" + $0 }
    }

    @Test("the fixture is the trace the literals came from")
    func fixture() throws {
        #expect(try TraceChecksum.sha256(path: Self.fixture.trace) == Self.traceSHA256)
    }

    /// The short-trace sampling rule as it scales this fixture's 300,000 requests (N / 100
    /// and N / 10 capped at 1,000): given, a command need not count the requests first.
    static let samplingGiven = ["--sample-every", "3000", "--warning-window", "1000"]

    /// What the first command on a file may read besides one pass: the count of its first
    /// `ShortTraceSampling.countLimit` requests (409,600 of 24 bytes), the whole fixture here.
    static let countPrefix = min(traceBytes, ShortTraceSampling.countLimit * 24)

    @Test("run: the first command reads the trace once (its replay gives the facts), the facts kept for the next; rows as before")
    func run() throws {
        let folder = TemporaryFolder()
        let environment = Self.environment(folder)
        try FileManager.default.createDirectory(atPath: folder.path + "/home", withIntermediateDirectories: true)
        let allowance = try Self.allowance(environment, folder: folder.path)
        let size = Double(Self.traceBytes)
        // Round 1 gives the sampling rule's values (so nothing is counted first), round 2 takes them from the kept facts.
        for (round, extra) in [(1, Self.samplingGiven), (2, [])] {
            let csv = folder.path + "/run\(round).csv"
            // One point: a timed point replays alone, so a run of N points reads the trace N times (docs/run.md).
            let result = try Self.measured(["run", "--trace", Self.fixture.trace, "--backend", "lru", "--capacity", "4MiB", "--csv", csv] + extra, environment: environment, folder: folder.path)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.rchar <= Int(1.05 * size) + allowance, "round \(round): rchar \(result.rchar), allowance \(allowance)")  // before: 2.0× the first time
            #expect(try Self.hits(csv) == ["lru 4194304": "13443"])
            #expect(result.err.contains("from the trace facts cache of") == (round == 2), "\(result.err)")
            // sample_every scaled to the trace's 300,000 requests, from the facts (N / 100)
            #expect(try csvRows(csv).allSatisfy { $0["sample_every"] == "3000" })
            #expect(Self.cacheEntries(environment).count == 1, "round \(round): the facts kept")
        }
    }

    @Test("the first run's heap peak includes the id set its read kept for the facts, said with its size; the second run's does not")
    func heapOfTheReadThatGathers() throws {
        let (folder, environment, _) = try Self.fresh()
        var peaks: [Int] = []
        var errors: [String] = []
        for round in 1...2 {
            let csv = folder.path + "/heap\(round).csv"
            let result = try Self.measured(
                ["run", "--trace", Self.fixture.trace, "--backend", "lru", "--capacity", "4MiB", "--csv", csv] + Self.samplingGiven,
                environment: environment, folder: folder.path)
            #expect(result.status == 0, "\(result.err)")
            let row = try #require(try csvRows(csv).first)
            peaks.append(try #require(row["allocated_peak_bytes"].flatMap { Int($0) }))
            errors.append(result.err)
        }
        let marker = "include the id set that read kept, "
        let line = try #require(errors[0].split(separator: "\n").first { $0.contains(marker) }, "\(errors[0])")
        #expect(!errors[1].contains(marker), "\(errors[1])")
        let sizeText = try #require(line.components(separatedBy: marker).last?.split(separator: " ").first.map(String.init))
        let said = try #require(Capacity.bytes(parsing: sizeText), "\(sizeText)")
        // 30,788 keys: an open-addressing table of 2^16 buckets of 16 bytes is 1 MiB.
        #expect(said >= 512 << 10 && said <= 4 << 20, "\(said)")
        // The same replay, the id set the only difference: the peaks differ by about what was said.
        let difference = peaks[0] - peaks[1]
        #expect(difference >= said / 2 && difference <= said * 3 / 2 + (256 << 10), "peaks \(peaks), said \(said)")
    }

    @Test("run, first command without the sampling values: one pass and the count of the first 409,600 requests (here the whole trace)")
    func runCounting() throws {
        let (folder, environment, allowance) = try Self.fresh()
        let csv = folder.path + "/run.csv"
        let result = try Self.measured(["run", "--trace", Self.fixture.trace, "--backend", "lru", "--capacity", "4MiB", "--csv", csv], environment: environment, folder: folder.path)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.rchar <= Int(1.05 * Double(Self.traceBytes)) + Self.countPrefix + allowance, "rchar \(result.rchar)")
        #expect(try Self.hits(csv) == ["lru 4194304": "13443"])
        #expect(try csvRows(csv).allSatisfy { $0["sample_every"] == "3000" })
        #expect(Self.cacheEntries(environment).count == 1)
    }

    @Test("run of four timed points on a new file: the first point's replay gives the facts, every row carries them; the rows equal the facts-first path's and sha256sum's checksum")
    func runPointsGathered() throws {
        let (folder, environment, allowance) = try Self.fresh()
        let gathered = folder.path + "/gathered.csv"
        let result = try Self.measured(
            ["run", "--trace", Self.fixture.trace, "--backend", "lru,fifo", "--capacity", "1MiB,4MiB", "--csv", gathered] + Self.samplingGiven,
            environment: environment, folder: folder.path)
        #expect(result.status == 0, "\(result.err)")
        // Four timed points, each replayed alone: four reads, the facts among them (before: five).
        #expect(result.rchar <= Int(4.05 * Double(Self.traceBytes)) + allowance, "rchar \(result.rchar)")
        #expect(try Self.hits(gathered) == ["lru 1048576": "3524", "lru 4194304": "13443", "fifo 1048576": "3470", "fifo 4194304": "12365"])
        // The checksum as sha256sum prints it, computed apart from the workbench.
        let summed = try runBounded(120, "/usr/bin/sha256sum", [Self.fixture.trace])
        let digest = try #require(summed.out.split(separator: " ").first.map(String.init))
        let rows = try csvRows(gathered)
        #expect(rows.count == 4 && rows.allSatisfy { $0["trace_sha256"] == digest })
        // The facts-first path (a % capacity, in a cache of its own) gives the same trace columns.
        let other = TemporaryFolder()
        let shares = folder.path + "/shares.csv"
        let first = try Self.measured(
            ["run", "--trace", Self.fixture.trace, "--backend", "lru", "--capacity", "1%", "--no-timing", "--csv", shares], environment: Self.environment(other), folder: other.path)
        #expect(first.status == 0, "\(first.err)")
        let factsFirst = try #require(try csvRows(shares).first)
        for row in rows {
            for column in ["trace_sha256", "working_set_bytes", "unique_objects", "compulsory_misses", "requests", "sample_every"] {
                #expect(row[column] == factsFirst[column], "\(column): \(row[column] ?? "") against \(factsFirst[column] ?? "")")
            }
        }
    }

    @Test("sweep in bytes: one pass feeds lru's curve and the fanned-out points and gives the facts; the next command in % reads once; rows as before")
    func sweepBytes() throws {
        let (folder, environment, allowance) = try Self.fresh()
        let expected = [
            "lru 1048576": "3524", "lru 4194304": "13443", "lru 16777216": "39252", "fifo 1048576": "3470", "fifo 4194304": "12365",
            "fifo 16777216": "33259", "sieve 1048576": "4490", "sieve 4194304": "39572", "sieve 16777216": "75697",
        ]
        for (round, extra) in [(1, Self.samplingGiven), (2, [])] {
            let csv = folder.path + "/sweep\(round).csv"
            let result = try Self.measured(
                ["sweep", "--trace", Self.fixture.trace, "--backend", "lru,fifo,sieve", "--capacity", "1MiB..16MiB", "--points", "3", "--no-timing", "--csv", csv] + extra,
                environment: environment, folder: folder.path)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.rchar <= Int(1.05 * Double(Self.traceBytes)) + allowance, "round \(round): rchar \(result.rchar)")  // before: 2.0× the first time
            #expect(try Self.hits(csv) == expected)
            #expect(try csvRows(csv).filter { $0["backend"] == "lru" }.allSatisfy { $0["method"] == "mattson" })
            #expect(!FileManager.default.fileExists(atPath: csv + ".partial"))
            #expect(result.err.contains("from the trace facts cache of") == (round == 2), "\(result.err)")
        }
        let shares = folder.path + "/shares.csv"
        let next = try Self.measured(
            ["sweep", "--trace", Self.fixture.trace, "--backend", "lru,fifo", "--capacity", "1%,10%", "--no-timing", "--csv", shares], environment: environment, folder: folder.path)
        #expect(next.status == 0 && next.err.contains("checksum and working set from the trace facts cache of"), "\(next.err)")
        #expect(next.rchar <= Int(1.05 * Double(Self.traceBytes)) + allowance, "rchar \(next.rchar)")
        #expect(try Self.hits(shares) == ["lru 70002214": "79539", "lru 700022139": "166306", "fifo 70002214": "68652", "fifo 700022139": "152870"])
    }

    @Test("an untimed sweep of a binary trace whose key records fit in a quarter of the available memory: read into memory once, each point replayed alone; one byte less available, fed together from one streamed read; rows equal each other's and --no-fan-out's, each way one read")
    func sweepReadChoice() throws {
        let (folder, environment, allowance) = try Self.fresh()
        let arguments = ["sweep", "--trace", Self.fixture.trace, "--backend", "fifo,sieve,arc", "--capacity", "1MiB,4MiB", "--no-timing"]
        // The first command: its read into memory gives the facts too (one read), kept for the next.
        let first = try Self.measured(arguments + ["--csv", folder.path + "/first.csv"] + Self.samplingGiven, environment: environment, folder: folder.path)
        #expect(first.status == 0 && first.err.contains("the trace was read into memory once (6.87MiB of key records; rchar 6.87MiB, 1.000× the file)"), "\(first.err)")
        #expect(first.rchar <= Int(1.05 * Double(Self.traceBytes)) + allowance, "rchar \(first.rchar)")
        #expect(try csvRows(folder.path + "/first.csv").allSatisfy { $0["trace_sha256"] == Self.traceSHA256 && $0["working_set_bytes"] == "7000221392" })
        let keyRecords = 300_000 * 24  // the fixture's records, 24 bytes each in memory
        var rows: [String: [[String: String]]] = [:]
        for (name, available, extra) in [("preloaded", 4 * keyRecords, [String]()), ("fed", 4 * keyRecords - 1, []), ("alone", 4 * keyRecords, ["--no-fan-out"])] {
            let csv = folder.path + "/\(name).csv"
            let result = try Self.measured(arguments + extra + ["--csv", csv], environment: environment.merging(["CWB_MEM_AVAILABLE": String(available)]) { $1 }, folder: folder.path)
            #expect(result.status == 0, "\(result.err)")
            let bound = name == "alone" ? 6.05 : 1.05
            #expect(result.rchar <= Int(bound * Double(Self.traceBytes)) + allowance, "\(name): rchar \(result.rchar)")
            #expect(result.err.contains("the trace was read into memory once (6.87MiB of key records; rchar 6.87MiB, 1.000× the file) and the 6 points were each replayed from it, the untimed ones alone rather than fed together from one streamed read") == (name == "preloaded"), "\(result.err)")
            #expect(result.err.contains("6 untimed points were fed from one read") == (name == "fed"), "\(result.err)")
            rows[name] = try csvRows(csv)
            #expect(rows[name]!.allSatisfy { $0["preloaded"] == (name == "preloaded" ? "yes" : "no") }, "\(name)")
            #expect(rows[name]!.allSatisfy { $0["points_at_once"] == (name == "fed" ? "6" : "2") }, "\(name)")
        }
        let measuredColumns: Set<String> = ["run_id", "throughput_rps", "wall_s", "allocated_peak_bytes", "rss_peak_bytes", "memory_overhead_ratio",
                                            "points_at_once", "preloaded", "trace_load_s", "command", "allocated_final_bytes", "rss_final_bytes"]
        func counts(_ name: String) -> [[String: String]] { rows[name]!.map { $0.filter { !measuredColumns.contains($0.key) } } }
        #expect(counts("preloaded") == counts("alone") && counts("fed") == counts("alone"))
        #expect(try Self.hits(folder.path + "/preloaded.csv") == Self.hits(folder.path + "/first.csv"))
    }

    @Test("fed together, a binary trace's blocks are key records when every point is a plain replay (lru's curve beside them, lirs handed requests made from them, the first command's facts gathered in the same read) and requests otherwise (a warm-up); the counts equal a read per point's either way, and the command reads the file once (a warm-up's prefix aside)")
    func fedBlocks() throws {
        let (folder, environment, allowance) = try Self.fresh()
        let fed = environment.merging(["CWB_MEM_AVAILABLE": "1"]) { $1 }  // too little memory to read the trace into it
        let measuredColumns: Set<String> = ["run_id", "throughput_rps", "wall_s", "allocated_peak_bytes", "rss_peak_bytes", "memory_overhead_ratio",
                                            "points_at_once", "command", "allocated_final_bytes", "rss_final_bytes"]
        for (name, extra, blocks) in [("plain", [String](), "key records"), ("warm", ["--warmup", "10%"], "requests")] {
            let arguments = ["sweep", "--trace", Self.fixture.trace, "--backend", "lru,fifo,s3fifo,lirs", "--capacity", "1MiB,4MiB", "--no-timing"] + extra + Self.samplingGiven
            let together = try Self.measured(arguments + ["--csv", folder.path + "/\(name)-fed.csv"], environment: fed, folder: folder.path)
            #expect(together.status == 0 && together.err.contains("fed from one read of the trace"), "\(name): \(together.err)")
            #expect(together.err.contains("blocks of 262144 \(blocks), read ahead while the cores fed the ones before"), "\(name): \(together.err)")
            // A warm-up's first requests' keys are scanned apart (docs/sweep.md, "Reads per
            // command"): its 30,000 records in one 1 MiB read.
            let warmupScan = name == "warm" ? 1 << 20 : 0
            #expect(together.rchar <= Int(1.05 * Double(Self.traceBytes)) + warmupScan + allowance, "\(name): rchar \(together.rchar)")
            let alone = try Self.measured(arguments + ["--no-fan-out", "--csv", folder.path + "/\(name)-alone.csv"], environment: fed, folder: folder.path)
            #expect(alone.status == 0, "\(name): \(alone.err)")
            let (a, b) = (try csvRows(folder.path + "/\(name)-fed.csv"), try csvRows(folder.path + "/\(name)-alone.csv"))
            #expect(a.count == 8 && a.map { $0.filter { !measuredColumns.contains($0.key) } } == b.map { $0.filter { !measuredColumns.contains($0.key) } }, "\(name)")
            #expect(a.contains { Int($0["hits"] ?? "") ?? 0 > 0 }, "\(name)")
        }
    }

    @Test("timed points of a binary trace that fits, its facts kept: a run of four and a timed sweep of two read it into memory once (before: a read each); the heap figures leave the trace out; rows equal the streamed replays'")
    func timedPointsPreloaded() throws {
        let (folder, environment, allowance) = try Self.fresh()
        // One point: the replay's read gives the facts, kept for the commands below.
        let facts = try Self.measured(["run", "--trace", Self.fixture.trace, "--backend", "lru", "--capacity", "1MiB", "--no-timing"] + Self.samplingGiven, environment: environment, folder: folder.path)
        #expect(facts.status == 0 && facts.rchar <= Int(1.05 * Double(Self.traceBytes)) + allowance, "\(facts.err)")
        let keyRecords = 300_000 * 24
        for (command, arguments, points) in [
            ("run", ["run", "--backend", "lru,fifo", "--capacity", "1MiB,4MiB"], 4), ("sweep", ["sweep", "--backend", "fifo", "--capacity", "1MiB,4MiB"], 2),
        ] {
            var rows: [String: [[String: String]]] = [:]
            for (name, available) in [("preloaded", 4 * keyRecords), ("streamed", 4 * keyRecords - 1)] {
                let csv = folder.path + "/\(command)-\(name).csv"
                let result = try Self.measured(arguments + ["--trace", Self.fixture.trace, "--csv", csv],
                                               environment: environment.merging(["CWB_MEM_AVAILABLE": String(available)]) { $1 }, folder: folder.path)
                #expect(result.status == 0, "\(result.err)")
                let bound = name == "preloaded" ? 1.05 : Double(points) + 0.05  // a read per timed point, streamed
                #expect(result.rchar <= Int(bound * Double(Self.traceBytes)) + allowance, "\(command) \(name): rchar \(result.rchar)")
                let described = "the \(points) points were" + (command == "run" ? " each" : "")
                #expect(result.err.contains("the trace was read into memory once (6.87MiB of key records; rchar 6.87MiB, 1.000× the file) and \(described) replayed from it") == (name == "preloaded"), "\(result.err)")
                rows[name] = try csvRows(csv)
                #expect(rows[name]!.count == points && rows[name]!.allSatisfy { $0["preloaded"] == (name == "preloaded" ? "yes" : "no") && $0["timing"] == "on" })
            }
            #expect(try Self.hits(folder.path + "/\(command)-preloaded.csv") == Self.hits(folder.path + "/\(command)-streamed.csv"))
            // The trace (7.2 MB of records) is left out of the heap: each row's peak within 2 MiB of its streamed replay's.
            for (preloaded, streamed) in zip(rows["preloaded"]!, rows["streamed"]!) {
                let (a, b) = (Int(preloaded["allocated_peak_bytes"] ?? "") ?? -1, Int(streamed["allocated_peak_bytes"] ?? "") ?? -1)
                #expect(a > 0 && b > 0 && abs(a - b) < 2 << 20, "\(command) \(preloaded["backend"] ?? "") \(preloaded["capacity_bytes"] ?? ""): heap peak \(a) preloaded, \(b) streamed")
            }
        }
    }

    @Test("timed sweep on a new file: read into memory, that read gives the facts and both points run at once from it; a trace that does not fit: its first point runs alone and gives the facts, the others follow with them")
    func sweepTimedGathered() throws {
        let keyRecords = 300_000 * 24
        for (fits, available) in [(true, 4 * keyRecords), (false, 4 * keyRecords - 1)] {
            let (folder, environment, allowance) = try Self.fresh()
            let csv = folder.path + "/timed.csv"
            let arguments = ["sweep", "--trace", Self.fixture.trace, "--backend", "fifo", "--capacity", "1MiB,4MiB", "--csv", csv] + Self.samplingGiven
            let result = try Self.measured(arguments + ["--jobs", "2"], environment: environment.merging(["CWB_MEM_AVAILABLE": String(available)]) { $1 }, folder: folder.path)
            #expect(result.status == 0, "\(result.err)")
            // Streamed, a read per timed point (before: three).
            #expect(result.rchar <= Int((fits ? 1.05 : 2.05) * Double(Self.traceBytes)) + allowance, "rchar \(result.rchar)")
            #expect(try Self.hits(csv) == ["fifo 1048576": "3470", "fifo 4194304": "12365"])
            #expect(try csvRows(csv).map { $0["points_at_once"] ?? "" }.sorted() == (fits ? ["2", "2"] : ["1", "1"]))
            #expect(try csvRows(csv).allSatisfy { $0["preloaded"] == (fits ? "yes" : "no") })
        }
    }

    @Test("a sweep on a new file whose last record is cut: the pass that was to give the facts stops it with one line, and no journal or CSV is left")
    func sweepBadTraceLeavesNoJournal() throws {
        let folder = TemporaryFolder()
        let environment = Self.environment(folder)
        let trace = folder.path + "/cut.oracleGeneral"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixture.trace)))
        bytes += [1, 2, 3, 4, 5]  // 5 bytes of a 24-byte record
        try Data(bytes).write(to: URL(fileURLWithPath: trace))
        let csv = folder.path + "/cut.csv"
        let result = try Self.measured(
            ["sweep", "--trace", trace, "--backend", "fifo,sieve", "--capacity", "1MiB,4MiB", "--no-timing", "--csv", csv] + Self.samplingGiven,
            environment: environment, folder: folder.path)
        #expect(result.status == 2 && result.err.split(separator: "\n").count == 1 && result.err.contains("truncated record"), "\(result.err)")
        #expect(!FileManager.default.fileExists(atPath: csv + ".partial") && !FileManager.default.fileExists(atPath: csv))
        #expect(Self.cacheEntries(environment).isEmpty)
    }

    @Test("the facts pass: a file changed while it was read is refused; a reader that stopped early has its facts read apart, equal to a scan's")
    func factsPass() throws {
        let folder = TemporaryFolder()
        let trace = folder.path + "/copy.oracleGeneral"
        try FileManager.default.copyItem(atPath: Self.fixture.trace, toPath: trace)
        let cache = TraceFactsCache(folder: folder.path + "/cache/trace-facts")
        // Changed between the pass's first chunk and its end: no facts, nothing kept.
        let changed = try #require(TraceFactsPass(try TraceFile(path: trace), cache: cache))
        let reader = try changed.open(keepKeyNames: false)
        _ = try reader.nextChunk()
        var times = [timespec(tv_sec: time(nil) + 10, tv_nsec: 7), timespec(tv_sec: time(nil) + 10, tv_nsec: 7)]
        #expect(utimensat(AT_FDCWD, trace, &times, 0) == 0)
        while try reader.nextChunk() != nil {}
        #expect(throws: TraceError.self) { try changed.finish() }
        #expect(changed.facts == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/cache/trace-facts"))
        // Stopped after one chunk (a replay that broke off): read apart, said, and kept.
        let stopped = try #require(TraceFactsPass(try TraceFile(path: trace), cache: cache))
        _ = try stopped.open(keepKeyNames: false).nextChunk()
        let facts = try stopped.finish()
        #expect(facts.sha256 == Self.traceSHA256 && facts.summary.requests == 300_000 && facts.summary.uniqueKeys == 30788)
        #expect(facts.summary.workingSetBytes == 7_000_221_392)
        #expect(stopped.notes.count == 1 && stopped.notes[0].contains("read apart"))
        let scanned = try #require(try TraceFacts.scan(try TraceFile(path: trace)))
        #expect(scanned.summary == facts.summary && scanned.sha256 == facts.sha256)
        #expect(cache.load(facts.identity, reading: TraceFactsCache.reading(try TraceFile(path: trace))) != nil)
    }

    @Test("sweep in %: the working set from the cache the second time, said on stderr; rows as before")
    func sweepShares() throws {
        let (folder, environment, allowance) = try Self.fresh()
        for (round, bound) in [(1, 2.05), (2, 1.05)] {
            let csv = folder.path + "/shares\(round).csv"
            let result = try Self.measured(
                ["sweep", "--trace", Self.fixture.trace, "--backend", "lru,fifo", "--capacity", "1%,10%", "--no-timing", "--csv", csv],
                environment: environment, folder: folder.path)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.rchar <= Int(bound * Double(Self.traceBytes)) + allowance, "round \(round): rchar \(result.rchar)")
            #expect(try Self.hits(csv) == ["lru 70002214": "79539", "lru 700022139": "166306", "fifo 70002214": "68652", "fifo 700022139": "152870"])
            #expect(result.err.contains("checksum and working set from the trace facts cache of") == (round == 2), "\(result.err)")
        }
    }

    @Test("mrc in bytes: the curves' read gives the facts the first time (one read), the kept facts the next; the curve as before")
    func mrc() throws {
        let (folder, environment, allowance) = try Self.fresh()
        for round in 1...2 {
            let csv = folder.path + "/mrc\(round).csv"
            let result = try Self.measured(
                ["mrc", "--trace", Self.fixture.trace, "--policy", "lru,fifo", "--capacity", "1MiB,8MiB", "--csv", csv], environment: environment, folder: folder.path)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.rchar <= Int(1.05 * Double(Self.traceBytes)) + allowance, "round \(round): rchar \(result.rchar)")  // before: 2.0× the first time
            let rows = try csvRows(csv).map { "\($0["policy"] ?? "") \($0["capacity_bytes"] ?? "") \($0["hits"] ?? "") \($0["method"] ?? "") \($0["capacity_share"] ?? "")" }
            // fifo's method by the default rule (300,000 requests: exact), its share of the working set from the facts.
            #expect(rows == ["lru 1048576 3524 mattson 0.00014979183389804423", "lru 8388608 23988 mattson 0.0011983346711843539",
                             "fifo 1048576 3470 replay 0.00014979183389804423", "fifo 8388608 20992 replay 0.0011983346711843539"])
            #expect(result.err.contains("checksum and working set from the trace facts cache of") == (round == 2), "\(result.err)")
            #expect(!result.err.contains("heap peak"), "\(result.err)")  // the note for rows that measure memory
            #expect(Self.cacheEntries(environment).count == 1)
        }
        // A share of the working set needs it first: two reads the first time, as before.
        let (other, fresh, _) = try Self.fresh()
        let shares = try Self.measured(["mrc", "--trace", Self.fixture.trace, "--policy", "lru", "--capacity", "1%"], environment: fresh, folder: other.path)
        #expect(shares.status == 0 && shares.rchar > Int(1.9 * Double(Self.traceBytes)), "\(shares.err) rchar \(shares.rchar)")
    }

    @Test("mrc: a method guessed from the reader's record count that the facts overturn (more records than the exact limit, fewer with a size) is computed again by the rule; rows equal the facts-first path's")
    func mrcGuessOverturned() throws {
        let (folder, environment, _) = try Self.fresh()
        // 1,000,100 records, of which the first 3,000 have a size: exact by the rule (non-zero
        // requests up to 1,000,000), MiniSim by the record count.
        let limit = MissRatioCurveRun.exactRequestLimit
        let requests = (0..<(limit + 100)).map { index in
            Request(time: Double(index), id: UInt64(index < 3_000 ? index % 700 : index), size: index < 3_000 ? 100 + index % 7 : 0)
        }
        let trace = InPlaceReplayTests.oracleGeneralFile(requests, in: folder)
        var outputs: [[String]] = []
        for round in 1...2 {
            let csv = folder.path + "/guess\(round).csv"
            let result = try Self.measured(["mrc", "--trace", trace, "--policy", "fifo", "--capacity", "10KiB,80KiB", "--csv", csv], environment: environment, folder: folder.path)
            #expect(result.status == 0, "\(result.err)")
            outputs.append(try csvRows(csv).map { "\($0["method"] ?? "") \($0["capacity_bytes"] ?? "") \($0["hits"] ?? "") \($0["requests"] ?? "") \($0["capacity_share"] ?? "")" })
            #expect(result.out.contains("exact: one full fifo replay per capacity (default for fifo on "), "\(result.out)")
        }
        #expect(outputs[0] == outputs[1] && outputs[0].count == 2 && outputs[0].allSatisfy { $0.hasPrefix("replay ") }, "\(outputs)")
        // The hits by hand: 700 keys cycled in order, 3,000 requests of 100–106 bytes. FIFO
        // holding at most 105 of them (10 KiB) misses every request of a cycle longer than it;
        // holding all 700 (80 KiB ≥ 700 × 106 bytes) it misses each key once: 2,300 hits.
        #expect(outputs[0].map { $0.split(separator: " ")[2] } == ["0", "2300"], "\(outputs)")
    }

    @Test("mrc's one read stops at the chunk whose keys could sum above 2^63 bytes, with the facts-first path's error, and writes no CSV")
    func mrcTreeSumBound() throws {
        let (folder, environment, _) = try Self.fresh()
        // 2,048 keys of 2^53 bytes: up to 2^64 live, past the trees' Int sums.
        let trace = folder.file("huge.csv", "time,key,size\n" + (0..<2_048).map { "\($0),k\($0),\(SizeLimits.largestObject)" }.joined(separator: "\n") + "\n")
        // Bytes: the curves' read (stopped); a share: the facts first, then the check.
        for capacity in ["1GiB", "1%"] {
            let csv = folder.path + "/bound\(capacity).csv"
            let result = try Self.measured(["mrc", "--trace", trace, "--policy", "lru", "--capacity", capacity, "--csv", csv], environment: environment, folder: folder.path)
            #expect(result.status == 2, "\(result.err)")
            #expect(result.err == "bench: error: \(trace): 2048 keys of up to 9007199254740992 bytes could sum above 2^63 bytes; curves are limited to that\n", "\(result.err)")
            #expect(!FileManager.default.fileExists(atPath: csv))
        }
    }

    @Test("sweep: lru's points are replayed, not taken from its curve, when the keys could sum above 2^63 bytes: checked on the requests read so far while the read gathers the facts, and from the kept facts; rows equal bench run's (a trap before)")
    func sweepTreeSumBound() throws {
        let (folder, environment, _) = try Self.fresh()
        // 100 keys of 2^53 bytes requested three times in turn, then 1,948 others once: 2,048 keys.
        let keys = (0..<300).map { $0 % 100 } + Array(100..<2_048)
        let trace = folder.file("huge.csv", "time,key,size\n" + keys.enumerated().map { "\($0.offset),k\($0.element),\(SizeLimits.largestObject)" }.joined(separator: "\n") + "\n")
        // By hand: 512 PiB holds 64 such objects, fewer than the 100 in turn: no hit; 1 EiB
        // holds 128: the 100 keys' second and third requests hit (200).
        let expected = ["lru 576460752303423488": "0", "lru 1152921504606846976": "200"]
        // Alone (its own read), then fed beside fifo's points in the fanned-out read; a fresh cache, then the kept facts.
        for (round, backends) in [(1, "lru"), (2, "lru"), (3, "lru,fifo")] {
            if round == 3 { try? FileManager.default.removeItem(atPath: environment["XDG_CACHE_HOME"]!) }
            let csv = folder.path + "/sweep\(round).csv"
            let result = try Self.measured(
                ["sweep", "--trace", trace, "--backend", backends, "--capacity", "512PiB,1EiB", "--no-timing", "--csv", csv], environment: environment, folder: folder.path)
            #expect(result.status == 0, "round \(round): \(result.err)")
            let rows = try csvRows(csv).filter { $0["backend"] == "lru" }
            #expect(Dictionary(uniqueKeysWithValues: rows.map { ("lru \($0["capacity_bytes"] ?? "")", $0["hits"] ?? "") }) == expected, "round \(round)")
            #expect(rows.count == 2 && rows.allSatisfy { $0["method"] == "replay" } && !result.err.contains("exact miss-ratio curve"), "round \(round): \(result.err)")
        }
        for (capacity, hits) in expected {
            let csv = folder.path + "/run.csv"
            let run = try Self.measured(
                ["run", "--trace", trace, "--backend", "lru", "--capacity", String(capacity.split(separator: " ")[1]), "--no-timing", "--csv", csv],
                environment: environment, folder: folder.path)
            #expect(run.status == 0, "\(run.err)")
            #expect(try csvRows(csv).first?["hits"] == hits, "\(capacity)")
        }
    }

    @Test("plan and shard: the plan's facts pass is the only read before the shards; each shard reads once")
    func shard() throws {
        let (folder, environment, allowance) = try Self.fresh()
        let plan = folder.path + "/plan.json"
        let write = try Self.measured(
            ["sweep", "--trace", Self.fixture.trace, "--backend", "lru,fifo,sieve", "--capacity", "1MiB..16MiB", "--points", "3", "--no-timing", "--plan", plan],
            environment: environment, folder: folder.path)
        #expect(write.status == 0, "\(write.err)")
        #expect(write.rchar <= Int(1.05 * Double(Self.traceBytes)) + allowance, "plan: rchar \(write.rchar)")  // before: 2.3×
        var hits: [String: String] = [:]
        for shard in 0..<2 {
            let run = try Self.measured(["sweep", "--plan", plan, "--shard", "\(shard)/2"], environment: environment, folder: folder.path)
            #expect(run.status == 0, "\(run.err)")
            #expect(run.rchar <= Int(1.05 * Double(Self.traceBytes)) + allowance, "shard \(shard): rchar \(run.rchar)")  // before: 5.7×
            hits.merge(try Self.hits(folder.path + "/plan.shard-\(shard)-of-2.csv")) { first, _ in first }
        }
        #expect(hits.count == 9 && hits["lru 4194304"] == "13443" && hits["fifo 16777216"] == "33259" && hits["sieve 1048576"] == "4490")
    }

    @Test("a shard on another machine (no facts kept there) takes them from the plan, `%` capacities included, and reads the trace once; rows as on the plan's machine")
    func shardElsewhere() throws {
        let (folder, environment, allowance) = try Self.fresh()
        let plan = folder.path + "/plan.json"
        let write = try Self.measured(
            ["sweep", "--trace", Self.fixture.trace, "--backend", "lru,fifo", "--capacity", "5%,40%", "--no-timing", "--plan", plan],
            environment: environment, folder: folder.path)
        #expect(write.status == 0, "\(write.err)")
        let written = try SweepPlan.read(path: plan)
        let facts = try #require(written.traceFacts)
        #expect(facts.sha256 == Self.traceSHA256 && facts.fileBytes == Self.traceBytes && facts.workingSetBytes == "7000221392")
        #expect(facts.requests == 300_000 && facts.uniqueKeys == 30788)
        for shard in 0..<2 {
            // Each shard on a machine of its own: nothing kept there.
            let elsewhere = ["XDG_CACHE_HOME": folder.path + "/xdg-\(shard)", "HOME": folder.path + "/home-\(shard)"]
            let (hereCSV, thereCSV) = (folder.path + "/here-\(shard).csv", folder.path + "/there-\(shard).csv")
            let here = try Self.measured(["sweep", "--plan", plan, "--shard", "\(shard)/2", "--csv", hereCSV], environment: environment, folder: folder.path)
            #expect(here.status == 0, "\(here.err)")
            let there = try Self.measured(["sweep", "--plan", plan, "--shard", "\(shard)/2", "--csv", thereCSV], environment: elsewhere, folder: folder.path)
            #expect(there.status == 0, "\(there.err)")
            // Before: the facts read first (1x), then the pass (1x); each shard holds lru's
            // curve and one fifo point, fed from that one pass.
            #expect(there.rchar <= Int(1.05 * Double(Self.traceBytes)) + allowance, "shard \(shard) elsewhere: rchar \(there.rchar)")
            #expect(there.err.contains("checksum and working set from the plan"), "\(there.err)")
            let (hits, hitsThere) = (try Self.hits(hereCSV), try Self.hits(thereCSV))
            #expect(hits.count == 2 && hitsThere == hits)
            // The read checked them and kept them there: the next command there reads them from its own cache.
            #expect(Self.cacheEntries(elsewhere).count == 1)
        }
    }

    @Test("a shard whose trace is not the plan's: another size or impossible planned facts refused before any read; other bytes of the same size refused when the read ends, with no row")
    func shardElsewhereChanged() throws {
        let (folder, environment, allowance) = try Self.fresh()
        let elsewhere = ["XDG_CACHE_HOME": folder.path + "/xdg-elsewhere", "HOME": folder.path + "/home-elsewhere"]
        let trace = folder.path + "/t.oracleGeneral"
        try FileManager.default.copyItem(atPath: Self.fixture.trace, toPath: trace)
        let plan = folder.path + "/plan.json"
        let write = try Self.measured(
            ["sweep", "--trace", trace, "--backend", "lru", "--capacity", "1MiB,4MiB", "--no-timing", "--plan", plan],
            environment: environment, folder: folder.path)
        #expect(write.status == 0, "\(write.err)")
        let results = SweepPlan.shardResultsPath(plan: plan, index: 0, count: 1)
        let run = { try Self.measured(["sweep", "--plan", plan, "--shard", "0/1"], environment: elsewhere, folder: folder.path) }

        // Planned facts that no trace can have (more unique keys than requests): the plan is damaged.
        let original = try String(contentsOfFile: plan, encoding: .utf8)
        #expect(original.contains("\"uniqueKeys\" : 30788"))
        try original.replacingOccurrences(of: "\"uniqueKeys\" : 30788", with: "\"uniqueKeys\" : 300001").write(toFile: plan, atomically: true, encoding: .utf8)
        let damaged = try run()
        #expect(damaged.status == 2 && damaged.err.contains("the plan's trace facts hold impossible figures"), "\(damaged.err)")
        #expect(damaged.rchar < Self.traceBytes / 10, "rchar \(damaged.rchar)")
        // Counts that are possible but huge (a damaged plan): hints only, so the read finds them out; no trap.
        try original.replacingOccurrences(of: "\"requests\" : 300000", with: "\"requests\" : 9223372036854775807").write(toFile: plan, atomically: true, encoding: .utf8)
        let huge = try run()
        #expect(huge.status == 2 && huge.err.contains("is not the file the plan was written on") && huge.err.contains("with 9223372036854775807"), "\(huge.err)")
        #expect(!FileManager.default.fileExists(atPath: results) && !FileManager.default.fileExists(atPath: results + ".partial"))
        try original.write(toFile: plan, atomically: true, encoding: .utf8)
        // The plan's identity leaves out its facts: the same sweep planned again is the same plan.
        let identity = try SweepPlan.read(path: plan).identity()
        var withoutFacts = try SweepPlan.read(path: plan)
        withoutFacts.traceFacts = nil
        #expect(try withoutFacts.identity() == identity)

        // The same size, one request's id changed (oracleGeneral: a u32 time, then the u64 id).
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: trace)))
        bytes[24 * 1000 + 4] ^= 0xff
        try Data(bytes).write(to: URL(fileURLWithPath: trace))
        let changed = try run()
        #expect(changed.status == 2 && changed.err.contains("is not the file the plan was written on"), "\(changed.err)")
        #expect(changed.rchar <= Int(1.05 * Double(Self.traceBytes)) + allowance, "rchar \(changed.rchar)")
        #expect(!FileManager.default.fileExists(atPath: results) && !FileManager.default.fileExists(atPath: results + ".partial"))

        // Another size: refused at once.
        try Data(bytes + [UInt8](repeating: 0, count: 24)).write(to: URL(fileURLWithPath: trace))
        let grown = try run()
        #expect(grown.status == 2 && grown.err.contains("changed since the plan was written: it is 7200024 bytes, the plan's trace was 7200000"), "\(grown.err)")
        #expect(grown.rchar < Self.traceBytes / 10, "rchar \(grown.rchar)")
        #expect(!FileManager.default.fileExists(atPath: results) && !FileManager.default.fileExists(atPath: results + ".partial"))
    }

    @Test("analyze reads the trace once")
    func analyze() throws {
        let (folder, environment, allowance) = try Self.fresh()
        let result = try Self.measured(["analyze", Self.fixture.trace], environment: environment, folder: folder.path)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.rchar <= Int(1.05 * Double(Self.traceBytes)) + allowance, "rchar \(result.rchar)")
        #expect(result.out.contains("objects               30788") && result.out.contains("compulsory miss ratio 0.1026 of requests"))
    }

    @Test("a compressed trace: one decompression for the facts the first time, none after; its checksum still the decompressed bytes'; a pipe still refused")
    func compressed() throws {
        let folder = TemporaryFolder()
        let environment = Self.environment(folder)
        let trace = folder.path + "/t.oracleGeneral.gz"
        let gzip = try runBounded(120, "/bin/sh", ["-c", "gzip -c -1 < \"$0\" > \"$1\"", Self.fixture.trace, trace])
        try #require(gzip.status == 0, "\(gzip.err)")
        var reads: [Int] = []
        for round in 1...2 {
            let csv = folder.path + "/gz\(round).csv"
            let result = try Self.measured(
                ["run", "--trace", trace, "--backend", "lru", "--capacity", "4MiB", "--no-timing", "--csv", csv], environment: environment, folder: folder.path)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.err.contains("from the trace facts cache of") == (round == 2), "\(result.err)")
            // 1ab180c's checksum of a compressed trace: SHA-256 of its decompressed bytes.
            #expect(try Self.hits(csv) == ["lru 4194304": "13443"])
            reads.append(result.rchar)
        }
        // Each pass reads the decompressed stream (7.2 MB) and gzip's compressed bytes; the
        // first command makes two passes, the second one.
        #expect(reads[1] < reads[0] - Self.traceBytes / 2 && reads[1] > Self.traceBytes)
        let piped = try runBounded(120, "/bin/sh", ["-c", "cat \"$0\" | \"$1\" run --trace /dev/stdin --backend lru", Self.fixture.trace, try builtBench])
        #expect(piped.status == 2 && piped.err.split(separator: "\n").count == 1 && piped.err.contains("is not a regular file"), "\(piped.err)")
    }

    @Test("the cache: a changed file is read again, a damaged entry ignored and rewritten, XDG_CACHE_HOME and HOME respected, nothing beside the trace")
    func cache() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/traces", withIntermediateDirectories: true)
        let trace = folder.path + "/traces/copy.oracleGeneral"
        try FileManager.default.copyItem(atPath: Self.fixture.trace, toPath: trace)
        var environment = Self.environment(folder)
        try FileManager.default.createDirectory(atPath: folder.path + "/home", withIntermediateDirectories: true)
        let arguments = ["run", "--trace", trace, "--backend", "lru", "--capacity", "4MiB", "--no-timing"]
        let first = try Self.measured(arguments, environment: environment, folder: folder.path + "/home")
        #expect(first.status == 0 && !first.err.contains("trace facts cache"), "\(first.err)")
        let entries = Self.cacheEntries(environment)
        #expect(entries.count == 1)
        let kept = try #require(entries.first)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/home").filter { !$0.hasPrefix("measured.") }.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/traces") == ["copy.oracleGeneral"])
        let second = try Self.measured(arguments, environment: environment, folder: folder.path + "/home")
        #expect(second.err.contains("from the trace facts cache of"), "\(second.err)")
        #expect(second.rchar < first.rchar - Self.traceBytes / 2)

        // A damaged entry (not JSON, then JSON with an impossible working set) is not trusted:
        // the facts are read again (the same rows) and the entry rewritten whole.
        let text = try String(contentsOfFile: kept, encoding: .utf8)
        for damaged in ["{not json", text.replacingOccurrences(of: "\"workingSetBytes\":\"7000221392\"", with: "\"workingSetBytes\":\"1\"")] {
            #expect(damaged != text)
            try Data(damaged.utf8).write(to: URL(fileURLWithPath: kept))
            let again = try Self.measured(arguments + ["--csv", folder.path + "/home/damaged.csv"], environment: environment, folder: folder.path + "/home")
            #expect(again.status == 0 && !again.err.contains("trace facts cache"), "\(again.err)")
            #expect(again.rchar > first.rchar - Self.traceBytes / 2)
            #expect(try Self.hits(folder.path + "/home/damaged.csv") == ["lru 4194304": "13443"])
            let rewritten = try JSONDecoder().decode(TraceFactsCache.Entry.self, from: Data(contentsOf: URL(fileURLWithPath: kept)))
            #expect(rewritten.workingSetBytes == "7000221392" && rewritten.sha256 == Self.traceSHA256 && rewritten.uniqueKeys == 30788)
            try FileManager.default.removeItem(atPath: folder.path + "/home/damaged.csv")
        }

        // A touched file (a new mtime and ctime) is a new version: read again, a new entry.
        let trusted = try Self.measured(arguments, environment: environment, folder: folder.path + "/home")
        #expect(trusted.err.contains("from the trace facts cache of"), "the rewritten entry is trusted again: \(trusted.err)")
        var times = [timespec(tv_sec: time(nil) + 10, tv_nsec: 123), timespec(tv_sec: time(nil) + 10, tv_nsec: 123)]
        #expect(utimensat(AT_FDCWD, trace, &times, 0) == 0)
        let afterTouch = try Self.measured(arguments, environment: environment, folder: folder.path + "/home")
        #expect(afterTouch.status == 0 && !afterTouch.err.contains("trace facts cache"), "\(afterTouch.err)")
        // The old version's entry can never be found again: pruned when the new one is kept.
        #expect(Self.cacheEntries(environment).count == 1)
        // Rewritten with other bytes: read again, and the rows name the new checksum.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: trace)))
        bytes.removeLast(24 * 1000)  // the last 1,000 requests gone
        try Data(bytes).write(to: URL(fileURLWithPath: trace))
        let rewritten = try Self.measured(arguments + ["--csv", folder.path + "/home/rewritten.csv"], environment: environment, folder: folder.path + "/home")
        #expect(rewritten.status == 0 && !rewritten.err.contains("trace facts cache"), "\(rewritten.err)")
        let row = try #require(try csvRows(folder.path + "/home/rewritten.csv").first)
        #expect(row["trace_sha256"] == (try TraceChecksum.sha256(path: trace)) && row["trace_sha256"] != Self.traceSHA256 && row["requests"] == "299000")

        // Without XDG_CACHE_HOME the cache is under HOME/.cache; with a relative one too (the XDG spec ignores it).
        for xdg in [nil, "relative/cache"] {
            environment = ["HOME": folder.path + "/home2"]
            try? FileManager.default.createDirectory(atPath: folder.path + "/home2", withIntermediateDirectories: true)
            if let xdg { environment["XDG_CACHE_HOME"] = xdg }
            let plain = try Self.measured(arguments, environment: environment, folder: folder.path + "/home2")
            #expect(plain.status == 0, "\(plain.err)")
            let made = (try? FileManager.default.contentsOfDirectory(atPath: folder.path + "/home2/.cache/cacheworkbench/trace-facts")) ?? []
            #expect(made.count == 1)
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/home2/relative"))
        }
    }
}
