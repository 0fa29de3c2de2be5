import CMinimalPrefetch

/// A deliberately minimal exact LRU miss-ratio curve, as the machine's practical limit for the
/// workbench's `LRUMissRatioCurve` (issue 23 §2): Mattson's stack distances with byte sizes
/// over a packed trace, each request one index probe (`OpenIndex`), one key record, one walk up
/// an 8-ary prefix-sum tree over request positions (stored level by level, a 64-byte line a
/// block) and one search of the capacities — nothing else: every object counts at every
/// capacity (no too-large rule, so no bands: its hits equal the workbench's only where every
/// capacity holds the largest object, compared with `bench mrc` through `minimal-loop curve`,
/// docs/mrc.md), positions are the requests' own (no renumbering: the trace is preloaded), hits
/// only (no bytes, no sampling). The three dependent cache misses a request makes are started ahead, as the
/// workbench does (a curve without them is not the practical limit): its index bucket 16
/// requests ahead, its key record 8 ahead (the slot found then is reused), the tree lines at
/// its last position 4 ahead.
///
/// Complexity: per request O(log₈ d) for a reuse d positions back at the same size (the walk
/// stops where the two paths meet), O(log₈ n) for a first request or a changed size (the change
/// goes up to the top), plus O(log P) for P capacities.
public enum MinimalCurve {
    /// Hits at each of `capacities` (ascending, each at least the largest size for the hits to
    /// be LRU's), over the requests of `trace`; zero-size requests are skipped.
    public static func hits(_ trace: PackedTrace, capacities: [Int], distinctKeys: Int) -> [Int] {
        precondition(zip(capacities, capacities.dropFirst()).allSatisfy { $0 < $1 }, "capacities must ascend")
        precondition(distinctKeys < Int(Int32.max), "slots are 32-bit")
        let count = trace.ids.count
        let tree = LevelTree(count: max(1, count))
        defer { tree.deallocate() }
        var index = OpenIndex(capacity: 2 * max(1, distinctKeys))
        defer { index.deallocate() }
        let keys = UnsafeMutablePointer<KeyRecord>.allocate(capacity: max(1, distinctKeys))
        defer { keys.deallocate() }
        var keyCount = 0
        var hitDiff = [Int](repeating: 0, count: capacities.count + 1)
        let slotsAhead = UnsafeMutablePointer<Int32>.allocate(capacity: 8)
        defer { slotsAhead.deallocate() }
        slotsAhead.initialize(repeating: -1, count: 8)
        trace.ids.withUnsafeBufferPointer { ids in
            trace.sizes.withUnsafeBufferPointer { sizes in
                capacities.withUnsafeBufferPointer { capacities in
                    hitDiff.withUnsafeMutableBufferPointer { hitDiff in
                        for position in 0..<count {
                            // Read before the lane is reused for the request 8 ahead.
                            let slotAhead = slotsAhead[position & 7]
                            if position &+ 16 < count { index.prefetch(ids[position &+ 16]) }
                            if position &+ 8 < count {
                                let slot = index.find(ids[position &+ 8])
                                slotsAhead[(position &+ 8) & 7] = slot
                                if slot >= 0 { minimal_prefetch(keys + Int(slot)) }
                            }
                            if position &+ 4 < count {
                                let slot = slotsAhead[(position &+ 4) & 7]
                                if slot >= 0 { tree.prefetch(keys[Int(slot)].lastPosition) }
                            }
                            let size = Int(sizes[position])
                            if size == 0 { continue }
                            // A slot found ahead is current (slots never move); −1 may be a key
                            // first requested since, so it is looked up again.
                            var slot = slotAhead
                            if slot < 0 { slot = index.find(ids[position]) }
                            if slot < 0 {
                                precondition(keyCount < distinctKeys, "more keys than distinctKeys")
                                keys[keyCount] = KeyRecord(lastPosition: position, size: size)
                                index.insert(ids[position], Int32(truncatingIfNeeded: keyCount))
                                keyCount &+= 1
                                tree.add(position, size)
                                continue
                            }
                            let record = keys[Int(slot)]
                            keys[Int(slot)] = KeyRecord(lastPosition: position, size: size)
                            let between = tree.sumBetweenAndMove(from: record.lastPosition, removing: record.size, to: position, adding: size)
                            hitDiff[firstAtLeast(between &+ size, in: capacities)] &+= 1
                        }
                    }
                }
            }
        }
        var hits = [Int](repeating: 0, count: capacities.count)
        var running = 0
        for point in capacities.indices {
            running &+= hitDiff[point]
            hits[point] = running
        }
        return hits
    }

