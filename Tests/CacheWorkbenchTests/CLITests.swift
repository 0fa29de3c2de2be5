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

/// Runs the built `bench` executable (it sits next to the test binary).
/// `standardOutput`, when given, receives its output instead of `out` (e.g. /dev/full).
func bench(
    _ arguments: [String], in folder: String? = nil, standardOutput: FileHandle? = nil, environment: [String: String]? = nil
) throws -> (status: Int32, out: String, err: String) {
    let executable = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        .deletingLastPathComponent().appendingPathComponent("bench")
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
    if let environment { process.environment = environment }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = standardOutput ?? out
    process.standardError = err
    try process.run()
    let outData = standardOutput == nil ? out.fileHandleForReading.readDataToEndOfFile() : Data()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

/// A results CSV as dictionaries, fields split as RFC 4180 (the `command` column is quoted
/// and holds commas).
func csvRows(_ path: String) throws -> [[String: String]] {
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    let header = CSVRowText.fields(of: lines[0])
    return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, CSVRowText.fields(of: $0))) }
}

@Suite("bench end to end", .serialized, .onTestWorkers)
struct CLITests {
    /// The LRU hand-computed trace of LRUCacheTests, as a file: 1 hit, 6 misses, 3 evictions at 10 bytes.
    static let handTrace = "time,key,size\n0,A,4\n1,B,4\n2,A,4\n3,C,4\n4,B,4\n5,D,2\n6,A,4\n7,E,0\n"

    @Test("run writes the CSV with the hand-computed figures")
    func runCSV() throws {
        let folder = TemporaryFolder()
        let tracePath = folder.file("hand.csv", Self.handTrace)
        let result = try bench(["run", "--trace", tracePath, "--backend", "lru", "--capacity", "10,1KiB", "--csv", folder.path + "/out.csv", "--json", folder.path + "/out.json"])
        #expect(result.status == 0, "\(result.err)")
        let header = try String(contentsOfFile: folder.path + "/out.csv", encoding: .utf8).split(separator: "\n")[0]
        #expect(header == resultsHeader[...])  // a literal (Trust3MessagesTests.swift), not the list under test
        let rows = try csvRows(folder.path + "/out.csv")
        #expect(rows.count == 2)
        let row = rows[0]
        #expect(row["backend"] == "lru" && row["mode"] == "demand-fill" && row["cost_model"] == "encoded")
        #expect(row["capacity_bytes"] == "10" && row["trace_requests"] == "8" && row["requests"] == "7")
        #expect(row["hits"] == "1" && row["misses"] == "6" && row["evictions"] == "3")
        #expect(row["dropped_zero_size"] == "1" && row["status"] == "ok")
        #expect(Double(row["object_hit_ratio"] ?? "") == 1.0 / 7.0)
        #expect(Double(row["byte_hit_ratio"] ?? "") == 4.0 / 26.0)
        #expect(Int(row["get_p50_ns"] ?? "") != nil && Int(row["set_p50_ns"] ?? "") != nil)
        #expect(row["logical_write_bytes"] == "" && row["write_amplification"] == "")  // not applicable
        #expect(row["allocator"]?.hasPrefix("jemalloc") == true)
        #expect(row["trace_sha256"]?.count == 64)
        #expect(rows[1]["hits"] == "3" && rows[1]["evictions"] == "0")  // 1 KiB holds all four keys
        #expect(result.out.contains("lru"))
        #expect(FileManager.default.fileExists(atPath: folder.path + "/out.json"))
    }

    @Test("--no-timing leaves latency columns empty; % capacity resolves on the working set")
    func noTimingAndShare() throws {
        let folder = TemporaryFolder()
        let tracePath = folder.file("hand.csv", Self.handTrace)
        let result = try bench(["run", "--trace", tracePath, "--capacity", "50%", "--no-timing", "--preload", "--csv", folder.path + "/o.csv"])
        #expect(result.status == 0, "\(result.err)")
        let row = try csvRows(folder.path + "/o.csv")[0]
        #expect(row["get_p50_ns"] == "" && row["timing"] == "off" && row["preloaded"] == "yes")
        #expect(row["working_set_bytes"] == "14" && row["capacity_bytes"] == "7" && row["capacity_spec"] == "50%")
    }

