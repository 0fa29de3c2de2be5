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

private let huge = "9000000000000000000"  // two of these overflowed Int64 sums
private let wrap = "9999999999999999999"  // above Int64.max: used to wrap negative
private let limit = String(SizeLimits.largestObject)

/// One file per format whose rows carry `size` as their size.
private func traces(size: String) -> [(format: String, name: String, text: String, options: [String: String])] {
    [
        ("csv", "t.csv", "time,key,size\n0,a,\(size)\n1,b,\(size)\n", [:]),
        ("wikimedia", "t.tsv", "relative_unix\thashed_path_query\timage_type\tresponse_size\ttime_firstbyte\n0\ta\tjpeg\t\(size)\t0.1\n1\tb\tjpeg\t\(size)\t0.1\n", [:]),
        ("webcachesim", "t.tr", "0 1 \(size)\n1 2 \(size)\n", [:]),
        ("tencent", "t.txt", "20160201000000 a jpg 0 \(size) 1 PC 10\n20160201000001 b jpg 0 \(size) 1 PC 10\n", [:]),
        ("libcachesim-csv", "t.txt", "0,a,\(size)\n1,b,\(size)\n", ["columns": "time=1,key=2,size=3"]),
        ("cachelib", "t.csv", "key,op,size,op_time\na,GET,\(size),0\nb,GET,\(size),1\n", [:]),
    ]
}

private func read(_ path: String, _ format: String, _ options: [String: String] = [:]) throws -> [Request] {
    let trace = try TraceFile(path: path, format: TraceFormat.named(format), formatOptions: options)
    return try InMemoryTrace.load(trace, keepKeyNames: true).requests
}

