import Foundation
import Testing
@testable import CacheWorkbench
@testable import WorkbenchCore
@testable import WorkbenchTraces
@testable import WorkbenchBackends
@testable import WorkbenchSimulation

/// Issue 45 §1: `reference=` chooses which libCacheSim code a policy follows where the PyPI
/// release 0.3.5 and the repository at aa0fc40 differ; the figures of aa0fc40's C code
/// (cachesim's `create_cache` in a driver built outside the project) are stored here.
@Suite("libCacheSim references: reference=libcachesim-0.3.5 | libcachesim-aa0fc40", .onTestWorkers)
struct LibCacheSimReferenceTests {
    /// aa0fc40's wtinylfu on `zipfRequests(20000, 2000)`: (capacity, unit sizes, hits, byte hits).
    static let wtinylfuRepository: [(Int, Bool, Int, Int)] = [
        (50, true, 0, 0), (300, true, 9872, 9872), (1500, true, 13857, 13857),
        (1 << 20, false, 0, 0), (8 << 20, false, 3512, 178_806_517), (64 << 20, false, 10019, 2_138_607_285),
    ]

    @Test("wtinylfu[reference=libcachesim-aa0fc40] equals the repository's WTinyLFU.c on the Zipf grid (6 of 6), where the default (0.3.5) differs at 4 of them (both 0 at 50 objects and 1 MiB); backend_options says which ran")
    func wtinylfuRepository() throws {
        let requests = zipfRequests(requests: 20_000, images: 2_000)
        let units = requests.map { Request(time: $0.time, id: $0.id, size: 1) }
        var differing: [String] = []
        for (capacity, unitSizes, hits, hitBytes) in Self.wtinylfuRepository {
            let trace = unitSizes ? units : requests
            let repository = try BackendRegistry.named("wtinylfu").make(BackendConfig(capacityBytes: capacity, options: ["reference": "libcachesim-aa0fc40"]))
            let tally = try replayUntimed(trace, backend: repository, capacity: capacity)
            #expect(tally.hits == hits && tally.hitBytes == ByteTotal(hitBytes), "aa0fc40 at \(capacity): \(tally.hits)")
            #expect(repository.settings.contains("reference=libcachesim-aa0fc40"))
            let release = try BackendRegistry.named("wtinylfu").make(BackendConfig(capacityBytes: capacity))
            let defaultTally = try replayUntimed(trace, backend: release, capacity: capacity)
            #expect(release.settings.contains("reference=libcachesim-0.3.5"))
            if defaultTally.hits != hits { differing.append("\(capacity): \(defaultTally.hits)") }
        }
        #expect(differing.count == 4, "\(differing)")
    }

    @Test("wtinylfu[reference=libcachesim-aa0fc40] equals the repository's code on ARC's OLTP trace at 1,000, 10,000, 100,000 objects (recorded)",
          .enabled(if: FileManager.default.fileExists(atPath: sharedTrace("arc_OLTP.lis.zst")), "needs ../shared/data/arc_OLTP.lis.zst; absent in a clone without ../shared"))
    func wtinylfuOLTP() throws {
        let loaded = try InMemoryTrace.load(TraceFile(path: sharedTrace("arc_OLTP.lis.zst")), keepKeyNames: false).requests
        let requests = loaded.map { Request(time: $0.time, id: $0.id, size: 1) }
        for (capacity, hits) in [(1_000, 291_244), (10_000, 511_636), (100_000, 698_009)] {
            let backend = try BackendRegistry.named("wtinylfu").make(BackendConfig(capacityBytes: capacity, options: ["reference": "libcachesim-aa0fc40"]))
            #expect(try replayUntimed(requests, backend: backend, capacity: capacity).hits == hits, "at \(capacity)")
        }
    }

