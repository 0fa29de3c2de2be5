import Foundation
import Testing
@testable import CacheWorkbench
@testable import WorkbenchCore
@testable import WorkbenchTraces
@testable import WorkbenchBackends
@testable import WorkbenchSimulation
@testable import WorkbenchCommands

/// Issue 45 §2: libCacheSim aa0fc40's v0 policies — `arcv0`, `slruv0`, `lecarv0`, `sfifov0` —
/// against its C code (cachesim's `create_cache` and `cache->get` per request, in a driver
/// outside the project, on files its traceConv wrote), whose figures are stored here.
@Suite("libCacheSim aa0fc40's v0 policies", .onTestWorkers)
struct RepositoryV0Tests {
    static func replay(_ name: String, _ requests: [Request], capacity: Int) throws -> (hits: Int, hitBytes: ByteTotal, backend: any CacheBackend) {
        let backend = try BackendRegistry.named(name).make(BackendConfig(capacityBytes: capacity))
        let tally = try replayUntimed(requests, backend: backend, capacity: capacity)
        return (tally.hits, tally.hitBytes, backend)
    }

    static func trace(_ items: [(UInt64, Int)]) -> [Request] {
        items.enumerated().map { Request(time: Double($0.offset + 1), id: $0.element.0, size: $0.element.1) }
    }

    /// 29 unit-size requests showing SLRUv0's two differences: at 5 objects (segments of 1)
    /// its insertion evicting segment 0, at 8 its top segment not reordering.
    static let slruTrace = trace([11, 7, 5, 4, 2, 9, 3, 10, 3, 9, 4, 8, 5, 7, 2, 1, 6, 5, 6, 1, 3, 22, 25, 24, 23, 21, 26, 21, 26].map { ($0, 1) })
    /// 20 requests of sizes 1–3 bytes showing ARCv0's capped ghost lists (at 5 bytes),
    /// LeCaRv0's crash (at 3 and 5 bytes) and SFIFOv0's overwritten cooling (at 8 bytes).
    static let bytesTrace = trace([(1, 1), (4, 1), (3, 3), (1, 1), (1, 1), (2, 2), (2, 2), (4, 1), (6, 3), (3, 3), (1, 1), (2, 2), (6, 3), (1, 1), (2, 2), (1, 1), (3, 3), (1, 1), (1, 1), (1, 1)])