/// Issue 9 §2: plausible-looking input never traps; it is an error naming file and line,
/// or it is handled exactly.
@Suite("Never crash", .serialized, .onTestWorkers)
struct NoCrashTests {
    @Test("sizes above 2^53 are bad rows in every line format; 2^53 itself is accepted", arguments: [huge, wrap])
    func oversizedRows(size: String) throws {
        let folder = TemporaryFolder()
        for trace in traces(size: size) {
            let path = folder.file(trace.name, trace.text)
            #expect { _ = try read(path, trace.format, trace.options) } throws: { error in
                let text = "\(error)"
                return text.contains(path + ":") && text.contains("larger than the largest object accepted")
            }
        }
        for trace in traces(size: limit) {
            let path = folder.file(trace.name, trace.text)
            #expect(try read(path, trace.format, trace.options).map(\.size) == [SizeLimits.largestObject, SizeLimits.largestObject])
        }
    }

    @Test("sums over a trace never overflow: 3,000 requests of 2^53 bytes")
    func wideSums() throws {
        let folder = TemporaryFolder()
        var text = "time,key,size\n"
        for index in 0..<3000 { text += "\(index),k\(index % 100),\(limit)\n" }
        let path = folder.file("big.csv", text)
        let expected = ByteTotal(3000) * ByteTotal(SizeLimits.largestObject)
        let stats = try TraceStatistics.compute(TraceFile(path: path))
        #expect(stats.totalBytes == expected)
        #expect(stats.workingSetBytes == expected / 30)
        let result = try bench(["run", "--trace", path, "--backend", "lru", "--capacity", String(SizeLimits.largestCapacity), "--csv", folder.path + "/r.csv"])
        #expect(result.status == 0, "\(result.err)")
        let row = try csvRows(folder.path + "/r.csv")[0]
        #expect(row["hits"] == "2900" && Double(row["byte_hit_ratio"] ?? "") == 2900.0 / 3000.0)
        let statsRun = try bench(["stats", path])
        #expect(statsRun.status == 0 && statsRun.out.contains(String(expected)))
    }

    @Test("a HAR of 10,000 entries of 10^15 bytes sums exactly")
    func harSums() throws {
        let folder = TemporaryFolder()
        var entries: [String] = []
        for index in 0..<10_000 {
            entries.append(#"{"startedDateTime":"2026-01-01T00:00:00Z","request":{"url":"https://x.example/\#(index % 100)"},"response":{"status":200,"content":{"size":1000000000000000}}}"#)
        }
        let path = folder.file("big.har", #"{"log":{"entries":["# + entries.joined(separator: ",") + "]}}")
        let stats = try TraceStatistics.compute(TraceFile(path: path))
        #expect(stats.totalBytes == ByteTotal(10_000) * 1_000_000_000_000_000)
    }

    @Test("numbers above Int64.max in width, height and op_count are errors, not wraps")
    func wrappedNumbers() throws {
        let folder = TemporaryFolder()
        let width = folder.file("w.csv", "time,key,size,width,height\n0,a,10,\(wrap),10\n")
        #expect { _ = try read(width, "csv") } throws: { "\($0)".contains(width + ":2: width") }
        let pixels = folder.file("p.csv", "time,key,size,width,height\n0,a,10,4294967295,4294967295\n")
        #expect { _ = try read(pixels, "csv") } throws: { "\($0)".contains(pixels + ":2: width × height × 4") }
        let count = folder.file("c.csv", "key,op,size,op_count\na,GET,10,\(wrap)\n")
        #expect { _ = try read(count, "cachelib") } throws: { "\($0)".contains(count + ":2: op_count") }
        let twitter = folder.file("tw", "0,a,\(limit),\(limit),1,get,0\n")
        #expect { _ = try read(twitter, "twitter") } throws: { "\($0)".contains(twitter + ":1: key size + value size") }
        // convert never writes a wrapped size, and oracleGeneral output never traps.
        let result = try bench(["convert", folder.file("s.csv", "time,key,size\n0,a,\(wrap)\n"), folder.path + "/o.oracleGeneral.bin"])
        #expect(result.status == 2 && result.err.contains("larger than the largest object"))
    }

    @Test("a PNG header claiming 0xFFFFFFFF × 0xFFFFFFFF has no dimensions")
    func hugePNG() {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        png += [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 8, 6, 0, 0, 0]
        #expect(ImageDimensions.read(png) == nil)
        #expect(CostModel.pixels.cost(of: Request(time: 0, id: 1, size: 5, width: .max, height: .max)) == SizeLimits.largestObject)
    }

    /// Each with its reason (FILE is the trace): a row of one field, or a column past the 32 a row may have.
    @Test("libcachesim-csv column mappings beyond the row are errors, not crashes", arguments: [
        ("key=2", "FILE:1: expected at least 2 fields, found 1"), ("time=2,key=1", "FILE:1: expected at least 2 fields, found 1"),
        ("key=100000000", "--columns: column 100000000 is beyond the 32 fields a row may have"),
        ("time=1,key=2,size=33", "--columns: column 33 is beyond the 32 fields a row may have"),
    ])
    func columnMappings(columns: String, reason: String) throws {
        let folder = TemporaryFolder()
        let path = folder.file("one.txt", "a\nb\n")
        let result = try bench(["run", "--trace", path, "--format", "libcachesim-csv", "--columns", columns, "--backend", "lru"])
        #expect(result.status == 2, "\(result.err)")
        #expect(result.err == "bench: error: " + reason.replacingOccurrences(of: "FILE", with: path) + "\n", "\(result.err)")
    }

    /// Each with its reason: the option and its bound, not just any error.
    @Test("unbounded option values are refused with one line and exit 2", arguments: [
        (["run", "--warning-window", "9223372036854775807"], "--warning-window must be from 1 to 10000000 requests"),
        (["run", "--capacity", "9223372036854775807", "--purge-target", "1"], "capacity '9223372036854775807': above the largest capacity accepted, 1EiB (2^60 bytes)"),
        (["run", "--capacity", "-1"], "capacity '-1': must be above 0 bytes"),
        (["gen", "--rate", "1e-320"], "--rate must be from 0.000001 to 1000000000 requests per second"),
        (["gen", "--images", "9223372036854775807"], "--images must be from 1 to 100000000"),
        (["experiment", "blob-size", "--reads", "9223372036854775807"], "--reads must be from 1 to 100000000, not 9223372036854775807"),
        (["experiment", "blob-size", "--sizes", "1TiB", "--count", "1", "--max-bytes", "1"], "--sizes: a blob is at most 1GiB (the largest body the disk backends write)"),
        (["experiment", "purge", "--entries", "9223372036854775807"], "--entries must be from 10 to 10000000"),
        (["run", "--bogus"], "Unknown option '--bogus'"), (["run", "--sample-every", "0"], "--sample-every must be at least 1"),
    ])
    func unboundedOptions(arguments: [String], reason: String) throws {
        let result = try bench(arguments)
        #expect(result.status == 2, "\(result.err)")
        #expect(result.err == "bench: error: \(reason)\n", "\(result.err)")
    }

    @Test("a huge capacity with purge-target 1 runs")
    func hugeCapacity() throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.csv", "time,key,size\n0,a,10\n1,a,10\n")
        let result = try bench(["run", "--trace", path, "--backend", "autopurge", "--capacity", String(SizeLimits.largestCapacity), "--purge-target", "1"])
        #expect(result.status == 0, "\(result.err)")
    }

    @Test("a disk body above 1 GiB fails that row (exit 1), the others are written")
    func hugeDiskBody() throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.csv", "time,key,size\n0,a,\(limit)\n")
        let result = try bench(["run", "--trace", path, "--backend", "lru,sqlite", "--capacity", String(SizeLimits.largestCapacity), "--csv", folder.path + "/r.csv"])
        #expect(result.status == 1, "\(result.err)")
        let rows = try csvRows(folder.path + "/r.csv")
        #expect(rows.map { $0["status"] } == ["ok", "failed"])
        #expect(rows[1]["error"]?.contains("larger than the largest body") == true)
    }

    @Test("a trace from a pipe or FIFO is refused at once (it would be read more than once)")
    func pipes() throws {
        let folder = TemporaryFolder()
        let fifo = folder.path + "/fifo"
        #expect(mkfifo(fifo, 0o644) == 0)
        for command in [["run", "--trace", fifo], ["stats", fifo], ["convert", fifo, folder.path + "/o.csv"]] {
            let result = try bench(command)
            #expect(result.status == 2 && result.err.contains("not a regular file"), "\(result.err)")
        }
        // A pipe on standard input, as `cat t.csv | bench run --trace /dev/stdin` gives.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let executable = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .deletingLastPathComponent().appendingPathComponent("bench").path
        process.arguments = ["-c", "printf 'time,key,size\\n0,a,1\\n' | '\(executable)' run --trace /dev/stdin --backend lru"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2 && text.contains("not a regular file"), "\(text)")
    }
}