    @Test("a malformed row: file:line and reason on stderr, status 2, no CSV left behind")
    func badTrace() throws {
        let folder = TemporaryFolder()
        let tracePath = folder.file("bad.csv", "time,key,size\n1,a,1\n2,b,-3\n")
        let result = try bench(["run", "--trace", tracePath, "--csv", folder.path + "/o.csv"])
        #expect(result.status == 2)
        #expect(result.err == "bench: error: \(tracePath):3: size is negative (-3)\n")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/o.csv"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["bad.csv"])
        let skipped = try bench(["run", "--trace", tracePath, "--skip-bad", "--csv", folder.path + "/o.csv"])
        #expect(skipped.status == 0)
        #expect(try csvRows(folder.path + "/o.csv")[0]["skipped_rows"] == "1")
        #expect(skipped.out.contains("1 malformed rows skipped"))
    }

    @Test("bad options and missing files exit 2 with one clear line")
    func badOptions() throws {
        let folder = TemporaryFolder()
        let tracePath = folder.file("t.csv", Self.handTrace)
        let cases: [([String], String)] = [
            (["run", "--trace", folder.path + "/nope.csv"], "cannot open: No such file or directory"),
            (["run", "--trace", tracePath, "--capacity", "lots"], "capacity 'lots'"),
            (["run", "--trace", tracePath, "--backend", "lru,fifo9"], "unknown backend 'fifo9'"),
            (["run", "--trace", tracePath, "--cost", "weight"], "unknown cost model 'weight'"),
            (["run", "--trace", tracePath, "--csv", folder.path + "/no/such/dir/o.csv"], "does not exist"),
        ]
        for (arguments, message) in cases {
            let result = try bench(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.err.hasPrefix("bench: error: ") && result.err.contains(message), "\(result.err)")
        }
    }

    @Test("memory warnings and the timeline reach the CSV, the JSON and the timeline file")
    func warningsEndToEnd() throws {
        let folder = TemporaryFolder()
        var rows = "time,key,size,width,height\n"
        for index in 0..<60 { rows += "\(index),img\(index % 6),1000,10,10\n" }
        let tracePath = folder.file("w.csv", rows)
        let result = try bench([
            "run", "--trace", tracePath, "--backend", "nscache,foundation-nscache", "--capacity", "1MiB",
            "--memory-warning", "every:20", "--warning-window", "5", "--sample-every", "10",
            "--csv", folder.path + "/o.csv", "--json", folder.path + "/o.json", "--timeline", folder.path + "/t.csv",
        ])
        #expect(result.status == 0, "\(result.err)")
        let csv = try csvRows(folder.path + "/o.csv")
        #expect(csv.map { $0["memory_warnings"] } == ["2", "2"])
        #expect(csv[0]["warning_released_bytes"] == "\(2 * 6 * 400)")  // pixel cost 10×10×4, six images
        #expect(csv[1]["warning_released_bytes"] == "0")  // corelibs NSCache ignores warnings
        #expect(csv[0]["hit_ratio_before_warnings"] == "1.0" && csv[0]["cost_model"] == "pixels")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.path + "/o.json"))) as? [String: Any])
        let warnings = try #require((json["runs"] as? [[String: Any]])?.first?["warnings"] as? [[String: Any]])
        #expect(warnings.map { $0["request_index"] as? Int } == [20, 40])
        let timeline = try csvRows(folder.path + "/t.csv")
        #expect(timeline.filter { $0["memory_warning"] == "1" }.count == 4)
        #expect(result.out.contains("warnings"))
    }

