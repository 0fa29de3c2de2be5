import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The text of `admission=…`: `bloomfilter`, `prob:P`, `size:N`, `adaptsize[:N]`, `tinylfu[:M]`.
enum AdmissionChoice: Equatable {
    case bloomFilter
    case probability(Double)
    case size(Int)
    /// AdaptSize with its reconfiguration interval in requests (libCacheSim's default 30000).
    case adaptSize(reconfigureEvery: Int)
    /// TinyLFU with Caffeine's `counters-multiplier` (sketch counters per cache entry, default 1).
    case tinyLFU(countersMultiplier: Double)

    static let help = "admission in front of the policy: bloomfilter (store at the second miss), prob:P (store with probability P), size:N (store objects under N bytes), adaptsize[:R] (AdaptSize, reconfigured every R requests, default 30000), tinylfu[:M] (Caffeine's TinyLFU: store if more frequent than the victim; M sketch counters per entry, default 1); see docs/admission.md"

    /// Every policy but `lru` refers to lru's line (`bench list` stays readable).
    static let shortHelp = "as lru: bloomfilter, prob:P, size:N, adaptsize[:R], tinylfu[:M] (not before \(tinyLFUExclusions.map(\.name).joined(separator: ", ")))"

    /// The policies TinyLFU can sit in front of: those whose next victim can be named
    /// before it goes (`VictimNamingPolicy`; `AdmissionTests` checks the list against them).
    static let tinyLFUPolicies = "lru, fifo, mru, clock, sieve, lfu, size, gdsf, lruprob, random, randomtwo, randomlru, hyperbolic, beladysize, belady, 2q, slru, sfifo, s3lru, s3fifo, clock2qplus, arc, car, mq, lruk, lfuda, crlfu, lecar, cacheus, lhd, fifomerge, fiforeinsertion, qdlp, s3fifod, flashprob, clockpro, lirs[variant=paper]"

    /// The policies TinyLFU cannot sit in front of, and why: each has no single next victim
    /// to compare the candidate with (`AdmissionTests` checks the list against them).
    static let tinyLFUExclusions: [(name: String, reason: String)] = [
        ("wtinylfu", "W-TinyLFU has TinyLFU inside, between its window and its main cache (Caffeine's simulator runs it as that policy's admittor)"),
        ("lirs", "libCacheSim's LIRS evicts inside its insertion, by where the new id sits in its stack (lirs[variant=paper] takes tinylfu)"),
        ("clockpro[variant=paper]", "CLOCK-Pro's cold hand frees a page as it turns, changing hot and cold pages on the way"),
    ]

    static let referenceHelp = "with admission=prob:P, the libCacheSim whose generator it draws from: libcachesim-0.3.5 (lehmer64 from 0xdeadbeef, the default) or libcachesim-aa0fc40 (MMIX from 0); the policy's own code is the same in both"

    /// Whether the admissioner draws from libCacheSim's generator (its reference matters).
    var draws: Bool {
        switch self {
        case .probability, .adaptSize: true
        case .bloomFilter, .size, .tinyLFU: false
        }
    }

    /// The policies whose `can_insert` at aa0fc40 does not call `cache_can_insert_default`,
    /// so no admissioner is ever asked (the 0.3.5 release's do, after their size rule).
    static let repositoryNeverAsks = [
        "2q": "TwoQ_can_insert, TwoQ.c", "qdlp": "QDLP_can_insert, QDLP.c", "s3lru": "S3LRU_can_insert, other/S3LRU.c",
        "s3fifo": "S3FIFO_can_insert, S3FIFO.c:478", "s3fifod": "S3FIFOd_can_insert, S3FIFOd.c",
    ]

    static func referenceAlone(backend: String) -> WorkbenchError {
        WorkbenchError("backend \(ErrorText.quote("\(backend)[reference=…]")): reference= on \(backend) chooses only the generator of a random admission in front (admission=prob:P): \(backend)'s own code is the same in both libCacheSim references")
    }

    /// `reference=` as given (nil: the release's), validated for this admissioner: the
    /// repository's AdaptSize admissioner is not implemented (aa0fc40's
    /// `create_adaptsize_admissioner` ends in `ERROR("adaptsize is not implemented")`,
    /// cache/admission/adaptsize.cpp:84).
    func referenceFollowed(_ text: String?, backend: String) throws -> String {
        guard let text else { return LibCacheSimReference.release }
        let name = text.trimmingSpaces.lowercased()
        guard LibCacheSimReference.names.contains(name) else {
            throw WorkbenchError("backend \(ErrorText.quote("\(backend)[reference=\(text)]")): reference must be one of \(LibCacheSimReference.names.joined(separator: ", "))")
        }
        if name == LibCacheSimReference.repository, let place = Self.repositoryNeverAsks[backend] {
            throw WorkbenchError("backend \(ErrorText.quote("\(backend)[reference=\(text)]")): libCacheSim aa0fc40's \(backend) never asks an admissioner (\(place) does not call cache_can_insert_default), so its runs with admission= are its runs without; the 0.3.5 release's asks after its own size rule")
        }
        if case .adaptSize = self, name == LibCacheSimReference.repository {
            throw WorkbenchError("backend \(ErrorText.quote("\(backend)[reference=\(text)]")): libCacheSim aa0fc40 has no AdaptSize admission (its create_adaptsize_admissioner stops with 'adaptsize is not implemented', adaptsize.cpp:84); the 0.3.5 release's is followed by default")
        }
        return name
    }

    /// The option as the user wrote it, for every message about it: `lru[admission=prob:0]`
    /// (there is no `--admission` flag; `admission=` is a backend option).
    static func written(_ text: String, backend: String) -> String { ErrorText.quote("\(backend)[admission=\(text)]") }

    /// `backend`: the backend it sits in front of, named in the error.
    init(parsing text: String, backend: String = "lru") throws {
        let parts = text.trimmingSpaces.lowercased().split(separator: ":", maxSplits: 1).map { String($0).trimmingSpaces }
        let name = parts.first ?? ""
        let argument = parts.count > 1 ? parts[1] : nil
        func bad(_ reason: String) -> WorkbenchError {
            WorkbenchError("backend \(Self.written(text, backend: backend)): \(reason); admission= takes bloomfilter, prob:P, size:N, adaptsize, adaptsize:R, tinylfu or tinylfu:M")
        }
        switch name {
        case "bloomfilter":
            guard argument == nil else { throw bad("bloomfilter takes no value") }
            self = .bloomFilter
        case "tinylfu":
            guard let argument else { self = .tinyLFU(countersMultiplier: 1); return }
            // Caffeine multiplies the entry count by M; above 1024 the sketch outgrows memory.
            guard let m = Double(argument), m > 0, m <= 1024 else { throw bad("M must be a number above 0 and at most 1024") }
            self = .tinyLFU(countersMultiplier: m)
        case "prob":
            // libCacheSim refuses P outside (0, 1] (prob.c's parse_params).
            guard let argument, let p = Double(argument), p > 0, p <= 1 else { throw bad("P must be a number above 0 and at most 1") }
            self = .probability(p)
        case "size":
            guard let argument, let n = Int(argument), n > 0 else { throw bad("N must be a whole number of bytes above 0") }
            self = .size(n)
        case "adaptsize":
            guard let argument else { self = .adaptSize(reconfigureEvery: 30_000); return }
            guard let r = Int(argument), r > 0 else { throw bad("R must be a whole number of requests above 0") }
            self = .adaptSize(reconfigureEvery: r)
        default:
            throw bad("unknown admission '\(name)'")
        }
    }
}
