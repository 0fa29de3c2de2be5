import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import CPrefetch

/// A map from 64-bit key id to a 32-bit slot, for policy backends' hot paths.
///
/// Open addressing with linear probing and Fibonacci hashing (multiply by 2⁶⁴/φ, keep
/// the top bits), at most half full; deletion shifts later entries back instead of
/// leaving tombstones, so lookups never slow down with churn. Swift's `Dictionary`
/// hashes with per-process-seeded SipHash (about 20 ns a call); ids here are already
/// well mixed or small integers, which Fibonacci hashing spreads.
///
/// Complexity: lookup, insert and remove O(1) expected; growth O(n), amortized O(1).
/// Memory: 16 bytes per bucket, 2–4 buckets per entry.
struct IdIndex {
    private struct Bucket {
        var key: UInt64
        /// -1 marks an empty bucket.
        var value: Int32
    }

    private var buckets: UnsafeMutablePointer<Bucket>
    /// The memory `buckets` lives in.
    private var memory: HugePages.Allocation
    private var mask: Int
    private var shift: UInt64
    private(set) var count = 0
    /// The count at which an insert first doubles the table: half its buckets (one compare
    /// an insert, where `(count + 1) * 2 > buckets` took eleven instructions with its checks).
    private var growAt: Int

    /// Whether the table asks for huge pages (`HugePages`: curves, not timed replays).
    private let hugePages: Bool

    init(minimumCapacity: Int = 16, hugePages: Bool = false) {
        var size = 16
        while size < minimumCapacity * 2 { size <<= 1 }
        self.hugePages = hugePages
        memory = Self.emptyBuckets(size, hugePages: hugePages)
        buckets = memory.base.assumingMemoryBound(to: Bucket.self)
        mask = size - 1
        shift = UInt64(64 - size.trailingZeroBitCount)
        growAt = size / 2
    }

    private static func emptyBuckets(_ size: Int, hugePages: Bool) -> HugePages.Allocation {
        let memory = HugePages.allocate(byteCount: size * MemoryLayout<Bucket>.stride, alignment: MemoryLayout<Bucket>.alignment, hugePages: hugePages)
        memory.base.bindMemory(to: Bucket.self, capacity: size).initialize(repeating: Bucket(key: 0, value: -1), count: size)
        return memory
    }

    /// Frees the table; the owner calls it once from its deinit.
    func deallocate() { memory.deallocate() }

    /// `shift` is 64 − log₂(buckets), in 1...63: the masking shift is the same as `>>` here
    /// and skips `>>`'s test for a shift of 64 or more (four instructions a look-up).
    @inline(__always)
    private func home(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    /// Starts loading `key`'s home bucket (a look-up some requests ahead hides the miss).
    @inline(__always)
    func prefetch(_ key: UInt64) { cwb_prefetch(buckets + home(key)) }

    @inline(__always)
    func find(_ key: UInt64) -> Int32? {
        var index = home(key)
        while true {
            let bucket = buckets[index]
            if bucket.value < 0 { return nil }
            if bucket.key == key { return bucket.value }
            index = (index &+ 1) & mask
        }
    }

    /// Inserts or replaces.
    @inline(__always)
    mutating func insert(_ key: UInt64, _ value: Int32) {
        if count >= growAt { grow() }
        var index = home(key)
        while true {
            let bucket = buckets[index]
            if bucket.value < 0 {
                buckets[index] = Bucket(key: key, value: value)
                count &+= 1  // below `growAt`, half the buckets
                return
            }
            if bucket.key == key {
                buckets[index].value = value
                return
            }
            index = (index &+ 1) & mask
        }
    }

    /// Removes the key and returns its value, if present.
    @discardableResult
    @inline(__always)
    mutating func remove(_ key: UInt64) -> Int32? {
        var index = home(key)
        while true {
            let bucket = buckets[index]
            if bucket.value < 0 { return nil }
            if bucket.key == key { break }
            index = (index &+ 1) & mask
        }
        let removed = buckets[index].value
        // Backward-shift deletion: pull later entries of the probe run into the gap
        // unless their home lies cyclically within (gap, current].
        var gap = index
        var current = index
        while true {
            current = (current &+ 1) & mask
            let bucket = buckets[current]
            if bucket.value < 0 { break }
            // Its home lies within (gap, current] when it sits fewer buckets past its home
            // than past the gap (distances taken cyclically).
            let fromHome = (current &- home(bucket.key)) & mask
            if fromHome < (current &- gap) & mask { continue }
            buckets[gap] = bucket
            gap = current
        }
        buckets[gap].value = -1
        count -= 1
        return removed
    }

    private mutating func grow() {
        let oldBuckets = buckets
        let oldMemory = memory
        let oldSize = mask + 1
        let size = oldSize * 2
        memory = Self.emptyBuckets(size, hugePages: hugePages)
        buckets = memory.base.assumingMemoryBound(to: Bucket.self)
        mask = size - 1
        shift = UInt64(64 - size.trailingZeroBitCount)
        growAt = size / 2
        count = 0
        for index in 0..<oldSize where oldBuckets[index].value >= 0 {
            insert(oldBuckets[index].key, oldBuckets[index].value)
        }
        oldMemory.deallocate()
    }
}
