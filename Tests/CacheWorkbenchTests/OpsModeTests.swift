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

/// The hand trace of `--mode ops` (capacity 10 bytes). Under LRU:
///  1 get A4   miss, not inserted (lookaside)
///  2 set A4   inserted                         [A4]
///  3 get A4   hit
///  4 set B4   inserted                         [A4 B4]
///  5 set A6   replaces A: the new size         [B4 A6] = 10
///  6 get B4   hit                              [A6 B4]
///  7 set C2   evicts A (least recent)          [B4 C2]
///  8 get A6   miss, not inserted
///  9 delete B (size 0: a delete needs none)    [C2]
/// 10 get B4   miss
/// 11 set E12  larger than the cache: too large, nothing stored
/// 12 get C2   hit
/// 13 get C0   size 0: still a look-up, a hit of 0 bytes
/// 14 set Y0   size 0: dropped (a set needs a size)
/// Gets counted 7 (1 3 6 8 10 12 13), hits 4 (3 6 12 13), sets 5, deletes 1, too large 1,
/// dropped 1, 1 eviction, C left (2 bytes). Requested bytes 4+4+4+6+4+2+0 = 24, hit bytes
/// 4+4+2+0 = 10.
/// Under FIFO step 7 evicts B (inserted before A's replacement), so step 8 hits: hits 4 (3
/// 6 8 12 13), hit bytes 16, A and C left (8 bytes).
private let opsTrace: [Request] = [
    ("A", 4, Operation.get), ("A", 4, .set), ("A", 4, .get), ("B", 4, .set), ("A", 6, .set), ("B", 4, .get), ("C", 2, .set),
    ("A", 6, .get), ("B", 0, .delete), ("B", 4, .get), ("E", 12, .set), ("C", 2, .get), ("C", 0, .get), ("Y", 0, .set),
].enumerated().map { index, item in Request(time: Double(index), key: item.0, size: item.1, operation: item.2) }

private let opsCSV = "time,key,size,op\n" + opsTrace.map { "\(Int($0.time)),\($0.keyText),\($0.size),\($0.operation.name)" }.joined(separator: "\n") + "\n"

private func opsReplay(_ backend: String) throws -> ReplayTally {
    var options = ReplayOptions()
    options.timing = false
    options.operations = true
    let instance = try BackendRegistry.named(backend).make(BackendConfig(capacityBytes: 10))
    let source = try InMemoryTrace(label: "ops", requests: opsTrace, carriesOperations: true).open(keepKeyNames: true)
    return try instance.replay(with: Replayer(source: source, capacity: 10, options: options))
}

@Suite("--mode ops: sets, deletes, lookaside gets", .onTestWorkers)
struct OpsModeTests {
    @Test("LRU and FIFO on the hand trace: counts as computed above")
    func handTrace() throws {
        let lru = try opsReplay("lru")
        #expect((lru.requests, lru.hits, lru.sets, lru.deletes, lru.tooLarge, lru.droppedZeroSize) == (7, 4, 5, 1, 1, 1))
        #expect((lru.requestedBytes, lru.hitBytes) == (24, 10))
        #expect((lru.finalFacts.evictions, lru.finalFacts.entries, lru.finalFacts.accountedBytes) == (1, 1, 2))
        let fifo = try opsReplay("fifo")
        #expect((fifo.requests, fifo.hits, fifo.sets, fifo.deletes) == (7, 5, 5, 1))
        #expect(fifo.hitBytes == 16)
        #expect((fifo.finalFacts.entries, fifo.finalFacts.accountedBytes) == (2, 8))
    }

    @Test("bench run --mode ops: the CSV's counts; a trace without ops is one line, exit 2")
    func cli() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("ops.csv", opsCSV)
        let result = try bench(["run", "--trace", trace, "--mode", "ops", "--backend", "lru", "--capacity", "10", "--no-timing", "--csv", folder.path + "/out.csv"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("lru at 10B: 1 set was for an object larger than the whole capacity, not stored (too_large)"))
        let row = try #require(try csvRows(folder.path + "/out.csv").first)
        #expect(row["mode"] == "ops")
        #expect([row["requests"], row["hits"], row["misses"], row["gets"], row["sets"], row["deletes"], row["too_large"], row["dropped_zero_size"]]
            == ["7", "4", "3", "7", "5", "1", "1", "1"])
        #expect(Double(row["byte_hit_ratio"] ?? "") == 10.0 / 24.0)
        // Keys of size > 0: A, B, C, E. No compulsory-miss figure: a first request may be a set.
        #expect(row["compulsory_misses"] == "" && row["unique_objects"] == "4")
        // Demand-fill leaves the op columns empty.
        _ = try bench(["run", "--trace", trace, "--backend", "lru", "--capacity", "10", "--no-timing", "--csv", folder.path + "/fill.csv"])
        let fill = try #require(try csvRows(folder.path + "/fill.csv").first)
        #expect(fill["mode"] == "demand-fill" && fill["gets"] == "" && fill["sets"] == "" && fill["deletes"] == "")