    /// The first index whose capacity is at least `value` (`capacities.count` when none),
    /// without branches on the comparisons (distances are unpredictable).
    @inline(__always) static func firstAtLeast(_ value: Int, in capacities: UnsafeBufferPointer<Int>) -> Int {
        var base = 0
        var length = capacities.count
        while length > 1 {
            let half = length &>> 1
            base &+= half & ((capacities[base &+ half] &- value) &>> 63)  // all ones when below
            length &-= half
        }
        return length == 0 ? 0 : base &+ ((capacities[base] &- value) &>> 63) & 1
    }
}

/// A key's last request: where, and its size then.
struct KeyRecord {
    var lastPosition: Int
    var size: Int
}

/// Integers over positions 0..<count as an implicit 8-ary tree stored level by level: level 0
/// the values, each entry above the sum of an aligned block of 8 below, each block one 64-byte
/// line. Written apart from the workbench's `PrefixSumTree`, as `OpenIndex` is.
struct LevelTree {
    let levels: UnsafeMutablePointer<UnsafeMutablePointer<Int>>
    let levelCount: Int
    let storage: UnsafeMutableRawPointer
    /// Per lane j, all ones in the lanes after it.
    let afterMasks: UnsafeMutablePointer<SIMD8<Int>>

    init(count: Int) {
        var sizes: [Int] = []
        var entries = count
        while true {
            sizes.append((entries + 7) & ~7)
            if entries == 1 { break }
            entries = (entries + 7) / 8
        }
        levelCount = sizes.count
        let total = sizes.reduce(0, +)
        storage = .allocate(byteCount: total * 8, alignment: 64)
        storage.initializeMemory(as: Int.self, repeating: 0, count: total)
        levels = .allocate(capacity: levelCount)
        var start = storage.assumingMemoryBound(to: Int.self)
        for (level, size) in sizes.enumerated() {
            levels[level] = start
            start += size
        }
        afterMasks = .allocate(capacity: 8)
        for lane in 0..<8 {
            var mask = SIMD8<Int>(repeating: 0)
            for after in (lane + 1)..<8 { mask[after] = -1 }
            (afterMasks + lane).initialize(to: mask)
        }
    }

    func deallocate() {
        storage.deallocate()
        levels.deallocate()
        afterMasks.deallocate()
    }

    @inline(__always) func prefetch(_ position: Int) {
        minimal_prefetch(levels[0] + position)
        if levelCount > 1 { minimal_prefetch(levels[1] + (position &>> 3)) }
        if levelCount > 2 { minimal_prefetch(levels[2] + (position &>> 6)) }
    }

    @inline(__always) func add(_ position: Int, _ delta: Int) {
        var index = position
        for level in 0..<levelCount {
            levels[level][index] &+= delta
            index &>>= 3
        }
    }

    /// The sum of the positions after `from` (the tree holding nothing after `to` − 1), and
    /// the object's move from `from` to `to`, in one walk up both paths: each level's lanes
    /// after `from`'s path are read before the level is written; above where the paths meet
    /// only the change in size is added.
    @inline(__always) func sumBetweenAndMove(from: Int, removing removed: Int, to: Int, adding added: Int) -> Int {
        var source = from
        var target = to
        var level = 0
        var sum = 0
        while source != target {
            let block = UnsafeRawPointer(levels[level] + (source & ~7)).load(as: SIMD8<Int>.self)
            sum &+= (block & afterMasks[source & 7]).wrappedSum()
            levels[level][source] &-= removed
            levels[level][target] &+= added
            source &>>= 3
            target &>>= 3
            level &+= 1
        }
        let change = added &- removed
        if change != 0 {
            while level < levelCount {
                levels[level][source] &+= change
                source &>>= 3
                level &+= 1
            }
        }
        return sum
    }
}

extension OpenIndex {
    /// Starts loading the bucket `id` probes first.
    @inline(__always) func prefetch(_ id: UInt64) { minimal_prefetch(entries + home(id)) }
}

