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

/// Reads a whole file with a named format (or detection).
private func read(_ path: String, format: String? = nil, options: [String: String] = [:], skipBad: Bool = false) throws -> [Request] {
    let trace = try TraceFile(path: path, format: format.map(TraceFormat.named), skipBadRows: skipBad, formatOptions: options)
    return try InMemoryTrace.load(trace, keepKeyNames: true).requests
}

private func error(_ path: String, format: String? = nil, options: [String: String] = [:]) -> String? {
    do {
        _ = try read(path, format: format, options: options)
        return nil
    } catch {
        return String(describing: error)
    }
}

private func summary(_ requests: [Request]) -> [String] {
    requests.map { "\($0.time) \($0.keyText) \($0.size) \($0.operation.name)" }
}

@Suite("Trace formats", .onTestWorkers)
struct TraceFormatTests {
    @Test("wikimedia: header places the columns; detected by header")
    func wikimedia() throws {
        let folder = TemporaryFolder()
        let path = folder.file("upload.csv", "relative_unix\thashed_path_query\timage_type\tresponse_size\ttime_firstbyte\n0\t8f3a\tjpeg\t3412\t0.000125\n2\t91\tpng\t1200\t0.0003\n")
        #expect(try TraceFormat.detect(path: path).name == "wikimedia")
        #expect(summary(try read(path)) == ["0.0 8f3a 3412 get", "2.0 91 1200 get"])
        let bad = folder.file("bad.tsv", "relative_unix\thashed_path_query\timage_type\tresponse_size\ttime_firstbyte\n0\tk\tjpeg\tbig\t0.1\n")
        #expect(error(bad) == "\(bad):2: response_size 'big' is not a whole number")
    }