    @Test("hand traces, C counts: slru 7 and 12 hits at 5 and 8 objects, slruv0 5 and 11; arc 8, arcv0 9 at 5 bytes (a ghost dropped by B1's own cap); sfifo 12 at 8 bytes where sfifov0's C gets 11 — the workbench moves the right object (12) and counts the one corrupted cooling; lecarv0 at 5 bytes, where the C crashes, runs as lecar (7) and counts it")
    func handTraces() throws {
        for (capacity, slru, slruv0) in [(5, 7, 5), (8, 12, 11)] {
            #expect(try Self.replay("slru", Self.slruTrace, capacity: capacity).hits == slru)
            #expect(try Self.replay("slruv0", Self.slruTrace, capacity: capacity).hits == slruv0, "slruv0 at \(capacity)")
        }
        #expect(try Self.replay("arc", Self.bytesTrace, capacity: 5).hits == 8)
        #expect(try Self.replay("arcv0", Self.bytesTrace, capacity: 5).hits == 9)
        let sfifo = try Self.replay("sfifov0", Self.bytesTrace, capacity: 8)
        #expect(sfifo.hits == 12 && sfifo.backend.facts.fallbacks == 1, "\(sfifo.hits) \(sfifo.backend.facts.fallbacks)")
        #expect(sfifo.backend.facts.fallbackRule?.contains("SFIFOv0.c:437") == true)
        let lecar = try Self.replay("lecarv0", Self.bytesTrace, capacity: 5)
        #expect(lecar.hits == 7 && lecar.backend.facts.fallbacks > 0 && lecar.backend.facts.fallbackRule?.contains("LeCaRv0.c:285") == true)
        #expect(try Self.replay("lecar", Self.bytesTrace, capacity: 5).backend.facts.fallbacks == 0)
        for (capacity, hits) in [(4, 6), (6, 10), (8, 11)] { #expect(try Self.replay("lecarv0", Self.bytesTrace, capacity: capacity).hits == hits) }
    }

    /// aa0fc40 on `zipfRequests(20000, 2000)`: (policy, capacity, hits, byte hits);
    /// capacities under 2,000 are in objects. lecarv0 at 1 MiB crashes in C (LeCaRv0.c:285);
    /// sfifov0's byte cells are the C's corrupted runs (1,308, 4,270, 8,906 hits).
    static let cZipf: [(String, Int, Int, Int)] = [
        ("arcv0", 50, 5850, 5850), ("arcv0", 300, 9802, 9802), ("arcv0", 1500, 13835, 13835),
        ("arcv0", 1_048_576, 1339, 223_357_252), ("arcv0", 8_388_608, 5214, 1_087_134_567), ("arcv0", 67_108_864, 9857, 2_155_511_842),
        ("slruv0", 50, 5671, 5671), ("slruv0", 300, 9617, 9617), ("slruv0", 1500, 13777, 13777),
        ("slruv0", 1_048_576, 1634, 210_005_799), ("slruv0", 8_388_608, 4632, 829_057_522), ("slruv0", 67_108_864, 9355, 1_993_887_207),
        ("lecarv0", 50, 3561, 3561), ("lecarv0", 300, 8168, 8168), ("lecarv0", 1500, 13501, 13501),
        ("lecarv0", 8_388_608, 4477, 902_819_386), ("lecarv0", 67_108_864, 8798, 1_925_230_496),
        ("sfifov0", 50, 5673, 5673), ("sfifov0", 300, 9617, 9617), ("sfifov0", 1500, 13777, 13777),
    ]

    @Test("equal to aa0fc40's C code on a 20,000-request Zipf trace: 20 cells (arcv0 and slruv0 in objects and bytes, lecarv0 but its crashing cell, sfifov0 in objects)")
    func cZipfCells() throws {
        let requests = zipfRequests(requests: 20_000, images: 2_000)
        let units = requests.map { Request(time: $0.time, id: $0.id, size: 1) }
        for (name, capacity, hits, hitBytes) in Self.cZipf {
            let got = try Self.replay(name, capacity < 2_000 ? units : requests, capacity: capacity)
            #expect(got.hits == hits && got.hitBytes == ByteTotal(hitBytes) && got.backend.facts.fallbacks == 0, "\(name) at \(capacity): \(got.hits), \(got.hitBytes)")
        }
        let corrupted = try Self.replay("sfifov0", requests, capacity: 1_048_576)
        #expect(corrupted.hits != 1308 && corrupted.backend.facts.fallbacks > 0, "said, not reproduced")
    }

    @Test("equal to aa0fc40 on ARC's OLTP trace (recorded): arcv0, slruv0, lecarv0, sfifov0 at 1,000 objects",
          .enabled(if: FileManager.default.fileExists(atPath: sharedTrace("arc_OLTP.lis.zst")), "needs ../shared/data/arc_OLTP.lis.zst; absent in a clone without ../shared"))
    func cOLTP() throws {
        let loaded = try InMemoryTrace.load(TraceFile(path: sharedTrace("arc_OLTP.lis.zst")), keepKeyNames: false).requests
        let requests = loaded.map { Request(time: $0.time, id: $0.id, size: 1) }
        for (name, hits) in [("arcv0", 356_015), ("slruv0", 359_098), ("lecarv0", 313_388), ("sfifov0", 359_098)] {
            #expect(try Self.replay(name, requests, capacity: 1_000).hits == hits, "\(name)")
        }
    }

    @Test("a trace whose keys change size is said for lhd, arcv0 and slruv0 (their libCacheSim code takes a hit's new size): by hand 2 of 6 counted requests (a 10→20, a 20→10; b's size-0 request is not one); nothing for lru, nothing under --ignore-obj-size; the AdaptSize recording has 4,876")
    func sizeChangeNote() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", "time,key,size\n0,a,10\n1,a,20\n2,b,5\n3,a,20\n4,a,10\n5,b,0\n6,b,5\n")
        let said = try bench(["run", "--trace", trace, "--backend", "lhd,arcv0,lru", "--capacity", "100", "--no-timing"])
        #expect(said.status == 0 && said.err.contains("bench: note: arcv0, lhd: 2 requests change their key's size; libCacheSim's code takes a hit's new size there (arcv0 re-inserts the object at it, lhd rates the hit at it)"), "\(said.err)")
        for arguments in [["--backend", "lru"], ["--backend", "lhd", "--ignore-obj-size"]] {
            let quiet = try bench(["run", "--trace", trace, "--capacity", "100", "--no-timing"] + arguments)
            #expect(quiet.status == 0 && !quiet.err.contains("change their key's size"), "\(arguments)")
        }
        #expect(ObjectSizeChangeNote.line(["slruv0"], changes: 0) == nil)
        if FileManager.default.fileExists(atPath: sharedTrace("webcachesim_adaptsize_request.trace.xz")) {
            #expect(try TraceSummary.sizeChanges(TraceFile(path: sharedTrace("webcachesim_adaptsize_request.trace.xz"))) == 4_876)
        }
    }
}