    @Test("gen is deterministic and its output replays")
    func gen() throws {
        let folder = TemporaryFolder()
        let first = try bench(["gen", "--requests", "2000", "--seed", "9", "--out", folder.path + "/a.csv"])
        let second = try bench(["gen", "--requests", "2000", "--seed", "9"])
        #expect(first.status == 0 && second.status == 0)
        #expect(try String(contentsOfFile: folder.path + "/a.csv", encoding: .utf8) == second.out)
        #expect(second.out.hasPrefix("time,key,size,width,height\n"))
        let plain = try bench(["gen", "--requests", "3", "--keys", "id", "--plain"])
        #expect(plain.out.split(separator: "\n").allSatisfy { $0.split(separator: ",").count == 3 })
        #expect(try bench(["gen", "--alpha", "-1"]).status != 0)
    }

    /// The whole bare `bench` (every default backend, the disk ones' writes included) is the
    /// README's main job, which DocsTests.readmeCommandsRun runs and checks; here its defaults
    /// (no subcommand, no trace, no capacity) on one backend.
    @Test("bench without a subcommand, trace or capacity runs the bundled trace at the default capacity; --help and list work")
    func defaults() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let result = try bench(["--no-timing", "--backend", "lru"], in: root.path)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("Traces/default.csv: 50000 requests"))
        let row = result.out.split(separator: "\n").first { $0.hasPrefix("lru ") }.map { $0.split(separator: " ") } ?? []
        #expect(row.prefix(4) == ["lru", "100MiB", "encoded", "50000"] && row.last == "ok", "\(result.out)")
        #expect(try bench(["--help"]).out.contains("SUBCOMMANDS"))
        #expect(try bench(["run", "--help"]).out.contains("--capacity"))
        #expect(try bench(["list"]).out.contains("lru"))
    }

    @Test("a disk backend that cannot write: its row says failed, the others are written, exit 1")
    func diskFailureRow() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", Self.handTrace)
        let blocker = folder.file("blocker", "a file where a folder should be")
        let run = try bench(["run", "--trace", trace, "--backend", "lru,files,sqlite", "--capacity", "10",
                             "--cache-dir", blocker + "/cache", "--csv", folder.path + "/out.csv"])
        #expect(run.status == 1)
        #expect(run.out.contains("FAILED: files: \(blocker)/cache"))
        let rows = try csvRows(folder.path + "/out.csv")
        #expect(rows.map { $0["status"] } == ["ok", "failed", "failed"])
        #expect(rows[1]["error"]?.contains("cannot create folder") == true)
    }

    @Test("disk columns: write amplification and footprint from a real replay, folder removed unless --keep")
    func diskColumns() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", Self.handTrace)
        let run = try bench(["run", "--trace", trace, "--backend", "files,sqlite", "--capacity", "10", "--verify",
                             "--keep", "--csv", folder.path + "/out.csv"])
        #expect(run.status == 0, "\(run.err)")
        let rows = try csvRows(folder.path + "/out.csv")
        for row in rows {
            // By hand at 10 bytes: files (LRU, sweep to 5) misses A B C B D A = 22 bytes stored;
            // sqlite (oldest first, evict to 10) keeps B when C comes, so A B C D A = 18.
            #expect(row["logical_write_bytes"] == (row["backend"] == "files" ? "22" : "18"))
            #expect(Double(row["write_amplification"] ?? "") ?? 0 >= 1)
            #expect(Int(row["disk_footprint_bytes"] ?? "") ?? 0 > 0)
            #expect(row["verify"] == "on")
            let kept = row["cache_dir"] ?? ""
            #expect(FileManager.default.fileExists(atPath: kept))
            try? FileManager.default.removeItem(atPath: kept)
        }
        #expect(rows.first?["backend"] == "files" && rows.first?["db_write_bytes"] == "0")
        #expect(Int(rows.last?["wal_write_bytes"] ?? "") ?? 0 > 0)
    }
}
