import WorkbenchCore
/// libCacheSim's PG prefetcher (cache/prefetch/PG.c at aa0fc40, after Griffioen and
/// Appleton's probability graph): each request adds arcs from the object requested
/// `lookahead-range` requests earlier to the objects in the window, each arc's count in that
/// object's priority queue; after a request, its object's arcs whose count over its node's
/// total exceeds `prefetch-threshold` are prefetched, at each object's last requested size.
/// Reproduced as the C runs, quirks included:
/// - the window is an array read in array order, not from oldest to newest, the request
///   just recorded among them (`_PG_add_to_graph`, lines 257–331);
/// - the node's total counts every window slot looked at, the empty one that ends the loop too;
/// - a known arc's count grows before `pqueue_change_priority` reads the old one, so it always
///   percolates down from its recorded position (`LibCacheSimPQueue`'s C quirk kept: `PGHeap`);
/// - candidates pop while they pass; the first that fails is popped and not put back (it
///   stays an arc, out of the heap); the passing ones go back, and are prefetched in reverse
///   pop order (lines 341–376);
/// - arcs and nodes cost 32 bytes of metadata each; past `max-metadata-size` × block-size ×
///   the capacity, no node or arc is added (`stop_recording`);
/// - ids and sizes pass through `GINT_TO_POINTER`, so both are kept as 32-bit signed values.
/// `current_req_lbl` (line 273) is read uninitialized in the C; a zero byte there (what the
/// code means, and what most runs see) is assumed: the first `lookahead-range` requests add
/// nothing.
///
/// Complexity: O(lookahead-range × log arcs) per request; prefetching O(arcs popped × log
/// arcs); memory O(arcs), bounded by the metadata budget.
struct PGPrefetcher: Prefetcher {
    let lookahead: Int
    let blockSize: Int
    let metadataShare: Double
    let threshold: Double
    private let maxMetadata: UInt64
    private var metadata: UInt64 = 0
    private var stopped = false
    private var past: [UInt64]
    private var pointer = 0
    private var graph: [Int32: Node] = [:]
    /// Each object's last requested size (`cache_size_map`), as the C keeps it.
    private var sizes: [Int32: Int32] = [:]

    /// One object's arcs: the target ids, their counts and heap positions, by arc index.
    final class Node {
        var arcs: [Int32: Int32] = [:]
        var heap = PGHeap()
        var total: UInt64 = 0
    }

    /// libCacheSim's defaults (PG.c:49–54): lookahead-range 20, block-size 1,
    /// max-metadata-size 0.1, prefetch-threshold 0.05. `capacity` is the cache's (bytes, or
    /// objects under `--ignore-obj-size`).
    init(capacity: Int, lookahead: Int = 20, blockSize: Int = 1, metadataShare: Double = 0.1, threshold: Double = 0.05) {
        self.lookahead = lookahead
        self.blockSize = blockSize
        self.metadataShare = metadataShare
        self.threshold = threshold
        let budget = Double(UInt64(blockSize) &* UInt64(max(0, capacity))) * metadataShare
        maxMetadata = budget >= 1.8e19 ? .max : UInt64(max(0, budget))
        past = [UInt64](repeating: 0, count: lookahead)
    }

    private static func key(_ id: UInt64) -> Int32 { Int32(truncatingIfNeeded: id) }

    mutating func found(_ id: UInt64, size: Int, hit: Bool) {
        sizes[Self.key(id)] = Int32(truncatingIfNeeded: size)
        let current = past[pointer]
        let node = current != 0 ? graph[Self.key(current)] : nil
        past[pointer] = id
        pointer = (pointer + 1) % lookahead
        guard current != 0 else { return }
        let target: Node
        if let node {
            target = node
        } else {
            guard !stopped else { return }
            target = Node()
            graph[Self.key(current)] = target
            metadata &+= 32
        }
        for index in 0..<lookahead {
            target.total += 1
            let block = past[index]
            if block == 0 { break }
            if let arc = target.arcs[Self.key(block)] {
                target.heap.raiseAndPercolate(arc)
            } else {
                guard !stopped else { return }
                let arc = target.heap.add(id: block)
                target.arcs[Self.key(block)] = arc
                metadata &+= 32
            }
        }
        if maxMetadata <= metadata { stopped = true }
    }

