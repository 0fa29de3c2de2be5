import WorkbenchCore
import WorkbenchTraces
/// Entries ordered by ascending cost, as swift-corelibs-foundation's NSCache evicts: the
/// cheapest first, and among equal costs the most recently inserted first (its sorted
/// insert places a new entry before older ones of the same cost). Reads do not reorder.
///
/// An indexed binary min-heap, so our `nscache --eviction lowest-cost` gets the policy
/// without corelibs' O(n) sorted-list insert (`foundation-nscache` measures that).
/// Complexity: push, pop and remove O(log n).
struct CostOrder {
    private struct Item {
        var cost: Int
        var sequence: UInt64
        var slot: Int32
    }

    private var heap: [Item] = []
    /// Heap position of each entry slot (-1 when absent).
    private var position: [Int32] = []

    var isEmpty: Bool { heap.isEmpty }

    mutating func push(slot: Int32, cost: Int, sequence: UInt64) {
        while position.count <= Int(slot) { position.append(-1) }
        heap.append(Item(cost: cost, sequence: sequence, slot: slot))
        position[Int(slot)] = Int32(heap.count - 1)
        siftUp(heap.count - 1)
    }

    /// The slot to evict next.
    var first: Int32? { heap.first?.slot }

    mutating func remove(slot: Int32) {
        guard Int(slot) < position.count, position[Int(slot)] >= 0 else { return }
        let index = Int(position[Int(slot)])
        position[Int(slot)] = -1
        let last = heap.removeLast()
        guard index < heap.count else { return }
        heap[index] = last
        position[Int(last.slot)] = Int32(index)
        siftDown(index)
        siftUp(index)
    }

    mutating func removeAll() {
        heap.removeAll()
        position.removeAll()
    }

    /// Cheaper first; equal costs: newer (higher sequence) first.
    private func before(_ a: Item, _ b: Item) -> Bool {
        a.cost != b.cost ? a.cost < b.cost : a.sequence > b.sequence
    }

    private mutating func siftUp(_ start: Int) {
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard before(heap[index], heap[parent]) else { return }
            swapAt(index, parent)
            index = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var index = start
        while true {
            let left = 2 * index + 1
            guard left < heap.count else { return }
            var smallest = left
            if left + 1 < heap.count && before(heap[left + 1], heap[left]) { smallest = left + 1 }
            guard before(heap[smallest], heap[index]) else { return }
            swapAt(index, smallest)
            index = smallest
        }
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        position[Int(heap[a].slot)] = Int32(a)
        position[Int(heap[b].slot)] = Int32(b)
    }
}
