/// An admission policy: asked whether a missed object is stored at all, in front of any
/// eviction policy (`AdmissionGate`), as libCacheSim's admissioners are asked by
/// `cache_can_insert_default` (libCacheSim/cache/cache.c, called from `cache_get_base` on a
/// miss) and Caffeine's admittors by its simulator's policies. One file per admissioner.
protocol Admissioner {
    /// Every request, hit or miss, before any question about it (libCacheSim calls its
    /// admissioner's `update` right after the lookup; Caffeine's admittor `record`s every
    /// access). `capacity` is the cache's, in the run's cost units. The default does nothing.
    mutating func record(_ key: UInt64, cost: Int, capacity: Int)
    /// A miss: whether the object may be stored. libCacheSim asks it on every miss, before
    /// the object's size is compared with the capacity.
    mutating func admits(_ key: UInt64, cost: Int) -> Bool
    /// `admission=…` as written back in `backend_options`.
    var settings: String { get }
}

extension Admissioner {
    mutating func record(_ key: UInt64, cost: Int, capacity: Int) {}
}

/// Misses an admissioner let through and turned away (the `admitted` and `rejected`
/// columns), from the moment counting starts (after a warm-up).
public struct AdmissionCounts: Sendable, Equatable {
    public var admitted = 0
    public var rejected = 0

    public init(admitted: Int = 0, rejected: Int = 0) {
        self.admitted = admitted
        self.rejected = rejected
    }

    /// The counts since `start` (the warm-up's end).
    func since(_ start: AdmissionCounts?) -> AdmissionCounts {
        AdmissionCounts(admitted: admitted - (start?.admitted ?? 0), rejected: rejected - (start?.rejected ?? 0))
    }
}

/// The text of `admission=…`: `bloomfilter`, `prob:P`, `size:N`, `adaptsize[:N]`, `tinylfu`.
enum AdmissionChoice: Equatable {
    case bloomFilter
    case probability(Double)
    case size(Int)
    /// AdaptSize with its reconfiguration interval in requests (libCacheSim's default 30000).
    case adaptSize(reconfigureEvery: Int)
    case tinyLFU

    static let help = "admission in front of the policy: bloomfilter (store at the second miss), prob:P (store with probability P), size:N (store objects under N bytes), adaptsize[:R] (AdaptSize, reconfigured every R requests, default 30000), tinylfu (Caffeine's TinyLFU: store if more frequent than the victim); see docs/admission.md"

    /// Every policy but `lru` refers to lru's line (`bench list` stays readable).
    static let shortHelp = "as lru: bloomfilter, prob:P, size:N, adaptsize[:R], tinylfu (before lru and fifo only)"

    init(parsing text: String) throws {
        let parts = text.trimmingSpaces.lowercased().split(separator: ":", maxSplits: 1).map { String($0).trimmingSpaces }
        let name = parts.first ?? ""
        let argument = parts.count > 1 ? parts[1] : nil
        func bad(_ reason: String) -> WorkbenchError {
            WorkbenchError("--admission \(ErrorText.quote(text)): \(reason); one of bloomfilter, prob:P, size:N, adaptsize, adaptsize:R, tinylfu")
        }
        switch name {
        case "bloomfilter", "tinylfu":
            guard argument == nil else { throw bad("\(name) takes no value") }
            self = name == "tinylfu" ? .tinyLFU : .bloomFilter
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

    /// A fresh admissioner of this kind (libCacheSim's generator from its own start for the
    /// random ones: the PyPI package never seeds it).
    func make() -> any Admissioner {
        switch self {
        case .bloomFilter: BloomFilterAdmission()
        case .probability(let p): ProbabilisticAdmission(probability: p)
        case .size(let n): SizeAdmission(threshold: n)
        case .adaptSize(let every): AdaptSizeAdmission(reconfigureEvery: every)
        case .tinyLFU: TinyLFUAdmission()
        }
    }
}
