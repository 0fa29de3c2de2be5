import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Caffeine's simulator sketch for TinyLFU admission, ported line by line so estimates (and
/// so admissions) equal Caffeine's: `CountMin4` with its default `PeriodicResetCountMin4`
/// (reference.conf: `sketch = count-min-4`, `reset = periodic`, `counters-multiplier = 1.0`,
/// `conservative = false`, doorkeeper off). Source (ben-manes/caffeine at ccef955):
/// simulator/src/main/java/com/github/benmanes/caffeine/cache/simulator/admission/countmin4/
/// CountMin4.java and PeriodicResetCountMin4.java.
///
/// A table of 64-bit words, each 16 four-bit counters; a key's four counters sit in four
/// words (one per seed) at counter positions `start`…`start + 3` of a group chosen by the
/// hash's low bits. Every `period` = 10 × words successful increments all counters halve,
/// and the count of additions is corrected by the odd counters truncated. Java's 32-bit
/// `int` arithmetic (`spread`, `period`) is kept with wrapping operators on `Int32`.
///
/// Complexity: increment and frequency O(1) (four words); a reset O(words), once per
/// `period` increments; `ensureCapacity` O(words) when it grows (and forgets every count,
/// as Caffeine's does).
struct CountMin4 {
    private static let seeds: [UInt64] = [0xC3A5_C85C_97CB_3127, 0xB492_B66F_BE98_F273, 0x9AE1_6A3B_2F90_404F, 0xCBF2_9CE4_8422_2325]
    private static let resetMask: UInt64 = 0x7777_7777_7777_7777
    private static let oneMask: UInt64 = 0x1111_1111_1111_1111
    private var table: [UInt64] = []
    private var tableMask = 0
    private var additions: Int32 = 0
    private var period: Int32 = 10
    /// `counters-multiplier`: counters per entry.
    private let countersMultiplier: Double

    /// Sized for a cache of `maximumSize` entries (the constructor's `ensureCapacity`).
    init(maximumSize: Int, countersMultiplier: Double = 1) {
        self.countersMultiplier = countersMultiplier
        ensureCapacity(maximumSize)
    }

    /// Words in the table (a power of two).
    var words: Int { table.count }

    /// Grows the table to `maximumSize` × the multiplier counters (a power of two, at most
    /// 2^30 words), forgetting every count; never shrinks. The period is recomputed either way.
    mutating func ensureCapacity(_ maximumSize: Int) {
        // Java's `(long) (countersMultiplier * maximumSize)`, clamped before the int cast.
        let counters = countersMultiplier * Double(max(0, maximumSize))
        let maximum = counters >= Double(Int32.max >> 1) ? Int(Int32.max >> 1) : Int(counters)
        if table.count < maximum || table.isEmpty {
            // Guava's `IntMath.ceilingPowerOfTwo`.
            let count = maximum == 0 ? 1 : 1 << (Int.bitWidth - (maximum - 1).leadingZeroBitCount)
            table = [UInt64](repeating: 0, count: count)
            tableMask = max(0, count - 1)
        }
        // Java: `10 * table.length` in int, Integer.MAX_VALUE when it wraps to ≤ 0.
        let tenTimes = Int32(10) &* Int32(truncatingIfNeeded: table.count)
        period = maximumSize == 0 ? 10 : (tenTimes <= 0 ? Int32.max : tenTimes)
    }

    /// Java's `Long.hashCode(e)` then `spread`.
    @inline(__always) private static func spread(_ key: UInt64) -> Int32 {
        var x = Int32(truncatingIfNeeded: key ^ (key >> 32))
        x = (Int32(bitPattern: UInt32(bitPattern: x) >> 16) ^ x) &* 0x45D_9F3B
        x = (Int32(bitPattern: UInt32(bitPattern: x) >> 16) ^ x) &* 0x45D_9F3B
        return Int32(bitPattern: UInt32(bitPattern: x) >> 16) ^ x
    }

    /// `indexOf`: the item widened to a long (sign-extended), mixed with the row's seed.
    @inline(__always) private func index(_ item: Int32, _ row: Int) -> Int {
        let seed = Self.seeds[row]
        var hash = (UInt64(bitPattern: Int64(item)) &+ seed) &* seed
        hash &+= hash >> 32
        return Int(Int32(truncatingIfNeeded: hash)) & tableMask
    }

    /// The estimated occurrences of `key`, 0…15.
    func frequency(_ key: UInt64) -> Int {
        let hash = Self.spread(key)
        let start = Int(hash & 3) << 2
        var frequency = 15
        for row in 0..<4 {
            let count = Int((table[index(hash, row)] >> UInt64((start + row) << 2)) & 0xF)
            frequency = min(frequency, count)
        }
        return frequency
    }

    /// `regularIncrement`: each of the key's four counters below 15 goes up by one; a
    /// successful increment counts towards the periodic reset.
    mutating func increment(_ key: UInt64) {
        let hash = Self.spread(key)
        let start = Int(hash & 3) << 2
        var added = false
        for row in 0..<4 {
            let at = index(hash, row)
            let offset = UInt64((start + row) << 2)
            let mask: UInt64 = 0xF << offset
            if table[at] & mask != mask {
                table[at] = (table[at] & ~mask) | ((((table[at] & mask) >> offset) + 1) << offset)
                added = true
            }
        }
        guard added else { return }
        additions &+= 1
        guard additions == period else { return }
        var odd = 0
        for at in table.indices {
            odd += (table[at] & Self.oneMask).nonzeroBitCount
            table[at] = (table[at] >> 1) & Self.resetMask
        }
        additions = Int32(bitPattern: UInt32(bitPattern: additions &- Int32(odd >> 2)) >> 1)
    }
}
