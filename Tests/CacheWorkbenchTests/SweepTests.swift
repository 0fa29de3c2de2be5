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

/// Issue 11 §1: `bench sweep` — capacity ranges, parallel points equal to serial ones,
/// rows journaled as they finish and `--resume`.
@Suite("bench sweep", .serialized, .onTestWorkers)
struct SweepTests {
    /// Columns a replay measures (time, memory, ids) or that say how it ran (points at once):
    /// everything else must be equal.
    static let measured: Set<String> = [
        "run_id", "throughput_rps", "wall_s", "allocated_peak_bytes", "rss_peak_bytes", "started_at", "points_at_once",
    ]

    static func rows(_ path: String) throws -> [[String: String]] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = CSVRowText.fields(of: lines[0])
        return lines.dropFirst().map { line in
            Dictionary(uniqueKeysWithValues: zip(header, CSVRowText.fields(of: line)).filter { !measured.contains($0.0) && !$0.0.hasSuffix("_ns") })
        }
    }

    /// A small sweep over a generated trace: 3 policies × 5 capacities, timing off.
    static func arguments(trace: String, csv: String, jobs: Int, resume: Bool = false) -> SweepRun.Arguments {
        var arguments = SweepRun.Arguments()
        arguments.run.trace = trace
        arguments.run.backends = "lru,sieve,arc"
        arguments.run.capacities = "2%..60%"
        arguments.run.timing = false
        arguments.run.csv = csv
        arguments.points = 5
        arguments.jobs = jobs
        arguments.resume = resume
        return arguments
    }

    static func traceFile(_ folder: TemporaryFolder) throws -> String {
        let path = folder.path + "/t.csv"
        try TraceExport.write(InMemoryTrace(label: "zipf", requests: zipfRequests(requests: 20_000, images: 3_000)), to: path, shape: .plain)
        return path
    }

    @Test("a range is split log-spaced (or linearly) between its ends; a list is taken as it is; bad ranges are refused")
    func ranges() throws {
        #expect(try CapacitySweep.capacities(parsing: "1MiB..100MiB", points: 3, spacing: .log) == [.bytes(1 << 20), .bytes(10_485_760), .bytes(104_857_600)])
        #expect(try CapacitySweep.capacities(parsing: "10%..50%", points: 5, spacing: .linear).map { capacity -> Double in
            guard case .share(let share) = capacity else { return -1 }
            return (share * 1000).rounded() / 1000
        } == [0.1, 0.2, 0.3, 0.4, 0.5])
        #expect(try CapacitySweep.capacities(parsing: "64MiB,10%", points: 12, spacing: .log) == [.bytes(64 << 20), .share(0.1)])
        #expect { _ = try Capacity.list(parsing: "1%..5%") } throws: { "\($0)".contains("a range A..B is for `bench sweep`") }
        // A narrow byte range keeps every point asked for (rounding repeats some; the sweep says so).
        #expect(try CapacitySweep.capacities(parsing: "1..3", points: 10, spacing: .log) == [1, 1, 1, 1, 2, 2, 2, 2, 3, 3].map(Capacity.bytes))
        for (text, points, reason) in [("1MiB..10%", 4, "both ends"), ("50%..10%", 4, "below the second"), ("1MiB..2MiB", 1, "--points"),
                                       ("x..2MiB", 4, "capacity 'x'")] {
            #expect { _ = try CapacitySweep.capacities(parsing: text, points: points, spacing: .log) } throws: { "\($0)".contains(reason) }
        }
    }

    @Test("points on two cores give the rows of a serial sweep, in plan order; the journal is gone at the end")
    func parallelEqualsSerial() throws {
        let folder = TemporaryFolder()
        let trace = try Self.traceFile(folder)
        let serial = try SweepRun(Self.arguments(trace: trace, csv: folder.path + "/serial.csv", jobs: 1)).execute(progress: ProgressLine(enabled: false))
        // Each point its own replay (untimed points are otherwise fed from one read, below).
        var separate = Self.arguments(trace: trace, csv: folder.path + "/parallel.csv", jobs: 2)
        separate.fanOut = false
        let parallel = try SweepRun(separate).execute(progress: ProgressLine(enabled: false))
        #expect(serial.results.count == 15 && parallel.results.count == 15)
        let expected = try Self.rows(folder.path + "/serial.csv")
        #expect(try Self.rows(folder.path + "/parallel.csv") == expected)
        #expect(expected.map { $0["backend"]! } == Array(repeating: "lru", count: 5) + Array(repeating: "sieve", count: 5) + Array(repeating: "arc", count: 5))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/parallel.csv.partial"))
        // The same points as `bench run` replays them one by one.
        var run = RunSetup.Arguments()
        run.trace = trace
        run.backends = "sieve"
        run.capacities = "2%"
        run.timing = false
        let single = try RunSetup(run).execute(progress: ProgressLine(enabled: false)).results[0]
        #expect(single.tally.hits == parallel.results[5].tally.hits && single.capacityBytes == parallel.results[5].capacityBytes)
        #expect(parallel.notes.contains { $0.contains("points ran at once") })
    }

    @Test("untimed points fed from one read of the trace give the rows of their own replays: offline, random, admission, warm-up, objects, a memory model",
          arguments: [false, true])
    func fannedOut(objects: Bool) throws {
        let folder = TemporaryFolder()
        let trace = try Self.traceFile(folder)
        func sweep(_ csv: String, fanOut: Bool, jobs: Int) throws -> SweepRun.Outcome {
            var arguments = Self.arguments(trace: trace, csv: folder.path + "/" + csv, jobs: jobs)
            arguments.run.backends = "fifo,belady,random,lhd[admission=prob:0.3],s3fifo,fifo[admission=tinylfu],autopurge"
            arguments.run.capacities = objects ? "50..2000" : "2%..60%"
            arguments.run.ignoreObjectSize = objects
            arguments.run.warmup = "10%"
            arguments.run.materialize = false
            arguments.points = 3
            arguments.fanOut = fanOut
            return try SweepRun(arguments).execute(progress: ProgressLine(enabled: false))
        }
        let fanned = try sweep("fanned.csv", fanOut: true, jobs: 2)
        let separate = try sweep("separate.csv", fanOut: false, jobs: 1)
        #expect(fanned.results.count == 21 && separate.results.count == 21)
        let expected = try Self.rows(folder.path + "/separate.csv").map { $0.filter { $0.key != "command" } }
        #expect(try Self.rows(folder.path + "/fanned.csv").map { $0.filter { $0.key != "command" } } == expected)
        #expect(fanned.notes.contains { $0.contains("21 untimed points were fed from one read of the trace on 2 core(s)") })
        #expect(!separate.notes.contains { $0.contains("fed from one read") })
        #expect(fanned.results.allSatisfy { $0.pointsAtOnce == 21 } && fanned.results.contains { $0.tally.hits > 0 })
        // Timed points are never fanned out: each runs alone.
        var timed = Self.arguments(trace: trace, csv: folder.path + "/timed.csv", jobs: 1)
        timed.run.backends = "fifo,sieve"
        timed.run.timing = true
        timed.points = 2
        let outcome = try SweepRun(timed).execute(progress: ProgressLine(enabled: false))
        #expect(!outcome.notes.contains { $0.contains("fed from one read") })
    }

    @Test("untimed, lru's points come from one pass of its exact curve (method mattson) with a replay's counts; timed, they are replayed")
    func lruFromCurve() throws {
        let folder = TemporaryFolder()
        let trace = try Self.traceFile(folder)
        var arguments = Self.arguments(trace: trace, csv: folder.path + "/curve.csv", jobs: 2)
        arguments.run.backends = "lru,sieve"
        let curve = try SweepRun(arguments).execute(progress: ProgressLine(enabled: false))
        #expect(curve.results.filter { $0.backend == "lru" }.allSatisfy { $0.method == "mattson" })
        #expect(curve.results.filter { $0.backend == "sieve" }.allSatisfy { $0.method == "replay" })
        #expect(curve.notes.contains { $0.contains("lru's 5 points came from one pass") })
        var run = RunSetup.Arguments()
        run.trace = trace
        run.backends = "lru"
        run.capacities = curve.results.filter { $0.backend == "lru" }.map { String($0.capacityBytes) }.joined(separator: ",")
        run.timing = false
        let replays = try RunSetup(run).execute(progress: ProgressLine(enabled: false)).results
        let fromCurve = curve.results.filter { $0.backend == "lru" }
        #expect(replays.map(\.tally.hits) == fromCurve.map(\.tally.hits) && replays.map(\.tally.hitBytes) == fromCurve.map(\.tally.hitBytes))
        #expect(replays.map(\.tally.tooLarge) == fromCurve.map(\.tally.tooLarge) && replays.map(\.tally.requests) == fromCurve.map(\.tally.requests))
        let rows = try Self.rows(folder.path + "/curve.csv")
        #expect(rows.filter { $0["backend"] == "lru" }.allSatisfy { $0["method"] == "mattson" && $0["evictions"] == "" })
        arguments.run.timing = true
        arguments.run.csv = folder.path + "/timed.csv"
        let timed = try SweepRun(arguments).execute(progress: ProgressLine(enabled: false))
        #expect(timed.results.allSatisfy { $0.method == "replay" })
        #expect(timed.results.filter { $0.backend == "lru" }.map(\.tally.hits) == replays.map(\.tally.hits))
    }

    @Test("--resume runs only the points the journal lacks or that failed (a half-written last line is cut) and gives the whole sweep's rows")
    func resume() throws {
        let folder = TemporaryFolder()
        let trace = try Self.traceFile(folder)
        let whole = folder.path + "/whole.csv"
        _ = try SweepRun(Self.arguments(trace: trace, csv: whole, jobs: 2)).execute(progress: ProgressLine(enabled: false))
        // An interrupted sweep: its journal holds points 0, 3 and 7, then half a line.
        let csv = folder.path + "/resumed.csv"
        let arguments = Self.arguments(trace: trace, csv: csv, jobs: 2, resume: true)
        var run = arguments.run
        run.parsedCapacities = try CapacitySweep.capacities(parsing: arguments.run.capacities, points: arguments.points, spacing: .log)
        let plan = try RunSetup(run).plan
        let lines = try String(contentsOfFile: whole, encoding: .utf8).split(separator: "\n").map(String.init)
        // Point 5 failed the first time: --resume runs it again.
        var failed = CSVRowText.fields(of: lines[6])
        let status = try #require(lines[0].split(separator: ",").firstIndex(of: "status"))
        failed[status] = "failed"
        let failedRow = failed.map(CSVReport.escape).joined(separator: ",")
        let journal = [SweepRun.fingerprint(plan, arguments: arguments.run), lines[0]] + [0, 3, 7].map { "\($0)\t\(lines[$0 + 1])" } + ["5\t\(failedRow)"]
        _ = folder.file("resumed.csv.partial", journal.joined(separator: "\n") + "\n9\tlru,zi")
        let outcome = try SweepRun(arguments).execute(progress: ProgressLine(enabled: false))
        #expect(outcome.resumedRows == 3 && outcome.results.count == 12 && !outcome.anyFailed)
        #expect(try Self.rows(csv) == Self.rows(whole))
        #expect(!FileManager.default.fileExists(atPath: csv + ".partial"))
        // Nothing left to resume.
        #expect { _ = try SweepRun(arguments) } throws: { "\($0)".contains("found no journal") }
    }

    @Test("a journal is never overwritten, nor continued by a different sweep")
    func journalSafety() throws {
        let folder = TemporaryFolder()
        let trace = try Self.traceFile(folder)
        let csv = folder.path + "/s.csv"
        _ = folder.file("s.csv.partial", "# something else\n")
        #expect { _ = try SweepRun(Self.arguments(trace: trace, csv: csv, jobs: 1)) } throws: { "\($0)".contains("add --resume") }
        #expect { _ = try SweepRun(Self.arguments(trace: trace, csv: csv, jobs: 1, resume: true)) } throws: {
            "\($0)".contains(csv + ".partial:1: made by a different sweep")
        }
        #expect(try String(contentsOfFile: csv + ".partial", encoding: .utf8) == "# something else\n")
        #expect { _ = try SweepRun(Self.arguments(trace: trace, csv: "-", jobs: 1, resume: true)) } throws: { "\($0)".contains("--resume needs --csv FILE") }
        let escaped = "a,\"x\ny\\z\",b"
        #expect(CSVRowText.unescape(CSVRowText.escape(escaped)) == escaped && !CSVRowText.escape(escaped).contains("\n"))
        #expect(CSVRowText.fields(of: escaped) == ["a", "x\ny\\z", "b"])
        // A quote or comma right after a prepended or combining mark is one character with
        // it, but still a quote or a comma to CSV (the options fuzzer found U+0602 + quote).
        for tricky in ["\u{0602}\"", "\u{0602},x", "a,\u{0301}\"b", "\u{0602}\\\u{0602}\n"] {
            #expect(CSVRowText.fields(of: CSVReport.escape(tricky) + "," + CSVReport.escape("next")) == [tricky, "next"], "\(tricky.unicodeScalars.map(\.value))")
            #expect(Array(CSVRowText.unescape(CSVRowText.escape(tricky)).unicodeScalars) == Array(tricky.unicodeScalars))
        }
    }

    @Test("CLI: bench sweep prints its table; bad values are one line and exit 2")
    func cli() throws {
        let folder = TemporaryFolder()
        let trace = try Self.traceFile(folder)
        let result = try bench(["sweep", "--trace", trace, "--backend", "lru,fifo", "--capacity", "5%..50%", "--points", "3", "--no-timing", "--csv", folder.path + "/o.csv"])
        #expect(result.status == 0)
        #expect(try Self.rows(folder.path + "/o.csv").count == 6)
        // To standard output the rows come as they finish: header first, then one per point.
        let streamed = try bench(["sweep", "--trace", trace, "--backend", "lru,fifo", "--capacity", "5%..50%", "--points", "2", "--no-timing", "--csv", "-"])
        let lines = streamed.out.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(streamed.status == 0 && lines[0] == resultsHeader[...])  // a literal (Trust3MessagesTests.swift)
        #expect(lines[1...4].allSatisfy { CSVRowText.fields(of: String($0)).count == 223 })  // 207 + cost_from_estimate, the 10 run columns and outcome_bits (issue 43), the 4 prefetch columns (issue 45)
        #expect(lines[5].hasPrefix("backend") || lines[5].isEmpty)
        for (arguments, reason) in [(["--points", "1"], "--points must be from 2"), (["--jobs", "0"], "--jobs must be from 1"),
                                    (["--spacing", "cubic"], "--spacing must be log or linear"), (["--json", "x.json"], "--json and --timeline")] {
            let bad = try bench(["sweep", "--trace", trace, "--capacity", "5%..50%"] + arguments)
            #expect(bad.status == 2 && bad.err.hasPrefix("bench: error: ") && bad.err.contains(reason) && bad.err.split(separator: "\n").count == 1, "\(arguments)")
        }
    }

    @Test("a timed sweep takes an option one of its backends takes (--purge-target for autopurge beside lru), as an untimed one and bench run do; an option none takes is still one line and exit 2")
    func timedSweepBackendOption() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", "time,key,size,width,height\n1,a,600,10,10\n2,b,500,10,10\n3,a,600,10,10\n4,c,600,10,10\n5,a,600,10,10\n")
        let timed = try bench(["sweep", "--trace", trace, "--backend", "autopurge,lru", "--purge-target", "1", "--capacity", "1KB,4KB", "--csv", folder.path + "/o.csv"])
        #expect(timed.status == 0, "\(timed.err)")
        let rows = try Self.rows(folder.path + "/o.csv")
        #expect(rows.count == 4 && rows.allSatisfy { $0["status"] == "ok" })
        // Purged back to the whole capacity (the default target is 0.6 of it).
        let options = rows.filter { $0["backend"] == "autopurge" }.map { $0["backend_options"] ?? "" }
        #expect(options == ["preferred-after-purge=1024", "preferred-after-purge=4096"], "\(options)")
        let none = try bench(["sweep", "--trace", trace, "--backend", "lru", "--purge-target", "1", "--capacity", "1KB,4KB"])
        #expect(none.status == 2 && none.err.hasSuffix("--purge-target applies to autopurge, autopurge-o1, afnetworking, and none of those backends was chosen\n"), "\(none.err)")
    }
}