    /// aa0fc40's counts on the same trace, one cache per process (its MMIX state is per
    /// thread, from 0): (policy, capacity, hits, byte hits); capacities under 2,000 are in
    /// objects. beladysize at 1 and 8 MiB is left out: the workbench differs there (2,543 and
    /// 7,852 hits against 2,561 and 7,850; cause not found), said in docs/policies.md.
    static let randomizedRepository: [(String, Int, Int, Int)] = [
        ("random", 50, 3029, 3029), ("random", 300, 7538, 7538), ("random", 1500, 12936, 12936),
        ("random", 1_048_576, 425, 77_992_081), ("random", 8_388_608, 2527, 504_108_101), ("random", 67_108_864, 7535, 1_630_517_092),
        ("lecar", 50, 3561, 3561), ("lecar", 300, 8168, 8168), ("lecar", 1500, 13501, 13501),
        ("lecar", 1_048_576, 847, 141_667_742), ("lecar", 8_388_608, 4477, 902_819_386), ("lecar", 67_108_864, 8798, 1_925_230_496),
        ("lhd", 50, 5548, 5548), ("lhd", 300, 8915, 8915), ("lhd", 1500, 13592, 13592),
        ("lhd", 1_048_576, 1168, 79_287_760), ("lhd", 8_388_608, 3780, 284_271_686), ("lhd", 67_108_864, 8790, 1_204_560_481),
        ("hyperbolic", 50, 3873, 3873), ("hyperbolic", 300, 8664, 8664), ("hyperbolic", 1500, 13671, 13671),
        ("hyperbolic", 1_048_576, 448, 81_534_853), ("hyperbolic", 8_388_608, 3162, 616_385_764), ("hyperbolic", 67_108_864, 8627, 1_886_730_757),
        ("beladysize", 50, 7884, 7884), ("beladysize", 300, 12332, 12332), ("beladysize", 1500, 15625, 15625),
        ("beladysize", 67_108_864, 12965, 2_604_589_017),
        ("randomlru", 50, 3285, 3285), ("randomlru", 300, 8075, 8075), ("randomlru", 1500, 13428, 13428),
        ("randomlru", 1_048_576, 446, 81_384_046), ("randomlru", 8_388_608, 2693, 529_001_370), ("randomlru", 67_108_864, 8057, 1_748_675_569),
    ]

    /// The cells the suite replays: the repository's MMIX draw picks buckets of a 2^16-bucket
    /// table until one is not empty, so a run holding few objects draws thousands of times per
    /// eviction (minutes in a debug build: randomlru and beladysize at 1 MiB did not finish in
    /// 60 s). The other 17 were compared in the campaign (release build; docs/policies.md).
    static let suiteCells: Set<String> = ["lecar", "lhd", "random@1500", "random@67108864", "hyperbolic@300", "hyperbolic@1500", "beladysize@1500"]

    @Test("random, lecar, lhd, hyperbolic and beladysize with reference=libcachesim-aa0fc40 equal the repository's code on the Zipf grid (17 of the campaign's 34 cells: mmix from 0, hashpower 16 for hyperbolic and beladysize)")
    func randomizedRepository() throws {
        let requests = zipfRequests(requests: 20_000, images: 2_000)
        let units = requests.map { Request(time: $0.time, id: $0.id, size: 1) }
        var checked = 0
        for (name, capacity, hits, hitBytes) in Self.randomizedRepository
        where Self.suiteCells.contains(name) || Self.suiteCells.contains("\(name)@\(capacity)") {
            let unitSizes = capacity < 2_000
            var config = BackendConfig(capacityBytes: capacity, options: ["reference": "libcachesim-aa0fc40"])
            if name == "beladysize" { config.nextAccess = try NextAccess.compute(InMemoryTrace(label: "zipf", requests: unitSizes ? units : requests)) }
            let backend = try BackendRegistry.named(name).make(config)
            let tally = try replayUntimed(unitSizes ? units : requests, backend: backend, capacity: capacity)
            #expect(tally.hits == hits && tally.hitBytes == ByteTotal(hitBytes), "\(name) at \(capacity): \(tally.hits), \(tally.hitBytes)")
            #expect(backend.settings.contains("generator=mmix;seed=0;reference=libcachesim-aa0fc40"), "\(backend.settings)")
            checked += 1
        }
        #expect(checked == 17)
    }

    /// aa0fc40 with cachesim's prob admissioner in front (`cache->admissioner =
    /// create_admissioner("prob", "prob=P")`, one cache per process, MMIX from 0):
    /// (policy, P, capacity, hits, byte hits) on the Zipf trace; capacities under 2,000 objects.
    static let probZipf: [(String, Double, Int, Int, Int)] = [
        ("lru", 0.5, 50, 3695, 3695), ("lru", 0.5, 300, 8378, 8378), ("lru", 0.5, 1500, 13157, 13157),
        ("lru", 0.5, 1_048_576, 468, 82_660_961), ("lru", 0.5, 8_388_608, 2982, 600_473_505), ("lru", 0.5, 67_108_864, 8381, 1_831_178_248),
        ("lru", 0.3, 1_048_576, 446, 83_098_954), ("lru", 0.3, 8_388_608, 3258, 636_362_561),
        ("fifo", 0.3, 1_048_576, 435, 77_859_244), ("fifo", 0.3, 8_388_608, 2372, 474_944_521),
    ]

