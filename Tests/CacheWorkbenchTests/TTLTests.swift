import Foundation
import Testing
@testable import CacheWorkbench
@testable import WorkbenchCore
@testable import WorkbenchTraces
@testable import WorkbenchBackends
@testable import WorkbenchSimulation

/// Issue 45 §2: `--use-ttl`. libCacheSim aa0fc40's cachesim reads the option and ignores it,
/// and its TTL code (compiled out by default) dereferences NULL at the first expired object;
/// the figures here are that code built with `SUPPORT_TTL` and a one-line guard (outside the
/// project), on oracleSysTwrNS files of the same requests.
@Suite("--use-ttl", .onTestWorkers)
struct TTLTests {
    /// 30 requests of 100 bytes (time, id, ttl): objects with TTLs of 0 (libCacheSim's 300
    /// days), 1, 5, 10, 20, 60 and 100 s, requested before and after they expire.
    static let hand: [(Double, UInt64, UInt32)] = [
        (0, 1, 10), (0, 2, 0), (2, 3, 5), (3, 4, 100), (4, 3, 5), (5, 1, 10), (7, 3, 5), (8, 3, 5), (9, 3, 5), (10, 1, 10),
        (11, 1, 10), (12, 1, 10), (14, 3, 5), (20, 5, 20), (30, 6, 1), (31, 6, 1), (32, 6, 1), (40, 5, 20), (50, 4, 1), (60, 4, 1),
        (100, 2, 0), (103, 4, 1), (104, 4, 1), (106, 4, 1), (200, 1, 10), (200, 5, 20), (300, 6, 0), (400, 6, 60), (1000, 2, 0), (1000, 3, 5),
    ]

    static func csv(in folder: TemporaryFolder) -> String {
        folder.file("ttl.csv", "time,key,size,ttl\n" + hand.map { "\(Int($0.0)),\($0.1),100,\($0.2)" }.joined(separator: "\n") + "\n")
    }

    @Test("by hand at 300 bytes (3 objects): object 3 (ttl 5) stored at 2 s hits at 4 s, expires after 7 s (stored again at 8 s…); an expiry at exactly its time is still a hit (ttl 1 at 30 s, hit at 31 s); --use-ttl drops 16 hits to 10, with 6 expirations counted; without it the TTL column changes nothing")
    func byHand() throws {
        let requests = Self.hand.map { Request(time: $0.0, id: $0.1, size: 100, ttl: $0.2) }
        var config = BackendConfig(capacityBytes: 300)
        config.usesTTL = true
        let gated = try BackendRegistry.named("lru").make(config)
        var options = ReplayOptions()
        options.timing = false
        options.usesTTL = true
        let tally = try gated.replay(with: Replayer(source: InMemoryTrace(label: "t", requests: requests).open(keepKeyNames: false), capacity: 300, options: options))
        #expect(tally.hits == 10 && gated.details.remarks.first?.count == 6, "\(tally.hits) \(gated.details.remarks)")
        #expect(try replayUntimed(requests, backend: BackendRegistry.named("lru").make(BackendConfig(capacityBytes: 300)), capacity: 300).hits == 16)
    }

    @Test("bench run --use-ttl equals libCacheSim aa0fc40's TTL code (built with SUPPORT_TTL and its NULL guard) on the hand trace: lru, fifo, sieve at 300, 2,000, 100,000 bytes (10, 14, 14 hits; 16, 24, 24 without); the expirations said under the table")
    func cCells() throws {
        let folder = TemporaryFolder()
        let trace = Self.csv(in: folder)
        let csv = folder.path + "/r.csv"
        let result = try bench(["run", "--trace", trace, "--backend", "lru,fifo,sieve", "--capacity", "300,2000,100000", "--use-ttl", "--no-timing", "--csv", csv])
        #expect(result.status == 0, "\(result.err)")
        #expect(try csvRows(csv).map { $0["hits"] } == ["10", "14", "14", "10", "14", "14", "10", "14", "14"])
        #expect(result.out.contains("requests found their object expired (--use-ttl)"), "\(result.out)")
    }

    @Test("the TTL is read from a ttl column, Twitter's seventh field, a CacheLib trace's ttl column and lcs version 3 and later (0 otherwise); --use-ttl on a trace without one says so; refused in one line: s3fifo and slru (libCacheSim's code does not expire their objects), --preload, --mode ops")
    func readersAndRefusals() throws {
        let folder = TemporaryFolder()
        let trace = Self.csv(in: folder)
        #expect(try InMemoryTrace.load(TraceFile(path: trace), keepKeyNames: false).requests.map(\.ttl).prefix(3) == [10, 0, 5])
        let twitter = folder.file("cluster52.csv", "0,key-a,10,90,1,get,3600\n")
        #expect(try InMemoryTrace.load(TraceFile(path: twitter), keepKeyNames: false).requests.map(\.ttl) == [3600])
        let cachelib = folder.file("kv.csv", "op_time,key,key_size,op,op_count,size,ttl\n1,9,4,GET,2,21,7200\n2,8,4,SET,1,5,0\n")
        #expect(try InMemoryTrace.load(TraceFile(path: cachelib, format: TraceFormat.named("cachelib")), keepKeyNames: false).requests.map(\.ttl) == [7200, 7200, 0])
        let lcs = folder.path + "/t.lcs"
        let raw = [Request(time: 1, id: 7, size: 10)]
        try LCSWriter.write(raw, label: "t", to: lcs)
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: lcs)))
        bytes[8192 + 24] = 42  // the ttl field of version 3's record
        let patched = folder.path + "/p.lcs"
        try Data(bytes).write(to: URL(fileURLWithPath: patched))
        #expect(try InMemoryTrace.load(TraceFile(path: patched), keepKeyNames: false).requests.map(\.ttl) == [42])
        let plain = folder.file("plain.csv", "time,key,size\n0,1,10\n1,1,10\n")
        let none = try bench(["run", "--trace", plain, "--backend", "lru", "--capacity", "100", "--use-ttl", "--no-timing"])
        #expect(none.status == 0 && none.out.contains("2 requests, none with a TTL"), "\(none.out)")
        for (file, arguments, words) in [
            (trace, ["--backend", "s3fifo"], "s3fifo is not offered with it: its libCacheSim code checks expiry in its two FIFOs"),
            (trace, ["--backend", "slru"], "SLRU.c:245"),
            (trace, ["--backend", "lru", "--preload"], "--preload keeps key records"),
            (twitter, ["--backend", "lru", "--mode", "ops"], "--mode ops its own sets"),
        ] {
            let result = try bench(["run", "--trace", file, "--capacity", "1000", "--use-ttl", "--no-timing"] + arguments)
            #expect(result.status == 2 && result.err.hasPrefix("bench: error: ") && result.err.contains(words) && result.err.split(separator: "\n").count == 1, "\(arguments): \(result.err)")
        }
    }
}