    @Test("webcachesim: time id size, spaces")
    func webcachesim() throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.tr", "1 17 100\n2  18\t200 extra\n\n3 17 100\n")
        #expect(summary(try read(path)) == ["1.0 17 100 get", "2.0 18 200 get", "3.0 17 100 get"])
        #expect(error(folder.file("short.tr", "1 17\n")) == "\(folder.path)/short.tr:1: expected 'time id size', found 2 fields")
    }

    @Test("twitter: size is key + value size; memcached commands map to get, set, delete")
    func twitter() throws {
        let folder = TemporaryFolder()
        let path = folder.file("cluster", "0,key-a,10,90,1,get,0\n1,key-b,5,20,2,add,3600\n2,key-a,10,90,1,delete,0\n3,key-c,3,7,1,gets,0\n")
        #expect(summary(try read(path, format: "twitter")) == ["0.0 key-a 100 get", "1.0 key-b 25 set", "2.0 key-a 100 delete", "3.0 key-c 10 get"])
        let bad = folder.file("bad", "0,k,1,2,1,flush,0\n")
        #expect(error(bad, format: "twitter") == "\(bad):1: operation 'flush' is not a memcached command")
    }

    @Test("cachelib: header-driven; op_count repeats; detected by header")
    func cachelib() throws {
        let folder = TemporaryFolder()
        let path = folder.file("kv.csv", "op_time,key,key_size,op,size,op_count,ttl\n5,k1,2,GET,100,2,0\n6,k2,2,SET,50,1,60\n7,k1,2,DELETE,100,1,0\n")
        #expect(try TraceFormat.detect(path: path).name == "cachelib")
        #expect(try TraceFormat.detect(path: folder.file("native.csv", "time,key,size,width,height,op\n0,a,1,,,get\n")).name == "csv")
        #expect(summary(try read(path)) == ["5.0 k1 100 get", "5.0 k1 100 get", "6.0 k2 50 set", "7.0 k1 100 delete"])
        let headerless = folder.file("nohead.csv", "5,k1,GET,100\n")
        #expect(error(headerless, format: "cachelib")?.contains("starts with a header naming key, op and size") == true)
    }

    @Test("tencent: key = id.format.spec; YYYYMMDDHHMMSS as seconds since 1970")
    func tencent() throws {
        let folder = TemporaryFolder()
        let path = folder.file("photo", "20160201000000 a1b2c3 5 m 23456 1 2 12\n20160201000001 a1b2c3 0 l 98765 0 1 30\n")
        #expect(summary(try read(path, format: "tencent")) == ["1454284800.0 a1b2c3.5.m 23456 get", "1454284801.0 a1b2c3.0.l 98765 get"])
        let bad = folder.file("bad", "20161301000000 a 5 m 1 1 2 12\n")
        #expect(error(bad, format: "tencent") == "\(bad):1: timestamp '20161301000000' is not a valid date and time")
    }

    @Test("libcachesim-csv: column mapping, header, delimiter")
    func libcachesimCSV() throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.txt", "size;ts;obj\n10;1;a\n20;2;b\n")
        let options = ["columns": "time=2,key=3,size=1", "header": "on", "delimiter": ";"]
        #expect(summary(try read(path, format: "libcachesim-csv", options: options)) == ["1.0 a 10 get", "2.0 b 20 get"])
        let keysOnly = folder.file("keys.txt", "7\n8\n7\n")
        #expect(summary(try read(keysOnly, format: "libcachesim-csv", options: ["columns": "key=1"])) == ["0.0 7 1 get", "1.0 8 1 get", "2.0 7 1 get"])
        #expect(throws: WorkbenchError.self) { try read(path, format: "libcachesim-csv", options: ["columns": "time=0,key=1"]) }
    }

    @Test("oracleGeneral: 24-byte records; a truncated record names its byte offset")
    func oracleGeneral() throws {
        let folder = TemporaryFolder()
        var bytes: [UInt8] = []
        func record(_ time: UInt32, _ id: UInt64, _ size: UInt32, _ next: Int64) {
            withUnsafeBytes(of: time.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: id.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: size.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: next.littleEndian) { bytes += $0 }
        }
        record(1, 42, 1000, 2)
        record(2, 7, 10, -1)
        record(3, 42, 1000, -1)
        let path = folder.bytes("t.oracleGeneral.bin", bytes)
        #expect(try TraceFormat.detect(path: path).name == "oracle-general")
        #expect(summary(try read(path)) == ["1.0 42 1000 get", "2.0 7 10 get", "3.0 42 1000 get"])
        let truncated = folder.bytes("cut.oracleGeneral", Array(bytes.dropLast(5)))
        #expect(error(truncated) == "\(truncated): byte 48: truncated record (19 of 24 bytes)")
    }

    @Test("oracleGeneral loads in bulk (prefaulted) and packed (--preload) exactly as it streams; a truncated tail is still an error")
    func oracleGeneralBulk() throws {
        let folder = TemporaryFolder()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(300_000 * 24)
        for index in 0..<300_000 {
            withUnsafeBytes(of: UInt32(index / 10).littleEndian) { bytes += $0 }
            withUnsafeBytes(of: UInt64(index % 977).littleEndian) { bytes += $0 }
            withUnsafeBytes(of: UInt32(1 + index % 5000).littleEndian) { bytes += $0 }
            withUnsafeBytes(of: Int64(-1).littleEndian) { bytes += $0 }
        }
        let path = folder.bytes("big.oracleGeneral.bin", bytes)
        let trace = try TraceFile(path: path)
        let loaded = try InMemoryTrace.load(trace, keepKeyNames: false).requests
        var streamed: [Request] = []
        let source = try trace.open(keepKeyNames: false)
        while let chunk = try source.nextChunk() { streamed += chunk }
        #expect(loaded.count == 300_000 && loaded == streamed)
        // `--preload` keeps the records packed and decodes them a chunk at a time.
        let packed = try InMemoryTrace.preload(trace, keepKeyNames: false)
        #expect(packed is PackedRecordTrace)
        for _ in 0..<2 {  // any number of replays, each from the start
            var replayed: [Request] = []
            let cursor = try packed.open(keepKeyNames: false)
            #expect(cursor.expectedCount == 300_000)
            while let chunk = try cursor.nextChunk() { replayed += chunk }
            #expect(replayed == streamed)
            #expect(cursor.progress == 1)
        }
        let truncated = folder.bytes("cut.oracleGeneral.bin", Array(bytes.dropLast(5)))
        #expect(throws: TraceError.self) { try InMemoryTrace.load(try TraceFile(path: truncated), keepKeyNames: false) }
        #expect(throws: TraceError.self) { try InMemoryTrace.preload(try TraceFile(path: truncated), keepKeyNames: false) }
    }

    @Test("compressed input streams through gzip, zstd, xz and bzip2; corrupt input is an error", arguments: ["gzip", "zstd", "xz", "bzip2"])
    func compressed(tool: String) throws {
        let folder = TemporaryFolder()
        let plain = folder.file("t.csv", "time,key,size\n0,a,10\n1,b,20\n2,a,10\n")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool, "-k", "-q", plain]
        try process.run()
        process.waitUntilExit()
        let ext = ["gzip": "gz", "zstd": "zst", "xz": "xz", "bzip2": "bz2"][tool]!
        let packed = plain + "." + ext
        #expect(try TraceFormat.detect(path: packed).name == "csv")
        #expect(summary(try read(packed)) == summary(try read(plain)))
        // The same bytes without the extension: recognised by their magic number.
        let renamed = folder.path + "/noext"
        try FileManager.default.copyItem(atPath: packed, toPath: renamed)
        #expect(summary(try read(renamed, format: "csv")) == summary(try read(plain)))
        // Cut short: the decompressor fails, and so does the read.
        let data = try Data(contentsOf: URL(fileURLWithPath: packed))
        let cut = folder.bytes("cut.csv." + ext, Array(data.prefix(data.count - 6)))
        #expect(error(cut)?.contains("\(tool) -dc failed") == true)
    }

    @Test("skip-bad skips and counts malformed rows in line formats")
    func skipBad() throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.tr", "1 a 10\n2 b x\n3 c 30\n")
        let trace = try TraceFile(path: path, skipBadRows: true)
        let loaded = try InMemoryTrace.load(trace, keepKeyNames: true)
        #expect(loaded.requests.count == 2)
        #expect(loaded.skippedRows == 1)
    }

    @Test("every line format's error paths name file, line and reason", arguments: [
        ("wikimedia", "relative_unix\thashed_path_query\n0\tk\n", "1: header must name relative_unix, hashed_path_query and response_size (found relative_unix, hashed_path_query)"),
        ("wikimedia", "relative_unix\thashed_path_query\timage_type\tresponse_size\ttime_firstbyte\n0\tk\tjpeg\n", "2: expected 5 tab-separated fields, found 3"),
        ("webcachesim", "x 1 2\n", "1: time 'x' is not a number"),
        ("twitter", "0,k,1,2,1,get\n", "1: expected 7 fields (timestamp, key, key size, value size, client id, operation, TTL), found 6"),
        ("twitter", "0,,1,2,1,get,0\n", "1: key is empty"),
        ("cachelib", "key,op,size\nk,GET\n", "2: expected 3 fields as the header says, found 2"),
        ("cachelib", "key,op,size,op_count\nk,GET,1,99999999\n", "2: op_count '99999999' is above the largest accepted, 1000000"),
        ("cachelib", "key,op,size\nk,PUT,1\n", "2: op 'PUT' is not GET, SET or DELETE"),
        ("tencent", "20160201000000 a 5 m 1 1 2\n", "1: expected 8 fields (timestamp, photo id, format, spec, size, hit, terminal, ms), found 7"),
        ("tencent", "2016020100000 a 5 m 1 1 2 3\n", "1: timestamp '2016020100000' is not YYYYMMDDHHMMSS"),
        ("libcachesim-csv", "1,a\n", "1: expected at least 3 fields, found 2"),
        ("libcachesim-csv", "1,a,-5\n", "1: size is negative (-5)"),
    ])
    func errorPaths(format: String, contents: String, expected: String) {
        let folder = TemporaryFolder()
        let path = folder.file("t", contents)
        #expect(error(path, format: format) == "\(path):\(expected)")
    }

    @Test("CLI: a malformed row is exit 2 with file:line; --skip-bad reports the count")
    func cli() throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.tr", "1 a 10\n2 b x\n3 c 30\n")
        let failed = try bench(["run", "--trace", path, "--backend", "lru", "--capacity", "100"])
        #expect(failed.status == 2)
        #expect(failed.err.contains("\(path):2: size 'x' is not a whole number"))
        let skipped = try bench(["run", "--trace", path, "--backend", "lru", "--capacity", "100", "--skip-bad", "--csv", folder.path + "/r.csv"])
        #expect(skipped.status == 0)
        #expect(try csvRows(folder.path + "/r.csv").first?["skipped_rows"] == "1")
    }
}
