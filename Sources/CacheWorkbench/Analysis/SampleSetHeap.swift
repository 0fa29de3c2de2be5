import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The keys of fixed-size SHARDS' sample set (Waldspurger et al., FAST 2015, §4.3; libCacheSim's
/// `MinValueMap` in `mrcProfiler/mrcProfiler.cpp:192`): the `limit` keys with the smallest
/// hashes seen, in a binary max-heap on the hash so the largest — the sampling threshold —
/// is at the top and goes first when a smaller one arrives.
///
/// Complexity: `insert` O(log limit); `largest` O(1). Memory: 16 bytes × `limit`.
struct SampleSetHeap {
    let limit: Int
    private(set) var entries: [(hash: UInt64, id: UInt64)] = []

    init(limit: Int) {
        self.limit = limit
        entries.reserveCapacity(min(limit, 1 << 20))
    }

    var isFull: Bool { entries.count >= limit }
    var count: Int { entries.count }
    /// The largest hash kept (the threshold once full).
    var largest: UInt64? { entries.first?.hash }

    /// Adds a key; when that makes more than `limit`, removes and returns the key with the
    /// largest hash (which may be the one just added).
    mutating func insert(hash: UInt64, id: UInt64) -> UInt64? {
        entries.append((hash, id))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[parent].hash < entries[child].hash else { break }
            entries.swapAt(parent, child)
            child = parent
        }
        guard entries.count > limit else { return nil }
        let top = entries[0].id
        entries[0] = entries[entries.count - 1]
        entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { break }
            let right = left + 1
            let larger = right < entries.count && entries[right].hash > entries[left].hash ? right : left
            guard entries[larger].hash > entries[parent].hash else { break }
            entries.swapAt(parent, larger)
            parent = larger
        }
        return top
    }
}
