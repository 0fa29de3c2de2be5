import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import CPrefetch

/// The objects of a policy simulator: an `IdIndex` from key id to a slot in one node
/// array, and intrusive doubly linked queues threaded through the slots by index (no
/// pointers, no reference counting, one allocation). A policy keeps as many `Queue`s as it
/// needs (FIFO and CLOCK one; 2Q, ARC and S3-FIFO several) and its own per-object `Meta`
/// (a frequency, a visited bit, which queue holds the object).
///
/// Complexity: find, add, free O(1) expected (amortized for growth); every queue operation
/// O(1). Memory: one node (key, cost, two links, `Meta`) plus 2–4 16-byte index buckets
/// per object (and per ghost, for a policy that `keepsGhostNodes`), and at least 32 KB of
/// buckets (64 KB with ghosts).
struct PolicyNodes<Meta> {
    struct Node {
        var key: UInt64
        var cost: Int
        /// Towards the head (newer) and the tail (older) of the queue holding the node; for
        /// a free slot `older` is the next free slot.
        var newer: Int32
        var older: Int32
        var meta: Meta
    }

    /// A queue through the nodes: head = newest, tail = oldest.
    struct Queue {
        var head: Int32 = -1
        var tail: Int32 = -1
        var count = 0
        var bytes = 0
    }

    /// At least 2,048 buckets (32 KB): a cache of a few hundred objects (64 MiB of images)
    /// probes a table about a seventh full, not up to half, and its shorter probe runs (and
    /// fewer mispredicted branches on their lengths) took LRU at 64 MiB from 26 to 37 M
    /// requests/s. Larger caches grow it at half full, as before. (4,096 buckets for a
    /// policy that keeps its ghosts here: ARC at 64 MiB went from 26 to 33.)
    private(set) var index: IdIndex
    /// Bytes the cached objects take, and objects evicted so far (`evict` counts; `free`
    /// does not): kept here so that a policy may evict from any call (SLRU evicts on a hit,
    /// 2Q's main queue while admitting).
    private(set) var usedBytes = 0
    private(set) var evictions = 0
    /// Indexed ids that are ghosts, not cached objects (`retire`; 0 unless the policy
    /// `keepsGhostNodes`).
    private(set) var ghosts = 0
    private var nodes: UnsafeMutablePointer<Node>
    private var allocated = 16
    private var used = 0
    private var freeHead: Int32 = -1

    /// `minimumCapacity`: the ids the index holds before it first grows (1,024: 2,048
    /// buckets).
    init(minimumCapacity: Int = 1024) {
        index = IdIndex(minimumCapacity: minimumCapacity)
        nodes = .allocate(capacity: allocated)
    }

    /// Frees the storage; the owner calls it once.
    func deallocate() {
        index.deallocate()
        nodes.deallocate()
    }

    /// Cached objects (ghosts are indexed but not counted).
    var count: Int { index.count &- ghosts }  // ghosts ≤ index.count

    @inline(__always) func find(_ key: UInt64) -> Int32? { index.find(key) }

    /// Starts loading `key`'s index bucket (a look-up a few requests ahead).
    @inline(__always) func prefetch(_ key: UInt64) { index.prefetch(key) }

    /// Starts loading the node in `slot` (nothing when it is −1).
    @inline(__always) func prefetchNode(_ slot: Int32) {
        if slot >= 0 { cwb_prefetch(nodes + Int(slot)) }
    }

    /// Starts loading `key`'s node when it is here (a look-up a couple of requests ahead,
    /// after `prefetch`); false when it is not.
    @inline(__always) func prefetchNode(of key: UInt64) -> Bool {
        guard let slot = index.find(key) else { return false }
        cwb_prefetch(nodes + Int(slot))
        return true
    }

    /// Starts loading what taking `queue`'s oldest node out of the index reads: its bucket
    /// and the node after it (ghost drops come in runs; nothing when the queue is empty).
    @inline(__always) func prefetchOldest(of queue: Queue) {
        guard queue.tail >= 0 else { return }
        let oldest = nodes[Int(queue.tail)]
        prefetch(oldest.key)
        prefetchNode(oldest.newer)
    }

