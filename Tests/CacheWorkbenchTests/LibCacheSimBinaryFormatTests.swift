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

/// Little-endian bytes, as libCacheSim's C structs lay them out on x86-64.
private func le(_ value: UInt64, _ width: Int) -> [UInt8] { (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

/// One vscsi2 record (40 bytes): u16 cmd, u16 ver (2 in the high byte), u32 sn, u32 len,
/// u32 nSG, u64 lbn, u64 ts (µs), u64 rt.
private func vscsi2(cmd: UInt64, len: UInt64, lbn: UInt64, ts: UInt64) -> [UInt8] {
    le(cmd, 2) + le(0x0200, 2) + le(1, 4) + le(len, 4) + le(1, 4) + le(lbn, 8) + le(ts, 8) + le(99, 8)
}

/// One vscsi1 record (32 bytes): u32 sn, u32 len, u32 nSG, u16 cmd, u16 ver (1 in the high
/// byte), u64 lbn, u64 ts (µs).
private func vscsi1(cmd: UInt64, len: UInt64, lbn: UInt64, ts: UInt64) -> [UInt8] {
    le(1, 4) + le(len, 4) + le(1, 4) + le(cmd, 2) + le(0x0100, 2) + le(lbn, 8) + le(ts, 8)
}

/// An lcs header (8192 bytes): start magic, version, zeroed statistics, end magic.
private func lcsHeader(version: UInt64) -> [UInt8] {
    le(0x1234_5678_9abc_def0, 8) + le(version, 8) + [UInt8](repeating: 0, count: 8192 - 24) + le(0x1234_5678_9abc_def0, 8)
}

/// An lcs header in libCacheSim aa0fc40's 1 KiB layout (generalReader/lcs.h lines 15–56,
/// natural alignment): start magic at 0, the format string at 8, field numbers at 248 (id),
/// 249 (size), 250 (time), 252 (next access), 253 (op), counts at 488, n_fields at 1000,
/// item_size at 1004, version at 1008, end magic at 1016. `fill` is what the bytes not set
/// hold (aa0fc40's writer leaves them as its stack had them).
private func lcsRepositoryHeader(format: String, id: UInt8, size: UInt8, time: UInt8, op: UInt8 = 0, requests: UInt64 = 0,
                                 itemSize: UInt64, fill: UInt8 = 0) -> [UInt8] {
    var header = [UInt8](repeating: fill, count: 1024)
    func put(_ bytes: [UInt8], at offset: Int) { header.replaceSubrange(offset..<offset + bytes.count, with: bytes) }
    put(le(0x1234_5678_9abc_def0, 8), at: 0)
    put(Array(format.utf8) + [0], at: 8)
    put([id, size, time], at: 248)
    put([op], at: 253)
    put(le(requests, 8), at: 488)
    put(le(UInt64(format.utf8.count - 1), 4), at: 1000)
    put(le(itemSize, 4), at: 1004)
    put(le(0x1234_5678_9abc_def0, 8), at: 1016)
    return header
}

private func read(_ path: String, format: String? = nil) throws -> [Request] {
    try InMemoryTrace.load(TraceFile(path: path, format: format.map(TraceFormat.named)), keepKeyNames: true).requests
}

private func failure(_ path: String, format: String? = nil) -> String? {
    do {
        _ = try read(path, format: format)
        return nil
    } catch {
        return String(describing: error)
    }
}

private func summary(_ requests: [Request]) -> [String] {
    requests.map { "\($0.time) \($0.keyText) \($0.size) \($0.operation.name)" }
}

@Suite("libCacheSim binary formats: vscsi, lcs", .onTestWorkers)
struct LibCacheSimBinaryFormatTests {
    /// READ(10) = 40 is a get, WRITE(10) = 42 a set, TEST UNIT READY = 0 a get (libCacheSim's
    /// OP_INVALID); times are µs / 10^6.
    static let expected = ["1.5 7 4096 get", "2.0 8 512 set", "3.25 7 4096 get"]

    @Test("vscsi2 and vscsi1 records, built byte by byte, read the same; layout told as libCacheSim tells it")
    func vscsiLayouts() throws {
        let folder = TemporaryFolder()
        let records: [(UInt64, UInt64, UInt64, UInt64)] = [(40, 4096, 7, 1_500_000), (42, 512, 8, 2_000_000), (0, 4096, 7, 3_250_000)]
        let two = folder.bytes("w.vscsi", records.flatMap { vscsi2(cmd: $0.0, len: $0.1, lbn: $0.2, ts: $0.3) })
        let one = folder.bytes("w1.vscsi", records.flatMap { vscsi1(cmd: $0.0, len: $0.1, lbn: $0.2, ts: $0.3) })
        #expect(summary(try read(two)) == Self.expected)
        #expect(summary(try read(one)) == Self.expected)
        #expect(try TraceFile(path: two).format.name == "vscsi")
        #expect(try TraceFile(path: two).guess == nil)  // by name: libCacheSim's `.vscsi` rule
        // Without the name: guessed from the version bytes, and said.
        let unnamed = folder.bytes("capture", try Array(Data(contentsOf: URL(fileURLWithPath: two))))
        let guessed = try TraceFile(path: unnamed)
        #expect(guessed.format.name == "vscsi")
        #expect(try guessed.readingNotes() == ["\(unnamed) is read as vscsi, guessed because binary, and its first two records carry vscsi2's version bytes; name its format with --format if that is wrong"])
        let unnamed1 = folder.bytes("capture1", try Array(Data(contentsOf: URL(fileURLWithPath: one))))
        #expect(try TraceFile(path: unnamed1).guess == "binary, and its first two records carry vscsi1's version bytes")
    }

    @Test("vscsi: a broken tail, an unknown layout and a too-short file are errors at their byte")
    func vscsiErrors() throws {
        let folder = TemporaryFolder()
        let records = [vscsi2(cmd: 40, len: 1, lbn: 1, ts: 0), vscsi2(cmd: 40, len: 1, lbn: 2, ts: 0)].flatMap { $0 }
        let tail = folder.bytes("t.vscsi", records + [1, 2, 3, 4, 5])
        #expect(failure(tail) == "\(tail): byte 80: truncated record (5 of 40 bytes)")
        let zeros = folder.bytes("z.vscsi", [UInt8](repeating: 0, count: 80))
        #expect(failure(zeros) == "\(zeros): byte 0: neither vscsi layout: the first two records' version bytes are not both 2 (vscsi2, bytes 3 and 43) nor both 1 (vscsi1, bytes 15 and 47)")
        let short = folder.bytes("s.vscsi", vscsi2(cmd: 40, len: 1, lbn: 1, ts: 0))
        #expect(failure(short) == "\(short): byte 0: 40 bytes, too short for vscsi: its layout is told from the first two records (64 bytes at least)")
    }

    @Test("lcs v1, v2, v3 and v4 records read; v2+ carry the op; the header is checked")
    func lcsVersions() throws {
        let folder = TemporaryFolder()
        // v1 = oracleGeneral's record: u32 time, u64 id, u32 size, i64 next.
        let v1 = folder.bytes("a.lcs", lcsHeader(version: 1) + le(5, 4) + le(42, 8) + le(100, 4) + le(UInt64(bitPattern: -1), 8))
        #expect(summary(try read(v1)) == ["5.0 42 100 get"])
        // v2: op byte then 24-bit tenant; SET = 3, DELETE = 9, GETS = 2, APPEND = 7.
        let v2Records = [(3, 10), (9, 11), (2, 12), (7, 13)].flatMap { op, time in
            le(UInt64(time), 4) + le(42, 8) + le(100, 4) + le(UInt64(op) | 5 << 8, 4) + le(0, 8)
        }
        let v2 = folder.bytes("b.lcs", lcsHeader(version: 2) + v2Records)
        #expect(summary(try read(v2)) == ["10.0 42 100 set", "11.0 42 100 delete", "12.0 42 100 get", "13.0 42 100 set"])
        // v3: i64 size (above 2^32), op, ttl; v4 adds one u32 feature (40 bytes).
        let v3Record = le(1, 4) + le(7, 8) + le(5_000_000_000, 8) + le(1, 4) + le(60, 4) + le(0, 8)
        let v3 = folder.bytes("c.lcs", lcsHeader(version: 3) + v3Record)
        #expect(summary(try read(v3)) == ["1.0 7 5000000000 get"])
        let v4 = folder.bytes("d.lcs", lcsHeader(version: 4) + v3Record + le(77, 4) + v3Record + le(78, 4))
        #expect(summary(try read(v4)) == ["1.0 7 5000000000 get", "1.0 7 5000000000 get"])
        // Carrying ops: v1 does not, v2 does.
        #expect(try !TraceFile(path: v1).open(keepKeyNames: false).carriesOperations)
        #expect(try TraceFile(path: v2).open(keepKeyNames: false).carriesOperations)

        let badMagic = folder.bytes("e.lcs", [0] + lcsHeader(version: 1).dropFirst())
        #expect(failure(badMagic) == "\(badMagic): byte 0: not an lcs trace: start magic is 0x123456789abcde00, not 0x123456789abcdef0")
        let badVersion = folder.bytes("f.lcs", lcsHeader(version: 9))
        #expect(failure(badVersion) == "\(badVersion): byte 8: lcs version 9 is not one libCacheSim reads (1 to 8)")
        let short = folder.bytes("g.lcs", Array(lcsHeader(version: 1).prefix(100)))
        #expect(failure(short) == "\(short): byte 0: 100 bytes, shorter than lcs's 8192-byte header")
        let tail = folder.bytes("h.lcs", lcsHeader(version: 2) + v2Records + [1, 2, 3])
        #expect(failure(tail) == "\(tail): byte \(8192 + 4 * 28): truncated record (3 of 28 bytes)")
        let badOp = folder.bytes("i.lcs", lcsHeader(version: 2) + le(0, 4) + le(1, 8) + le(1, 4) + le(20, 4) + le(0, 8))
        #expect(failure(badOp) == "\(badOp): byte 8192: op code 20 is not one of libCacheSim's (enum.h: 0–14 or 255)")
        let negative = folder.bytes("j.lcs", lcsHeader(version: 3) + le(1, 4) + le(7, 8) + le(UInt64(bitPattern: -5), 8) + le(1, 4) + le(0, 4) + le(0, 8))
        #expect(failure(negative) == "\(negative): byte 8192: size -5 is negative")
        // Detected by its magic without the name, and said.
        let unnamed = folder.bytes("blob", lcsHeader(version: 1))
        #expect(try TraceFile(path: unnamed).format.name == "lcs")
        #expect(try TraceFile(path: unnamed).guess == "its first 8 bytes are lcs's magic 0x123456789abcdef0")
    }

    @Test("lcs in libCacheSim aa0fc40's 1 KiB layout: fields placed by the format string and the header's field numbers, read as binary.c reads them (signed, of their width; a missing size 1); the header checked as verify_LCS_trace_header does")
    func lcsRepositoryLayout() throws {
        let folder = TemporaryFolder()
        // traceConv's own record <IQIQ: time 1, id 2, size 3, next access 4; the unset
        // header bytes are stack garbage (0xAB here), which the reader must not read.
        var records: [UInt8] = []
        for (time, id, size) in [(5, 42, 100), (6, 43, 7), (7, 42, 100)] {
            let record: [UInt8] = le(UInt64(time), 4) + le(UInt64(id), 8) + le(UInt64(size), 4) + le(9, 8)
            records += record
        }
        let written = folder.bytes("w.lcs", lcsRepositoryHeader(format: "<IQIQ", id: 2, size: 3, time: 1, op: 0, itemSize: 24, fill: 0xAB) + records)
        #expect(summary(try read(written)) == ["5.0 42 100 get", "6.0 43 7 get", "7.0 42 100 get"])
        #expect(try !TraceFile(path: written).open(keepKeyNames: false).carriesOperations)
        // Another order and widths: u8 op first, i64 size, u32 time, u64 id, h padding; op 3 = SET.
        let mixed: [UInt8] = le(3, 1) + le(5_000_000_000, 8) + le(11, 4) + le(77, 8) + le(0, 2)
        let other = folder.bytes("x.lcs", lcsRepositoryHeader(format: "<BqIQh", id: 4, size: 2, time: 3, op: 1, itemSize: 23) + mixed + mixed)
        #expect(summary(try read(other)) == ["11.0 77 5000000000 set", "11.0 77 5000000000 set"])
        // No size field: 1, as new_request sets it; an I time above 2^31 reads negative (int32_t), an error here.
        let sizeless = folder.bytes("y.lcs", lcsRepositoryHeader(format: "<IQ", id: 2, size: 0, time: 1, itemSize: 12) + le(4, 4) + le(8, 8))
        #expect(summary(try read(sizeless)) == ["4.0 8 1 get"])
        let wideTime = folder.bytes("z.lcs", lcsRepositoryHeader(format: "<IQ", id: 2, size: 0, time: 1, itemSize: 12) + le(3_000_000_000, 4) + le(8, 8))
        #expect(failure(wideTime) == "\(wideTime): byte 1024: time -1294967296 is negative")
        // The file the issue found refused at byte 8184 (an aa0fc40 trace of 300 requests) reads whole.
        var longBytes = lcsRepositoryHeader(format: "<IQIQ", id: 2, size: 3, time: 1, itemSize: 24)
        for index in 0..<300 {
            let record: [UInt8] = le(UInt64(index), 4) + le(UInt64(index % 7), 8) + le(1536, 4) + le(UInt64(bitPattern: -1), 8)
            longBytes += record
        }
        let long = folder.bytes("long.lcs", longBytes)
        #expect(try read(long).count == 300)
        // The header's checks, each at its byte.
        let badItem = folder.bytes("a.lcs", lcsRepositoryHeader(format: "<IQIQ", id: 2, size: 3, time: 1, itemSize: 20) + records)
        #expect(failure(badItem) == "\(badItem): byte 1004: lcs header's item size 20 is not its format's 24 bytes")
        let badID = folder.bytes("b.lcs", lcsRepositoryHeader(format: "<IQIQ", id: 5, size: 3, time: 1, itemSize: 24) + records)
        #expect(failure(badID) == "\(badID): byte 248: lcs header's object id field 5 is not one of its 4 fields")
        let badType = folder.bytes("c.lcs", lcsRepositoryHeader(format: "<IQIx", id: 2, size: 3, time: 1, itemSize: 24) + records)
        #expect(failure(badType) == "\(badType): byte 12: lcs format character 'x' is not one libCacheSim reads (b B c h H i I l L f q Q d)")
        var noEnd = lcsRepositoryHeader(format: "<IQIQ", id: 2, size: 3, time: 1, itemSize: 24)
        noEnd[1016] = 0
        let badEnd = folder.bytes("d.lcs", noEnd + records)
        #expect(failure(badEnd)?.hasPrefix("\(badEnd): byte 1016: lcs header's end magic is 0x123456789abcde00") == true, "\(failure(badEnd) ?? "")")
        let short = folder.bytes("e.lcs", Array(lcsRepositoryHeader(format: "<IQIQ", id: 2, size: 3, time: 1, itemSize: 24).prefix(500)))
        #expect(failure(short)?.hasPrefix("\(short): byte 0: 500 bytes, shorter than the 1024-byte header") == true)
        #expect(failure(folder.bytes("f.lcs", lcsRepositoryHeader(format: "<IQIQ", id: 2, size: 3, time: 1, itemSize: 24) + records + [1])) != nil)
    }

    @Test("convert --to lcs-aa0fc40 writes aa0fc40's 1 KiB layout as its traceConv does (<IQIQ, next access 1-based); read back, the same counts as the oracleGeneral twin; ops dropped and said; a size of 2^32 refused")
    func lcsRepositoryWriter() throws {
        let folder = TemporaryFolder()
        let requests = [
            Request(time: 1, id: 10, size: 100), Request(time: 2, id: 11, size: 7, operation: .set),
            Request(time: 3, id: 10, size: 100), Request(time: 4, id: 12, size: 300),
        ]
        let path = folder.path + "/w.lcs"
        try LCSWriter.writeRepositoryLayout(requests, label: "t", to: path)
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count == 1024 + 4 * 24)
        func int(_ offset: Int, _ width: Int = 8) -> Int64 {
            let raw = (0..<width).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
            return width == 8 ? Int64(bitPattern: raw) : Int64(raw)
        }
        #expect(int(0) == 0x1234_5678_9abc_def0 && int(1016) == 0x1234_5678_9abc_def0)
        #expect(Array(bytes[8..<14]) == Array("<IQIQ".utf8) + [0])
        #expect(Array(bytes[248...256]) == [2, 3, 1, 0, 4, 0, 0, 0, 0])
        #expect((0..<4).map { int(488 + 8 * $0) } == [4, 3, 507, 407])  // requests, objects, requested and unique bytes
        #expect(int(1000, 4) == 4 && int(1004, 4) == 24)
        // Next access, 1-based as traceConv writes it: request 0's next is request 2 (3); none is -1.
        #expect((0..<4).map { int(1024 + 24 * $0 + 16) } == [3, -1, -1, -1])
        #expect(summary(try read(path)) == ["1.0 10 100 get", "2.0 11 7 get", "3.0 10 100 get", "4.0 12 300 get"])
        // Through bench convert: the same hits as the oracleGeneral twin, the ops dropped said.
        let csv = folder.path + "/t.csv"
        try "time,key,size,op\n1,10,100,get\n2,11,7,set\n3,10,100,get\n4,12,300,get\n5,11,7,get\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let converted = try bench(["convert", csv, folder.path + "/t.lcs", "--to", "lcs-aa0fc40"])
        #expect(converted.status == 0 && converted.out.contains("(lcs-aa0fc40): 5 requests, 1 set/delete ops dropped (aa0fc40's lcs format <IQIQ has no op: read back as gets)"), "\(converted.out)\(converted.err)")
        #expect(try bench(["convert", csv, folder.path + "/t.oracleGeneral.bin"]).status == 0)
        var hits: [String] = []
        for trace in ["t.lcs", "t.oracleGeneral.bin"] {
            let run = try bench(["run", "--trace", folder.path + "/" + trace, "--backend", "lru,fifo", "--capacity", "200B", "--no-timing", "--csv", folder.path + "/\(trace).csv"])
            #expect(run.status == 0, "\(run.err)")
            hits.append(try csvRows(folder.path + "/\(trace).csv").map { "\($0["backend"]!) \($0["hits"]!) \($0["misses"]!) \($0["requests"]!)" }.joined(separator: "; "))
        }
        #expect(hits[0] == hits[1] && hits[0].contains("lru"), "\(hits)")
        #expect(throws: (any Error).self) { try LCSWriter.writeRepositoryLayout([Request(time: 1, id: 1, size: 1 << 32)], label: "t", to: folder.path + "/big.lcs") }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/big.lcs"))
    }

    @Test("convert --to lcs writes version 3 with the op, next access and the header's statistics")
    func lcsWriter() throws {
        let folder = TemporaryFolder()
        let requests = [
            Request(time: 1, id: 10, size: 100), Request(time: 2.5, id: 11, size: 7, operation: .set),
            Request(time: 3, id: 10, size: 100, operation: .delete), Request(time: 4, id: 10, size: 300),
        ]
        let path = folder.path + "/w.lcs"
        #expect(try LCSWriter.write(requests, label: "t", to: path) == 1)  // 2.5 s lost its half
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count == 8192 + 4 * 36)
        func int(_ offset: Int) -> Int64 { Int64(bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }) }
        #expect(int(8) == 3)
        // stat: version 1, 4 requests, 2 objects, 507 requested bytes, 107 unique (first
        // sizes 100 + 7), times 1…4, 2 gets, 1 set, 1 delete, sizes 7…300.
        #expect((0..<12).map { int(16 + 8 * $0) } == [1, 4, 2, 507, 107, 1, 4, 2, 1, 1, 7, 300])
        // Next access of request 0 (id 10) is the 3rd request (1-based, as traceConvLCS writes
        // it); of request 1, none: INT64_MAX.
        #expect(int(8192 + 28) == 3)
        #expect(int(8192 + 36 + 28) == Int64.max)
        #expect(summary(try read(path)) == ["1.0 10 100 get", "2.0 11 7 set", "3.0 10 100 delete", "4.0 10 300 get"])
        // A time lcs cannot hold is an error, and no file is left behind.
        #expect(throws: (any Error).self) { try LCSWriter.write([Request(time: -1, id: 1, size: 1)], label: "t", to: folder.path + "/neg.lcs") }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/neg.lcs"))
    }

    @Test("convert --lcs-version 1…8 writes each record version of the 8 KiB layout (24, 28, 36, 40, 44, 52, 68, 100 bytes), read back with the same requests; version 1 drops the op and says so; 1 and 2 refuse a size of 2^32; the version is refused for other targets and outside 1…8")
    func lcsWriterVersions() throws {
        let folder = TemporaryFolder()
        let source = folder.file("t.csv", "time,key,size,op\n1,10,100,get\n2,11,7,set\n3,10,100,delete\n4,10,300,get\n")
        let expected = ["1.0 10 100 get", "2.0 11 7 set", "3.0 10 100 delete", "4.0 10 300 get"]
        for version in 1...8 {
            let path = folder.path + "/v\(version).lcs"
            let outcome = try TraceConversion.convert(try TraceFile(path: source), to: path, as: .lcs, lcsVersion: version)
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            let record = [0, 24, 28, 36, 40, 44, 52, 68, 100][version]
            #expect(bytes.count == 8192 + 4 * record, "v\(version)")
            func int(_ offset: Int) -> Int64 { Int64(bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }) }
            #expect(int(8) == Int64(version))
            // Request 0's next access (the 3rd request, 1-based) where its version keeps it.
            #expect(int(8192 + [0, 16, 20, 28, 28, 28, 28, 28, 28][version]) == 3, "v\(version)")
            if version == 1 {
                #expect(outcome.losses.droppedOperations == 2 && outcome.losses.phrases.contains("2 set/delete ops dropped (lcs version 1 has no op: read back as gets)"))
                #expect(summary(try read(path)) == expected.map { $0.replacingOccurrences(of: "set", with: "get").replacingOccurrences(of: "delete", with: "get") })
            } else {
                #expect(outcome.losses.droppedOperations == 0)
                #expect(summary(try read(path)) == expected, "v\(version)")
            }
        }
        for version in [1, 2] {
            #expect(throws: (any Error).self) { try LCSWriter.write([Request(time: 1, id: 1, size: 1 << 32)], label: "t", to: folder.path + "/big\(version).lcs", version: version) }
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/big\(version).lcs"))
        }
        #expect(try LCSWriter.write([Request(time: 1, id: 1, size: 1 << 32)], label: "t", to: folder.path + "/big3.lcs", version: 3) == 0)
        let other = try bench(["convert", source, folder.path + "/o.oracleGeneral.bin", "--lcs-version", "1"])
        #expect(other.status == 2 && other.err.hasPrefix("bench: error: --lcs-version chooses the record version of --to lcs") && other.err.split(separator: "\n").count == 1, "\(other.err)")
        let outside = try bench(["convert", source, folder.path + "/o.lcs", "--lcs-version", "9"])
        #expect(outside.status == 2 && outside.err.hasPrefix("bench: error: --lcs-version must be 1 to 8") && !FileManager.default.fileExists(atPath: folder.path + "/o.lcs"), "\(outside.err)")
    }

    @Test("every lcs version the workbench writes reads in libCacheSim 0.3.5 (its PyPI package) with the same LRU, Belady and S3-FIFO miss ratios as the oracleGeneral twin",
          .enabled(if: FileManager.default.fileExists(atPath: SourceCheckout.root.path + "/.venv/bin/python"), "needs .venv (scripts/bootstrap --python)"))
    func lcsVersionsInLibCacheSim() throws {
        let folder = TemporaryFolder()
        let requests = zipfRequests(requests: 3_000, images: 500).map { Request(time: $0.time.rounded(.down), id: $0.id, size: $0.size) }
        let twin = folder.path + "/z.oracleGeneral"
        try OracleGeneralWriter.write(requests, label: "zipf", to: twin)
        for version in 1...8 { try LCSWriter.write(requests, label: "zipf", to: folder.path + "/z-v\(version).lcs", version: version) }
        let script = """
            import sys, libcachesim as lcs
            folder = sys.argv[1]
            def run(path, kind, cls, size):
                return getattr(lcs, cls)(cache_size=size).process_trace(lcs.TraceReader(path, kind))
            for cls in ["LRU", "Belady", "S3FIFO"]:
                for size in [1 << 20, 8 << 20]:
                    twin = run(folder + "/z.oracleGeneral", lcs.TraceType.ORACLE_GENERAL_TRACE, cls, size)
                    same = [v for v in range(1, 9) if run(f"{folder}/z-v{v}.lcs", lcs.TraceType.LCS_TRACE, cls, size) == twin]
                    print(cls, size, twin[0], len(same))
            """
        let (status, text, _) = try runBounded(300, SourceCheckout.root.path + "/.venv/bin/python", ["-c", script, folder.path])
        #expect(status == 0)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 6, "\(text)")
        for line in lines {
            let fields = line.split(separator: " ")
            #expect(fields.last == "8" && (Double(fields[2]) ?? 0) > 0, "\(line): all 8 versions give the twin's miss ratio")
        }
    }

    @Test("text layouts with no name of their own are guessed, and the guess is said")
    func textGuesses() throws {
        let folder = TemporaryFolder()
        let tencent = folder.file("photos.txt", "20160201000000 a1b2 5 m 23456 1 2 12\n20160201000001 a1b2 5 m 23456 1 2 12\n")
        let file = try TraceFile(path: tencent)
        #expect(file.format.name == "tencent")
        #expect(try file.readingNotes() == ["\(tencent) is read as tencent, guessed because its first line has 8 space-separated fields starting with a YYYYMMDDHHMMSS timestamp (Tencent's photo CDN layout); name its format with --format if that is wrong"])
        #expect(summary(try read(tencent)) == ["1454284800.0 a1b2.5.m 23456 get", "1454284801.0 a1b2.5.m 23456 get"])
        let twitter = folder.file("cluster52.csv", "0,key-a,10,90,1,get,0\n1,key-b,5,20,2,set,3600\n")
        #expect(try TraceFile(path: twitter).format.name == "twitter")
        #expect(summary(try read(twitter)) == ["0.0 key-a 100 get", "1.0 key-b 25 set"])
        // webcachesim's `time id size`, as the AdaptSize sample in ../shared/data starts.
        let webcachesim = folder.file("request.trace", "1 0 68\n2 1 2048\n")
        #expect(try TraceFile(path: webcachesim).format.name == "webcachesim")
        #expect(try TraceFile(path: webcachesim).readingNotes() == ["\(webcachesim) is read as webcachesim, guessed because its first line is three space-separated whole numbers (webcachesim's 'time id size' layout); name its format with --format if that is wrong"])
        #expect(summary(try read(webcachesim)) == ["1.0 0 68 get", "2.0 1 2048 get"])
        // Three fields with a non-number are not guessed (a CSV error names the layout).
        #expect(try TraceFile(path: folder.file("w.txt", "1 a 68\n")).format.name == "csv")
        // libCacheSim's txt: one id per line, each 1 byte, time = position; blank lines skipped.
        let txt = folder.file("trace.txt", "17\n\n18\nabc\n17\n")
        #expect(try TraceFile(path: txt).format.name == "libcachesim-txt")
        #expect(summary(try read(txt)) == ["0.0 17 1 get", "1.0 18 1 get", "2.0 abc 1 get", "3.0 17 1 get"])
        // A headed CSV in another layout (libCacheSim's csv with a column mapping) cannot be
        // told from its content: it is an error as native CSV (docs/formats.md says to name
        // it), and named it reads.
        let mapped = folder.file("io.csv", "idx,tstamp,op,len,lbn\n1,2,r,4096,7\n")
        #expect(failure(mapped) == "\(mapped):1: the first row is not data (its time 'idx' is not a number) so it must be a header, but column 1 'idx' is not one of time, key, size, width, height, op, ttl")
        let byColumns = try TraceFile(path: mapped, format: TraceFormat.named("libcachesim-csv"), formatOptions: ["columns": "time=2,key=5,size=4"])
        #expect(summary(try InMemoryTrace.load(byColumns, keepKeyNames: true).requests) == ["2.0 7 4096 get"])
        // A native CSV is not a guess.
        let native = folder.file("n.txt", "1,a,5\n")
        #expect(try TraceFile(path: native).format.name == "csv")
        #expect(try TraceFile(path: native).guess == nil)
    }
}