        let plain = folder.file("plain.csv", "0,a,5\n1,b,5\n")
        let refused = try bench(["run", "--trace", plain, "--mode", "ops", "--backend", "lru", "--capacity", "10"])
        #expect(refused.status == 2)
        #expect(refused.err == "bench: error: \(plain): --mode ops needs a trace that says each request's op (get, set, delete: twitter, cachelib, lcs version 2 or later, vscsi, or a CSV with an op column); this one does not\n")
        // An lcs v3 written by `bench convert` keeps the ops and replays the same.
        let lcs = folder.path + "/ops.lcs"
        #expect(try bench(["convert", trace, lcs]).status == 0)
        _ = try bench(["run", "--trace", lcs, "--mode", "ops", "--backend", "lru", "--capacity", "10", "--no-timing", "--csv", folder.path + "/lcs.csv"])
        let fromLCS = try #require(try csvRows(folder.path + "/lcs.csv").first)
        // lcs keys are ids: A, B, C… are digested, so the counts, not the names, must agree.
        #expect([fromLCS["requests"], fromLCS["hits"], fromLCS["gets"], fromLCS["sets"], fromLCS["deletes"], fromLCS["too_large"]] == ["7", "4", "7", "5", "1", "1"])
    }

    @Test("convert to lcs, then the workbench on the lcs and on the CSV, equals libCacheSim's cachesim on the lcs")
    func lcsAgainstCachesim() throws {
        // Figures from /work/ext/build-pypi/bin/cachesim (libCacheSim, PyPI 0.3.5 sources)
        // run once on this lcs file outside the project: `cachesim z.lcs lcs lru 1048576`
        // printed miss ratio 0.9777, byte miss ratio 0.9816; at 8388608, 0.8653; at
        // 67108864, 0.5976 and 0.6054; `fifo` at 1048576, 8388608 and 67108864 0.9781,
        // 0.8829 (byte 0.8945) and 0.6437. Misses below are those ratios × 20,000. The same figures on vscsi1 and vscsi2
        // files of these requests (cmd 40/42, `cachesim F vscsi lru …`).
        let folder = TemporaryFolder()
        let (csv, _) = try libCacheSimTestTraces(in: folder)
        let lcs = folder.path + "/z.lcs"
        #expect(try bench(["convert", csv, lcs]).status == 0)
        for trace in [csv, lcs] {
            let out = folder.path + "/\(trace == csv ? "csv" : "lcs").out.csv"
            let result = try bench(["run", "--trace", trace, "--backend", "lru,fifo", "--capacity", "1MiB,8MiB,64MiB", "--no-timing", "--csv", out])
            #expect(result.status == 0, "\(result.err)")
            let misses = try csvRows(out).map { "\($0["backend"]!) \($0["capacity_bytes"]!) \($0["misses"]!)" }
            #expect(misses == ["lru 1048576 19554", "lru 8388608 17307", "lru 67108864 11952",
                               "fifo 1048576 19562", "fifo 8388608 17658", "fifo 67108864 12873"])
            let rows = try csvRows(out)
            // cachesim's 4-decimal ratios against the measured row (not a constant against itself).
            let missRatio = Double(try #require(Int(rows[0]["misses"] ?? ""))) / Double(try #require(Int(rows[0]["requests"] ?? "")))
            #expect(String(format: "%.4f", missRatio) == "0.9777" && String(format: "%.4f", 1 - Double(rows[0]["byte_hit_ratio"]!)!) == "0.9816")
            #expect(String(format: "%.4f", 1 - Double(rows[2]["byte_hit_ratio"]!)!) == "0.6054")
            #expect(String(format: "%.4f", 1 - Double(rows[4]["byte_hit_ratio"]!)!) == "0.8945")
        }
    }
}
