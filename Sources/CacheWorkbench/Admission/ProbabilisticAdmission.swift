import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// libCacheSim's probabilistic admission: each miss is stored with probability P, drawn
/// from libCacheSim's `next_rand` (`LibCacheSimRandom`, lehmer64 from 0xdeadbeef, the PyPI
/// package's) as `prob_admit` draws it: admit when `(int)(next_rand() % 10000000) <
/// (int)(P × 10000000)` (libCacheSim/cache/admission/prob.c, `MAX_MODULE`).
///
/// Complexity: O(1) per question (one draw).
struct ProbabilisticAdmission: Admissioner {
    let probability: Double
    /// P × 10^7 truncated, as C's double-to-int conversion does.
    private let threshold: UInt64
    private let random: LibCacheSimRandom

    init(probability: Double, random: LibCacheSimRandom = LibCacheSimRandom()) {
        self.probability = probability
        self.random = random
        threshold = UInt64(probability * 10_000_000)
    }

    mutating func admits(_ key: UInt64, cost: Int) -> Bool {
        random.next() % 10_000_000 < threshold
    }

    var settings: String { "prob:\(probability)" }
}
