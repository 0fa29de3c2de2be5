import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import CPrefetch

/// Integers over positions 0..<count with point updates and prefix sums, what one-pass
/// stack-distance curves sum sizes with (Bennett & Kruskal's "LRU stack processing", IBM
/// J. R&D 1975, made logarithmic).
///
/// An implicit 8-ary tree stored level by level (a cache-conscious layout instead of a
/// Fenwick tree's): level 0 holds the values, each entry of level k + 1 sums an aligned
/// block of 8 entries of level k, and every block is one 64-byte cache line. A prefix sum
/// reads one line per level (summing, without branches, the part of the block before the path)
/// and an update writes one line per level, so both touch the same ⌈log₈ count⌉ + 1 lines.
/// The upper levels are small enough to stay cached; a Fenwick tree's nodes for one query
/// are spread over as many lines as it has bits, which is what made curves memory-bound.
///
/// A struct over manually allocated memory, so the hot paths pay no reference counting:
/// the owner calls `deallocate()` once (as with `IdIndex`); copies share the storage.
///
/// Complexity: add, prefixSum and firstPosition O(log₈ count); suffixSum and move O(log₈ d)
/// for positions d apart; build from values O(count). Memory: about
/// 8 × 8/7 bytes per position.
struct PrefixSumTree {
    let count: Int
    private let levelCount: Int
    /// Start of each level inside `storage`.
    private let levels: UnsafeMutablePointer<UnsafeMutablePointer<Int>>
    private let storage: HugePages.Allocation
    let hugePages: Bool
    /// Per lane j of a block, the lanes after it: all ones in lanes k > j.
    private let afterMasks: UnsafeMutablePointer<SIMD8<Int>>

    /// A tree of `count` zeros; `hugePages`: its storage on huge pages (`HugePages`), for a
    /// tree every request reads at random.
    init(count: Int, hugePages: Bool = false) {
        precondition(count >= 0)
        self.count = count
        // Entries per level, each padded to whole blocks of 8; the top level has one entry.
        var sizes: [Int] = []
        var entries = max(1, count)
        while true {
            sizes.append((entries + 7) & ~7)
            if entries == 1 { break }
            entries = (entries + 7) / 8
        }
        levelCount = sizes.count
        let total = sizes.reduce(0, +)
        self.hugePages = hugePages
        storage = HugePages.allocate(byteCount: total * MemoryLayout<Int>.stride, alignment: 64, hugePages: hugePages)
        storage.base.initializeMemory(as: Int.self, repeating: 0, count: total)
        levels = .allocate(capacity: sizes.count)
        afterMasks = .allocate(capacity: 8)
        for lane in 0..<8 {
            var mask = SIMD8<Int>(repeating: 0)
            for after in (lane + 1)..<8 { mask[after] = -1 }
            (afterMasks + lane).initialize(to: mask)
        }
        var start = storage.base.assumingMemoryBound(to: Int.self)
        for (level, size) in sizes.enumerated() {
            levels[level] = start
            start += size
        }
    }

    /// A tree over `values` (position i holds values[i], the rest 0), built in linear time.
    init(values: [Int], count: Int, hugePages: Bool = false) {
        self.init(count: count, hugePages: hugePages)
        refill(values)
    }

    /// Makes the tree hold `values` (position i holds values[i], the rest 0) in its own
    /// storage, in linear time: a curve renumbering its positions keeps its pages.
    func refill(_ values: [Int]) {
        values.withUnsafeBufferPointer { values in
            let leaves = levels[0]
            for index in 0..<count { leaves[index] = index < values.count ? values[index] : 0 }
        }
        var entries = max(1, count)
        for level in 1..<levelCount {
            let below = levels[level - 1]
            let here = levels[level]
            for index in 0..<(entries + 7) / 8 { here[index] = 0 }
            for index in 0..<entries { here[index / 8] &+= below[index] }
            entries = (entries + 7) / 8
        }
    }

    /// Frees the storage; the owner calls it once.
    func deallocate() {
        storage.deallocate()
        levels.deallocate()
        afterMasks.deallocate()
    }

    /// Adds `delta` at `position` (0..<count).
    @inline(__always) func add(_ position: Int, _ delta: Int) {
        var index = position
        for level in 0..<levelCount {
            levels[level][index] &+= delta
            index &>>= 3
        }
    }

    /// Starts loading the lines `add` and `prefixSum` at `position` read first (the upper
    /// levels stay cached).
    @inline(__always) func prefetch(_ position: Int) {
        cwb_prefetch(levels[0] + position)
        if levelCount > 1 { cwb_prefetch(levels[1] + (position &>> 3)) }
        if levelCount > 2 { cwb_prefetch(levels[2] + (position &>> 6)) }
    }

    /// The value at `position` (0..<count).
    @inline(__always) func leaf(_ position: Int) -> Int { levels[0][position] }

    /// The sum of positions 0...position (0 when position < 0).
    @inline(__always) func prefixSum(_ position: Int) -> Int {
        guard position >= 0 else { return 0 }
        // `end` is exclusive: the entries of this level before it are summed from the
        // block holding it and, for the whole blocks before that, from the level above.
        var end = min(position, count - 1) + 1
        var sum = 0
        for level in 0..<levelCount {
            sum &+= lanes(before: end, level: level)
            end &>>= 3
        }
        return sum
    }