    @Test("admission=prob:P with reference=libcachesim-aa0fc40 draws MMIX from 0 and equals the repository's code (10 Zipf cells: lru at P 0.5 and 0.3, fifo at 0.3); the release's lehmer64 differs; the setting says which")
    func probAdmission() throws {
        let requests = zipfRequests(requests: 20_000, images: 2_000)
        let units = requests.map { Request(time: $0.time, id: $0.id, size: 1) }
        var releaseDiffers = 0
        for (name, p, capacity, hits, hitBytes) in Self.probZipf {
            let trace = capacity < 2_000 ? units : requests
            let backend = try BackendRegistry.named(name).make(BackendConfig(capacityBytes: capacity, options: ["admission": "prob:\(p)", "reference": "libcachesim-aa0fc40"]))
            let tally = try replayUntimed(trace, backend: backend, capacity: capacity)
            #expect(tally.hits == hits && tally.hitBytes == ByteTotal(hitBytes), "\(name) prob:\(p) at \(capacity): \(tally.hits), \(tally.hitBytes)")
            #expect(backend.settings == "admission=prob:\(p);reference=libcachesim-aa0fc40", "\(backend.settings)")
            let release = try BackendRegistry.named(name).make(BackendConfig(capacityBytes: capacity, options: ["admission": "prob:\(p)"]))
            if try replayUntimed(trace, backend: release, capacity: capacity).hits != hits { releaseDiffers += 1 }
            #expect(release.settings == "admission=prob:\(p);reference=libcachesim-0.3.5", "\(release.settings)")
        }
        #expect(releaseDiffers >= 8, "the release's generator gives other counts: \(releaseDiffers) of 10 differ")
    }

    @Test("prob admission under aa0fc40 on ARC's OLTP trace (recorded): lru at 1,000 and 10,000 objects, fifo at 1,000, random at 100,000 (sharing the policy's generator); the campaign's other 5 OLTP cells in docs/policies.md",
          .enabled(if: FileManager.default.fileExists(atPath: sharedTrace("arc_OLTP.lis.zst")), "needs ../shared/data/arc_OLTP.lis.zst; absent in a clone without ../shared"))
    func probAdmissionOLTP() throws {
        let loaded = try InMemoryTrace.load(TraceFile(path: sharedTrace("arc_OLTP.lis.zst")), keepKeyNames: false).requests
        let requests = loaded.map { Request(time: $0.time, id: $0.id, size: 1) }
        let cells: [(String, Int, Int)] = [
            ("lru", 1_000, 291_267), ("lru", 10_000, 491_469), ("fifo", 1_000, 216_875), ("random", 100_000, 598_299),
        ]
        for (name, capacity, hits) in cells {
            let backend = try BackendRegistry.named(name).make(BackendConfig(capacityBytes: capacity, options: ["admission": "prob:0.3", "reference": "libcachesim-aa0fc40"]))
            #expect(try replayUntimed(requests, backend: backend, capacity: capacity).hits == hits, "\(name) at \(capacity)")
        }
    }

