import Foundation
import Testing
@testable import CacheWorkbench
@testable import WorkbenchCore
@testable import WorkbenchTraces
@testable import WorkbenchBackends
@testable import WorkbenchSimulation

/// Issue 45 §2: `--consider-obj-metadata`, libCacheSim's per-object metadata bytes in a
/// policy's capacity, against hand traces and aa0fc40's C code (cachesim's `create_cache`
/// with `consider_obj_metadata` true, `cache->get` per request, in a driver outside the
/// project), whose figures are stored here.
@Suite("--consider-obj-metadata", .onTestWorkers)
struct ObjectMetadataTests {
    static func replay(_ name: String, _ requests: [Request], capacity: Int, options: [String: String] = [:]) throws -> (hits: Int, hitBytes: ByteTotal, backend: any CacheBackend) {
        var config = BackendConfig(capacityBytes: capacity, options: options)
        config.considersObjectMetadata = true
        let backend = try BackendRegistry.named(name).make(config)
        var replay = ReplayOptions()
        replay.timing = false
        replay.considersObjectMetadata = true
        let tally = try backend.replay(with: Replayer(source: InMemoryTrace(label: "t", requests: requests).open(keepKeyNames: false), capacity: capacity, options: replay))
        return (tally.hits, tally.hitBytes, backend)
    }

    @Test("by hand: LRU at 100 bytes holds two 42-byte objects, but not with 16 bytes each (2 × 58 > 100): A B A gives 1 hit without and 0 with; a 90-byte object fits alone without and is too large with (90 + 16 > 100); the setting says the bytes; hit bytes count the request's size only")
    func byHand() throws {
        let trace = [Request(time: 0, id: 1, size: 42), Request(time: 1, id: 2, size: 42), Request(time: 2, id: 1, size: 42)]
        #expect(try replayUntimed(trace, backend: BackendRegistry.named("lru").make(BackendConfig(capacityBytes: 100)), capacity: 100).hits == 1)
        let with = try Self.replay("lru", trace, capacity: 100)
        #expect(with.hits == 0 && with.backend.settings == "obj-metadata-bytes=16")
        let twice = try Self.replay("lru", [Request(time: 0, id: 1, size: 40), Request(time: 1, id: 1, size: 40)], capacity: 100)
        #expect(twice.hits == 1 && twice.hitBytes == 40 && twice.backend.facts.accountedBytes == 56)
        let large = [Request(time: 0, id: 9, size: 90), Request(time: 1, id: 9, size: 90)]
        #expect(try Self.replay("lru", large, capacity: 100).hits == 0)
        #expect(try Self.replay("fifo", large, capacity: 100).hits == 1)  // fifo sets no metadata bytes
    }

    /// aa0fc40 on `zipfRequests(20000, 2000)` with the metadata: (policy, capacity, hits, byte hits).
    static let cZipf: [(String, Int, Int, Int)] = [
        ("lru", 1_048_576, 446, 81_384_046), ("lru", 8_388_608, 2693, 529_001_370), ("lru", 67_108_864, 8048, 1_745_844_514),
        ("arc", 1_048_576, 1271, 210_987_679), ("arc", 8_388_608, 4524, 924_195_056), ("arc", 67_108_864, 9826, 2_154_951_400),
        ("lfu", 1_048_576, 1276, 190_576_313), ("lfu", 8_388_608, 5229, 1_014_542_092), ("lfu", 67_108_864, 9711, 2_123_988_410),
        ("sieve", 1_048_576, 640, 102_107_324), ("sieve", 8_388_608, 5158, 1_080_850_862), ("sieve", 67_108_864, 9736, 2_127_351_155),
        ("s3fifo", 8_388_608, 5415, 1_135_244_066), ("clock", 8_388_608, 2926, 576_865_967),
    ]

    @Test("equal to aa0fc40's C code with the metadata on a 20,000-request Zipf trace: lru, arc, lfu, sieve at 1, 8, 64 MiB; s3fifo and clock (no bytes) at 8 MiB")
    func cZipfCells() throws {
        let requests = zipfRequests(requests: 20_000, images: 2_000)
        for (name, capacity, hits, hitBytes) in Self.cZipf {
            let got = try Self.replay(name, requests, capacity: capacity)
            #expect(got.hits == hits && got.hitBytes == ByteTotal(hitBytes), "\(name) at \(capacity): \(got.hits), \(got.hitBytes)")
        }
    }

    @Test("bench run --consider-obj-metadata on ARC's OLTP trace (512-byte blocks, where 16–40 bytes matter) equals aa0fc40 at 1 MiB: lru 387,389 (391,047 without), arc 392,785, lfuda 242,419, lecar and hyperbolic with reference=libcachesim-aa0fc40 396,734 and 391,848",
          .enabled(if: FileManager.default.fileExists(atPath: sharedTrace("arc_OLTP.lis.zst")), "needs ../shared/data/arc_OLTP.lis.zst; absent in a clone without ../shared"))
    func cOLTP() throws {
        let folder = TemporaryFolder()
        let csv = folder.path + "/m.csv"
        let reference = "reference=libcachesim-aa0fc40"
        let result = try bench(["run", "--trace", sharedTrace("arc_OLTP.lis.zst"), "--backend", "lru,arc,lfuda,lecar[\(reference)],hyperbolic[\(reference)]",
                                "--capacity", "1MiB", "--consider-obj-metadata", "--no-timing", "--csv", csv])
        #expect(result.status == 0, "\(result.err)")
        #expect(try csvRows(csv).map { $0["hits"] } == ["387389", "392785", "242419", "396734", "391848"])
    }

    @Test("refused in one line, exit 2, before any row: a policy libCacheSim runs otherwise with it (gdsf, slru, lirs, wtinylfu, 2q), a backend that is no cachesim policy, a prefetcher, --ignore-obj-size")
    func refusals() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", "time,key,size\n0,1,10\n1,2,10\n")
        for (backend, extra, words) in [
            ("lru,gdsf", [String](), "gdsf is not offered with it: libCacheSim's GDSF (8 bytes"),
            ("slru", [], "SLRU_cool moves only the object's size"),
            ("lirs", [], "its eviction loop never ends"),
            ("wtinylfu", [], "WTinyLFU.c:100–101"),
            ("2q", [], "its inner LRU (Am) adds 16"),
            ("nscache", [], "nscache is not offered with it: libCacheSim's cachesim has no such policy"),
            ("lru[prefetch=obl]", [], "--consider-obj-metadata with prefetch=: libCacheSim's prefetchers make room"),
            ("lru", ["--ignore-obj-size"], "under --ignore-obj-size capacities count objects"),
        ] as [(String, [String], String)] {
            let csv = folder.path + "/r.csv"
            let result = try bench(["run", "--trace", trace, "--backend", backend, "--capacity", "1000", "--consider-obj-metadata", "--no-timing", "--csv", csv] + extra)
            #expect(result.status == 2 && result.err.hasPrefix("bench: error: ") && result.err.contains(words) && result.err.split(separator: "\n").count == 1, "\(backend): \(result.err)")
            #expect(!FileManager.default.fileExists(atPath: csv))
        }
    }
}