    @inline(__always) subscript(_ slot: Int32) -> Node {
        get { nodes[Int(slot)] }
        nonmutating _modify { yield &nodes[Int(slot)] }
    }

    /// A new object in a fresh slot, indexed but in no queue yet.
    @inline(__always)
    mutating func add(_ key: UInt64, cost: Int, meta: Meta) -> Int32 {
        let slot: Int32
        if freeHead >= 0 {
            slot = freeHead
            freeHead = nodes[Int(slot)].older
            nodes[Int(slot)] = Node(key: key, cost: cost, newer: -1, older: -1, meta: meta)
        } else {
            if used == allocated {
                let grown = UnsafeMutablePointer<Node>.allocate(capacity: allocated * 2)
                grown.moveInitialize(from: nodes, count: used)
                nodes.deallocate()
                nodes = grown
                allocated *= 2
            }
            slot = Int32(used)
            (nodes + used).initialize(to: Node(key: key, cost: cost, newer: -1, older: -1, meta: meta))
            used += 1
        }
        index.insert(key, slot)
        usedBytes += cost
        return slot
    }

    /// Drops an object (already unlinked from its queue) and recycles its slot.
    @inline(__always)
    mutating func free(_ slot: Int32) {
        usedBytes -= nodes[Int(slot)].cost
        unindex(slot)
    }

    /// Takes the slot's id out of the index and recycles the slot.
    @inline(__always)
    private mutating func unindex(_ slot: Int32) {
        index.remove(nodes[Int(slot)].key)
        nodes[Int(slot)].older = freeHead
        freeHead = slot
    }

    /// `free` for an object the policy evicted (counted in `evictions`).
    @inline(__always)
    mutating func evict(_ slot: Int32) {
        free(slot)
        evictions += 1
    }

    /// Evicts an object (already unlinked from its queue) but keeps its id, cost and slot
    /// indexed as a ghost, which the policy links into a ghost queue (`keepsGhostNodes`).
    @inline(__always)
    mutating func retire(_ slot: Int32) {
        usedBytes -= nodes[Int(slot)].cost
        evictions += 1
        ghosts &+= 1  // at most the indexed ids
    }

    /// Forgets a ghost (already unlinked from its queue) and recycles its slot.
    @inline(__always)
    mutating func dropGhost(_ slot: Int32) {
        unindex(slot)
        ghosts &-= 1  // it was counted by `retire`
    }

    // MARK: queues

    @inline(__always)
    func pushHead(_ slot: Int32, _ queue: inout Queue) {
        nodes[Int(slot)].newer = -1
        nodes[Int(slot)].older = queue.head
        if queue.head >= 0 { nodes[Int(queue.head)].newer = slot }
        queue.head = slot
        if queue.tail < 0 { queue.tail = slot }
        queue.count += 1
        queue.bytes += nodes[Int(slot)].cost
    }

    @inline(__always)
    func unlink(_ slot: Int32, _ queue: inout Queue) {
        let node = nodes[Int(slot)]
        if node.newer >= 0 { nodes[Int(node.newer)].older = node.older } else { queue.head = node.older }
        if node.older >= 0 { nodes[Int(node.older)].newer = node.newer } else { queue.tail = node.newer }
        queue.count -= 1
        queue.bytes -= node.cost
    }

    @inline(__always)
    func moveToHead(_ slot: Int32, _ queue: inout Queue) {
        guard slot != queue.head else { return }
        unlink(slot, &queue)
        pushHead(slot, &queue)
    }

    /// Keys from head to tail (tests and debugging; O(n)).
    func keys(_ queue: Queue) -> [UInt64] {
        var keys: [UInt64] = []
        var slot = queue.head
        while slot >= 0 {
            keys.append(nodes[Int(slot)].key)
            slot = nodes[Int(slot)].older
        }
        return keys
    }
}
