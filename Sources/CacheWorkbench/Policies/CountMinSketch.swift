import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// A count-min sketch of 4-bit counters with periodic halving: the frequency estimate
/// TinyLFU admission compares (Einziger, Friedman and Manes, "TinyLFU: A Highly Efficient
/// Cache Admission Policy", ACM ToS 2017), shaped as Caffeine's `FrequencySketch`: four
/// rows, counters saturating at 15, and after 10 × width additions every counter halves
/// (the "reset" that ages old popularity). Deterministic: fixed per-row hash seeds.
///
/// Complexity: increment and estimate O(1) (four counters); a reset O(width), once per
/// 10 × width increments.
struct CountMinSketch {
    private static let rows = 4
    private static let seeds: [UInt64] = [0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x27D4_EB2F_1656_67C5]
    private var counters: [UInt8]
    private(set) var width: Int
    private var additions = 0

    /// A sketch of at least `width` counters per row (rounded up to a power of two, at least 16).
    init(width: Int) {
        self.width = max(16, Self.powerOfTwo(atLeast: width))
        counters = [UInt8](repeating: 0, count: self.width * Self.rows)
    }

    private static func powerOfTwo(atLeast value: Int) -> Int {
        value <= 1 ? 1 : 1 << (Int.bitWidth - (value - 1).leadingZeroBitCount)
    }

    /// Widens the sketch to at least `count` counters per row, clearing it (as Caffeine does
    /// when the cache grows). Call before counting an object beyond the current width.
    mutating func ensureWidth(_ count: Int) {
        guard count > width, width < 1 << 28 else { return }
        self = CountMinSketch(width: count)
    }

    @inline(__always) private func index(_ key: UInt64, row: Int) -> Int {
        var hash = (key &+ Self.seeds[row]) &* 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 31
        hash = hash &* 0x94D0_49BB_1331_11EB
        hash ^= hash >> 29
        return row * width + Int(hash & UInt64(width - 1))
    }

    /// Increments between two resets (Caffeine's `sampleSize`, also its climber's sample).
    var sampleSize: Int { 10 * width }

    /// The estimated count of `key` (0...15).
    @inline(__always) func estimate(_ key: UInt64) -> Int {
        var lowest = UInt8(15)
        for row in 0..<Self.rows { lowest = min(lowest, counters[index(key, row: row)]) }
        return Int(lowest)
    }

    /// Counts one occurrence of `key`; every 10 × width additions, halves all counters.
    @inline(__always) mutating func increment(_ key: UInt64) {
        for row in 0..<Self.rows {
            let at = index(key, row: row)
            if counters[at] < 15 { counters[at] += 1 }
        }
        additions += 1
        if additions >= 10 * width {
            for at in counters.indices { counters[at] >>= 1 }
            additions /= 2
        }
    }
}