    /// The sum of positions after `position` up to `end` (position ≤ end < count), for a tree
    /// holding nothing after `end` (a stack-distance tree's newest position). It reads only
    /// the levels below where the two paths meet: a short reuse distance d touches
    /// ⌈log₈ d⌉ + 1 lines instead of every level (the bounded sum below, never stopping).
    @inline(__always) func suffixSum(after position: Int, through end: Int) -> Int {
        suffixSum(after: position, through: end, stoppingAbove: .max)
    }

    /// `suffixSum(after:through:)` read from where the two paths meet down (positions after
    /// `end` hold 0, so a block's lanes after the path are all that came after it; above where
    /// the paths share their entry, nothing adds more), stopping as soon as the sum passes
    /// `limit`: then, for a tree of non-negative entries, it returns that part (more than
    /// `limit`, at most the whole). A caller asking only whether a distance passes a
    /// bound reads the upper levels, which stay cached, and not the old position's cold lines.
    @inline(__always) func suffixSum(after position: Int, through end: Int, stoppingAbove limit: Int) -> Int {
        let differing = position ^ end
        guard differing != 0 else { return 0 }
        // The paths differ at levels 0...k for 3k < the differing bits; above, they share entries.
        var level = (Int.bitWidth &- differing.leadingZeroBitCount &+ 2) / 3 &- 1
        var sum = 0
        while level >= 0 {
            sum &+= lanes(after: position &>> (3 &* level), level: level)
            if sum > limit { return sum }
            level &-= 1
        }
        return sum
    }

    /// Subtracts `removed` at `from` and adds `added` at `to` (both 0..<count): one walk up
    /// both paths, which stops where they meet when the two amounts are equal (above that
    /// the changes cancel). O(log₈ |to − from|) then, O(log₈ count) otherwise.
    @inline(__always) func move(from: Int, removing removed: Int, to: Int, adding added: Int) {
        _ = walk(from: from, removing: removed, to: to, adding: added, summing: false)
    }

    /// `suffixSum(after: from, through: to)` (the tree holding nothing after `to`), then
    /// `move(from:removing:to:adding:)`, in one walk: a stack-distance pass's request, whose
    /// object leaves its last position for the newest one, reads and writes the same lines.
    @inline(__always) func sumBetweenAndMove(from: Int, removing removed: Int, to: Int, adding added: Int) -> Int {
        walk(from: from, removing: removed, to: to, adding: added, summing: true)
    }

    /// Both of the above (`summing` is a constant where they inline it): each level's lanes
    /// after `from`'s path are read before the level is written.
    @inline(__always) private func walk(from: Int, removing removed: Int, to: Int, adding added: Int, summing: Bool) -> Int {
        var source = from
        var target = to
        var level = 0
        var sum = 0
        while source != target {
            if summing {
                sum &+= lanes(after: source, level: level)
            }
            levels[level][source] &-= removed
            levels[level][target] &+= added
            source &>>= 3
            target &>>= 3
            level &+= 1
        }
        let change = added &- removed
        guard change != 0 else { return sum }
        while level < levelCount {
            levels[level][source] &+= change
            source &>>= 3
            level &+= 1
        }
        return sum
    }

    /// The entries of `level` after `index` inside its block of 8: the block (one aligned
    /// line) and the mask of the lanes after the path, as vectors (half the instructions of
    /// seven masked scalar adds).
    @inline(__always) private func lanes(after index: Int, level: Int) -> Int {
        (block(holding: index, level: level) & afterMasks[index & 7]).wrappedSum()
    }

    /// The entries of `level` before `index` inside its block of 8 (none at a block's start).
    @inline(__always) private func lanes(before index: Int, level: Int) -> Int {
        let lane = index & 7
        guard lane > 0 else { return 0 }
        return (block(holding: index, level: level) & ~afterMasks[lane &- 1]).wrappedSum()
    }

    /// The aligned block of 8 entries of `level` holding `index`: one line.
    @inline(__always) private func block(holding index: Int, level: Int) -> SIMD8<Int> {
        UnsafeRawPointer(levels[level] + (index & ~7)).load(as: SIMD8<Int>.self)
    }

    /// The sum of all positions (the top entry).
    var total: Int { levels[levelCount - 1][0] }

    /// The first position whose prefix sum (through it) is at least `target` (0 when
    /// `target` ≤ 0, `count` when the total is below it), for a tree of non-negative entries:
    /// one walk down from the top, one line a level. O(log₈ count).
    func firstPosition(prefixSumAtLeast target: Int) -> Int {
        guard target > 0 else { return 0 }
        guard total >= target else { return count }
        var index = 0
        var before = 0  // the sum of the positions before `index`'s block at this level
        for level in stride(from: levelCount - 2, through: 0, by: -1) {
            // The children of `index`; the last one must reach `target` if the others do not.
            index &*= 8
            let entries = levels[level]
            for _ in 0..<7 {
                let next = before &+ entries[index]
                if next >= target { break }
                before = next
                index &+= 1
            }
        }
        return index
    }

    /// The sum of positions start...end (0 when empty).
    func sum(from start: Int, to end: Int) -> Int { end < start ? 0 : prefixSum(end) - prefixSum(start - 1) }
}