    mutating func candidates(after id: UInt64) -> [(id: UInt64, size: Int)] {
        guard let node = graph[Self.key(id)] else { return [] }
        var passed: [Int32] = []
        while let arc = node.heap.pop() {
            guard node.heap.priority(arc) / Double(node.total) > threshold else { break }
            passed.append(arc)
        }
        // The C prepends to both lists: candidates and re-insertions in reverse pop order.
        for arc in passed.reversed() { node.heap.insert(arc) }
        return passed.reversed().map { arc in
            let target = UInt64(bitPattern: Int64(Self.key(node.heap.id(arc))))
            return (target, Int(sizes[Self.key(target)] ?? 0))
        }
    }

    var settings: String {
        "prefetch=pg;prefetch-params=lookahead-range=\(lookahead),block-size=\(blockSize),max-metadata-size=\(metadataShare),prefetch-threshold=\(threshold)"
    }
}

/// libCacheSim's `pqueue.c` for PG's arcs, with the positions and stale slots the C leaves:
/// a 1-based heap (largest count on top, `cmp_pri` = strictly less), whose array keeps what
/// a pop leaves past its end, so that a change of priority of an arc no longer in the heap
/// percolates down whatever its recorded position holds, as the C does. (`LibCacheSimPQueue`,
/// the same heap for Size and GDSF, drops a popped slot and compares old with new priority
/// in a change; PG needs both quirks, so its arcs keep this heap of their own.)
struct PGHeap {
    private var d: [Int32] = [-1]
    /// C's `size`: one past the last heap slot.
    private var size = 1
    private var ids: [UInt64] = []
    private var pri: [Double] = []
    private var pos: [Int] = []

    func id(_ arc: Int32) -> UInt64 { ids[Int(arc)] }
    func priority(_ arc: Int32) -> Double { pri[Int(arc)] }

    /// A new arc of count 1, inserted (`pqueue_insert`).
    mutating func add(id: UInt64) -> Int32 {
        let arc = Int32(ids.count)
        ids.append(id)
        pri.append(1)
        pos.append(0)
        insert(arc)
        return arc
    }

    mutating func insert(_ arc: Int32) {
        if size >= d.count { d.append(-1) }
        d[size] = arc
        size += 1
        bubbleUp(size - 1)
    }

    mutating func pop() -> Int32? {
        guard size > 1 else { return nil }
        let head = d[1]
        size -= 1
        d[1] = d[size]
        percolateDown(1)
        return head
    }

    /// `pri.pri++` then `pqueue_change_priority` with the new count as both old and new:
    /// `cmp_pri(old, new)` is false, so it percolates down from the recorded position.
    mutating func raiseAndPercolate(_ arc: Int32) {
        pri[Int(arc)] += 1
        percolateDown(pos[Int(arc)])
    }

    private mutating func bubbleUp(_ start: Int) {
        var i = start
        let moving = d[i]
        let movingPri = pri[Int(moving)]
        var parent = i >> 1
        while i > 1, pri[Int(d[parent])] < movingPri {
            d[i] = d[parent]
            pos[Int(d[i])] = i
            i = parent
            parent = i >> 1
        }
        d[i] = moving
        pos[Int(moving)] = i
    }

    private func maxChild(_ i: Int) -> Int {
        let child = i << 1
        guard child < size else { return 0 }
        return child + 1 < size && pri[Int(d[child])] < pri[Int(d[child + 1])] ? child + 1 : child
    }

    private mutating func percolateDown(_ start: Int) {
        var i = start
        let moving = d[i]
        guard moving >= 0 else { return }
        let movingPri = pri[Int(moving)]
        while case let child = maxChild(i), child != 0, movingPri < pri[Int(d[child])] {
            d[i] = d[child]
            pos[Int(d[i])] = i
            i = child
        }
        d[i] = moving
        pos[Int(moving)] = i
    }
}
