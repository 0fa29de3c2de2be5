/// A Fenwick (binary indexed) tree of integers over positions 0..<count: point updates and
/// prefix sums, what one-pass stack-distance curves sum sizes with (Bennett & Kruskal's
/// "LRU stack processing", IBM J. R&D 1975, made logarithmic).
///
/// Complexity: add and prefixSum O(log count); build from values O(count). Memory: 8 bytes
/// per position.
final class FenwickTree {
    let count: Int
    /// 1-based: `tree[i]` sums positions (i − lowbit(i), i].
    private let tree: UnsafeMutablePointer<Int>

    /// A tree of `count` zeros.
    init(count: Int) {
        self.count = count
        tree = .allocate(capacity: count + 1)
        tree.initialize(repeating: 0, count: count + 1)
    }

    /// A tree over `values` (position i holds values[i]), built in linear time.
    convenience init(values: [Int], count: Int) {
        self.init(count: count)
        for (index, value) in values.enumerated() { tree[index + 1] = value }
        for node in stride(from: 1, through: count, by: 1) {
            let parent = node + (node & -node)
            if parent <= count { tree[parent] &+= tree[node] }
        }
    }

    deinit { tree.deallocate() }

    @inline(__always) func add(_ position: Int, _ delta: Int) {
        var node = position + 1
        while node <= count {
            tree[node] &+= delta
            node += node & -node
        }
    }

    /// The sum of positions 0...position (0 when position < 0).
    @inline(__always) func prefixSum(_ position: Int) -> Int {
        var node = position + 1
        var sum = 0
        while node > 0 {
            sum &+= tree[node]
            node &= node - 1
        }
        return sum
    }

    /// The sum of positions start...end (0 when empty).
    func sum(from start: Int, to end: Int) -> Int { end < start ? 0 : prefixSum(end) - prefixSum(start - 1) }
}
