import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// libCacheSim's priority queue (`dataStructure/pqueue.c`, Volkan Yazıcı's libpqueue, with
/// `cmp_pri(next, curr) = next.pri < curr.pri` from `pqueue.h`: the largest priority on
/// top), reproduced step for step: a 1-based binary heap whose `bubble_up`, `maxchild`
/// (the right child only when the left is strictly smaller) and `percolate_down` move
/// entries exactly as the C code does, so that among equal priorities the same object comes
/// out on top. A policy that pops it (Size) then evicts what libCacheSim evicts.
///
/// Entries are policy slots; each slot's priority and heap position are kept here, by slot.
/// Complexity: insert, pop, remove, change priority O(log n); peek O(1).
struct LibCacheSimPQueue {
    /// `d[1...]`: the heap (index 0 unused, as in the C code).
    private var d: [Int32] = [-1]
    private var priority: [Double] = []
    private var position: [Int] = []

    var count: Int { d.count - 1 }

    func priority(of slot: Int32) -> Double { priority[Int(slot)] }

    /// `pqueue_insert`: append, then bubble up.
    mutating func insert(_ slot: Int32, priority value: Double) {
        let index = Int(slot)
        if index >= priority.count {
            let grown = max(index + 1, priority.count * 2)
            priority += [Double](repeating: 0, count: grown - priority.count)
            position += [Int](repeating: 0, count: grown - position.count)
        }
        priority[index] = value
        d.append(slot)
        bubbleUp(d.count - 1)
    }

    /// `pqueue_peek`: the top, or nil when empty.
    var top: Int32? { d.count > 1 ? d[1] : nil }

    /// `pqueue_pop`: the top; the last entry moves to the root and percolates down.
    mutating func pop() -> Int32? {
        guard d.count > 1 else { return nil }
        let head = d[1]
        let last = d.removeLast()
        if d.count > 1 {
            d[1] = last
            percolateDown(1)
        }
        return head
    }

    /// `pqueue_change_priority`: up if the new priority is larger, else down.
    mutating func change(_ slot: Int32, to value: Double) {
        let old = priority[Int(slot)]
        priority[Int(slot)] = value
        if old < value { bubbleUp(position[Int(slot)]) } else { percolateDown(position[Int(slot)]) }
    }

    /// `pqueue_remove`: the last entry takes the removed one's place, then moves up or down.
    mutating func remove(_ slot: Int32) {
        let at = position[Int(slot)]
        let last = d.removeLast()
        guard at < d.count else { return }  // it was the last entry
        d[at] = last
        if priority[Int(slot)] < priority[Int(last)] { bubbleUp(at) } else { percolateDown(at) }
    }

    private mutating func place(_ slot: Int32, _ index: Int) {
        d[index] = slot
        position[Int(slot)] = index
    }

    private mutating func bubbleUp(_ start: Int) {
        var i = start
        let moving = d[i]
        let movingPriority = priority[Int(moving)]
        var parent = i >> 1
        while i > 1 && priority[Int(d[parent])] < movingPriority {
            place(d[parent], i)
            i = parent
            parent = i >> 1
        }
        place(moving, i)
    }

    /// The larger child (the left one on a tie), or 0 for a leaf.
    private func maxChild(_ i: Int) -> Int {
        var child = i << 1
        if child >= d.count { return 0 }
        if child + 1 < d.count && priority[Int(d[child])] < priority[Int(d[child + 1])] { child += 1 }
        return child
    }

    private mutating func percolateDown(_ start: Int) {
        var i = start
        let moving = d[i]
        let movingPriority = priority[Int(moving)]
        while case let child = maxChild(i), child != 0, movingPriority < priority[Int(d[child])] {
            place(d[child], i)
            i = child
        }
        place(moving, i)
    }
}
