import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
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

extension AdmissionChoice {
    /// A fresh admissioner of this kind. The random ones draw from `random`: the policy's
    /// generator when it has one (libCacheSim's one generator per thread), else libCacheSim's
    /// generator from its own start (the PyPI package never seeds it).
    func make(random: LibCacheSimRandom = LibCacheSimRandom()) -> any Admissioner {
        switch self {
        case .bloomFilter: BloomFilterAdmission()
        case .probability(let p): ProbabilisticAdmission(probability: p, random: random)
        case .size(let n): SizeAdmission(threshold: n)
        case .adaptSize(let every): AdaptSizeAdmission(reconfigureEvery: every, random: random)
        case .tinyLFU(let m): TinyLFUAdmission(objects: nil, countersMultiplier: m)
        }
    }
}