    @Test("reference= with admission, refused in one line: alone on a policy whose code is the same in both, before a policy whose aa0fc40 code never asks an admissioner (s3fifo), with AdaptSize (not implemented at aa0fc40)")
    func admissionReferenceRefusals() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", "time,key,size\n0,1,10\n1,2,10\n")
        for (backend, words) in [
            ("lru[reference=libcachesim-aa0fc40]", "reference= on lru chooses only the generator of a random admission in front"),
            ("s3fifo[admission=prob:0.5;reference=libcachesim-aa0fc40]", "libCacheSim aa0fc40's s3fifo never asks an admissioner (S3FIFO_can_insert, S3FIFO.c:478"),
            ("lru[admission=adaptsize;reference=libcachesim-aa0fc40]", "libCacheSim aa0fc40 has no AdaptSize admission"),
        ] {
            let result = try bench(["run", "--trace", trace, "--backend", backend, "--capacity", "20", "--no-timing"])
            #expect(result.status == 2 && result.err.hasPrefix("bench: error: ") && result.err.contains(words) && result.err.split(separator: "\n").count == 1, "\(backend): \(result.err)")
        }
    }

    /// aa0fc40's cacheus (`exact_any`, one cache per process): (capacity, hits, byte hits) on
    /// the Zipf trace, capacities under 2,000 in objects.
    static let cacheusRepository: [(Int, Int, Int)] = [
        (50, 5750, 5750), (300, 9830, 9830), (1500, 13829, 13829),
        (1_048_576, 1063, 163_965_097), (8_388_608, 4414, 870_384_743), (67_108_864, 9190, 2_014_907_110),
    ]

    @Test("cacheus[reference=libcachesim-aa0fc40] equals the repository's code on the Zipf grid (6 cells): MMIX draws, and SR-LRU without the new mark an id brings back from history (aa0fc40's SR_LRU_insert drops 0.3.5's SR_LRU.c:247 and :272, so SR never grows); the release's code, or only its generator changed, differs")
    func cacheusRepository() throws {
        let requests = zipfRequests(requests: 20_000, images: 2_000)
        let units = requests.map { Request(time: $0.time, id: $0.id, size: 1) }
        var mmixOnlyDiffers = 0
        for (capacity, hits, hitBytes) in Self.cacheusRepository {
            let trace = capacity < 2_000 ? units : requests
            let backend = try BackendRegistry.named("cacheus").make(BackendConfig(capacityBytes: capacity, options: ["reference": "libcachesim-aa0fc40"]))
            let tally = try replayUntimed(trace, backend: backend, capacity: capacity)
            #expect(tally.hits == hits && tally.hitBytes == ByteTotal(hitBytes), "at \(capacity): \(tally.hits), \(tally.hitBytes)")
            let mmix = try BackendRegistry.named("cacheus").make(BackendConfig(capacityBytes: capacity, options: ["generator": "mmix", "seed": "0"]))
            if try replayUntimed(trace, backend: mmix, capacity: capacity).hits != hits { mmixOnlyDiffers += 1 }
        }
        #expect(mmixOnlyDiffers == 6, "the new mark matters in every cell: \(mmixOnlyDiffers)")
    }

    @Test("cacheus[reference=libcachesim-aa0fc40] on ARC's OLTP trace at 1,000 and 10,000 objects: 344,497 and 561,280 hits, as aa0fc40's code (recorded)",
          .enabled(if: FileManager.default.fileExists(atPath: sharedTrace("arc_OLTP.lis.zst")), "needs ../shared/data/arc_OLTP.lis.zst; absent in a clone without ../shared"))
    func cacheusRepositoryOLTP() throws {
        let loaded = try InMemoryTrace.load(TraceFile(path: sharedTrace("arc_OLTP.lis.zst")), keepKeyNames: false).requests
        let requests = loaded.map { Request(time: $0.time, id: $0.id, size: 1) }
        for (capacity, hits) in [(1_000, 344_497), (10_000, 561_280)] {
            let backend = try BackendRegistry.named("cacheus").make(BackendConfig(capacityBytes: capacity, options: ["reference": "libcachesim-aa0fc40"]))
            #expect(try replayUntimed(requests, backend: backend, capacity: capacity).hits == hits, "at \(capacity)")
        }
    }

    @Test("reference= is one line, exit 2: an unknown value, the Caffeine variant, n-samples or lehmer64 beside the repository reference, a backend that does not take it (nscache: no libCacheSim policy)")
    func refusals() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", "time,key,size\n0,1,10\n1,2,10\n")
        let unknown = try bench(["run", "--trace", trace, "--backend", "wtinylfu[reference=libcachesim-0.4]", "--capacity", "1MiB", "--no-timing"])
        #expect(unknown.status == 2 && unknown.err.hasPrefix("bench: error: ") && unknown.err.contains("--reference must be one of libcachesim-0.3.5, libcachesim-aa0fc40") && unknown.err.split(separator: "\n").count == 1, "\(unknown.err)")
        let caffeine = try bench(["run", "--trace", trace, "--backend", "wtinylfu[variant=caffeine;reference=libcachesim-aa0fc40]", "--capacity", "1MiB", "--no-timing"])
        #expect(caffeine.status == 2 && caffeine.err.contains("wtinylfu[variant=caffeine] follows Caffeine's design"), "\(caffeine.err)")
        let samples = try bench(["run", "--trace", trace, "--backend", "randomlru[reference=libcachesim-aa0fc40;n-samples=16]", "--capacity", "1MiB", "--no-timing"])
        #expect(samples.status == 2 && samples.err.contains("draws 64 samples whatever n-samples says"), "\(samples.err)")
        let lehmer = try bench(["run", "--trace", trace, "--backend", "random[reference=libcachesim-aa0fc40;generator=lehmer64]", "--capacity", "1MiB", "--no-timing"])
        #expect(lehmer.status == 2 && lehmer.err.contains("draws with mmix"), "\(lehmer.err)")
        let notTaken = try bench(["run", "--trace", trace, "--backend", "nscache[reference=libcachesim-aa0fc40]", "--capacity", "1MiB", "--no-timing"])
        #expect(notTaken.status == 2 && notTaken.err.hasPrefix("bench: error: "), "\(notTaken.err)")
    }
}
