import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// libCacheSim's `minimalIncrementCBF` (dataStructure/minimalIncrementCBF.c), the frequency
/// estimate its W-TinyLFU compares: a counting Bloom filter sized for `entries` items at a
/// false-positive rate `error` — bpe = −ln(error)/ln²2 counters per entry, ⌈ln2 · bpe⌉ hash
/// functions (10 at error 0.001), counter i of a key at (a + i·b) mod counters, where a and b
/// are the low 32 bits of XXH64 of the id with seeds 0x12345678 and 0x12344321. An estimate
/// is the smallest of the key's counters; an add increments *all* of its counters (the
/// source's "minimal increment" test only prints), and decay halves every counter.
///
/// libCacheSim sizes it with the main cache's byte capacity as `entries` (an `int`: a
/// capacity ≥ 2 GiB wraps, as there) and allocates the counters with calloc, so a 64 MiB
/// cache asks for ~955 M counters. Above 2²² counters (16 MiB) the filter keeps only the counters it
/// touched (a dictionary; ten per key), which gives the same counts without the memory.
///
/// Complexity: estimate and add O(hashes); decay O(counters), or O(touched) when sparse.
struct CountingBloomFilter {
    let hashes: Int
    let counterCount: UInt32
    private var dense: UnsafeMutablePointer<UInt32>?
    private var sparse: [UInt32: UInt32] = [:]
    private static let denseLimit: UInt32 = 1 << 22

    init(entries: Int, error: Double) {
        // As the C source: `int entries` (wraps), doubles, `(int)` conversions.
        let entries = Int32(truncatingIfNeeded: entries)
        let bpe = -log(error) / 0.480453013918201
        hashes = Int(ceil(0.693147180559945 * bpe))
        // `(int)fmin(…, INT_MAX)`: a wrapped, negative `entries` gives a double below INT_MIN,
        // which x86's conversion turns into INT_MIN (C leaves it undefined); clamped here, never
        // trapped, it then falls below `hashes` and becomes hashes × 2, as there.
        var count = Int32(max(min(ceil(bpe * Double(entries)), Double(Int32.max)), Double(Int32.min)))
        if Int(count) < hashes { count = Int32(hashes * 2) }
        counterCount = UInt32(count)
        if counterCount <= Self.denseLimit {
            dense = UnsafeMutablePointer<UInt32>.allocate(capacity: Int(counterCount))
            dense?.initialize(repeating: 0, count: Int(counterCount))
        }
    }

    func deallocate() { dense?.deallocate() }

    @inline(__always) private func positions(_ key: UInt64) -> (a: UInt32, b: UInt32) {
        (UInt32(truncatingIfNeeded: XXHash64.hash(key, seed: 0x1234_5678)),
         UInt32(truncatingIfNeeded: XXHash64.hash(key, seed: 0x1234_4321)))
    }

    /// The key's estimated count: the smallest of its counters.
    func estimate(_ key: UInt64) -> UInt32 {
        let (a, b) = positions(key)
        var lowest = UInt32.max
        for i in 0..<UInt32(hashes) {
            let x = (a &+ i &* b) % counterCount
            let value = dense.map { $0[Int(x)] } ?? sparse[x, default: 0]
            lowest = min(lowest, value)
        }
        return lowest
    }

    /// Counts one occurrence of `key` (every one of its counters goes up by one).
    mutating func add(_ key: UInt64) {
        let (a, b) = positions(key)
        for i in 0..<UInt32(hashes) {
            let x = (a &+ i &* b) % counterCount
            if let dense { dense[Int(x)] &+= 1 } else { sparse[x, default: 0] &+= 1 }
        }
    }

    /// Halves every counter.
    mutating func decay() {
        if let dense {
            for at in 0..<Int(counterCount) { dense[at] >>= 1 }
        } else {
            sparse = sparse.compactMapValues { $0 >> 1 == 0 ? nil : $0 >> 1 }
        }
    }
}
