import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// A ghost queue: ids of recently evicted objects (with their size), no payload, for
/// policies that learn from what they evicted (ARC's B1/B2, 2Q's A1out, S3-FIFO's ghost,
/// LIRS's non-resident ids). Bounded in bytes; the oldest ids go first.
///
/// Complexity: every operation O(1) expected (`trim` O(1) per id dropped).
struct GhostQueue {
    private var nodes = PolicyNodes<Void>()
    private var queue = PolicyNodes<Void>.Queue()
    var capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func deallocate() { nodes.deallocate() }

    var bytes: Int { queue.bytes }

    @inline(__always) func prefetch(_ key: UInt64) { nodes.prefetch(key) }

    /// Starts loading `key`'s ghost node when it is here; false when it is not.
    @inline(__always) func prefetchNode(of key: UInt64) -> Bool { nodes.prefetchNode(of: key) }

    /// Records an id as a FIFO cache of `capacity` bytes would (2Q's A1out, S3-FIFO's
    /// ghost): an id already there stays where it is; one larger than the capacity is not
    /// recorded; otherwise the oldest go until it fits.
    mutating func recordFIFO(_ key: UInt64, cost: Int) {
        guard nodes.find(key) == nil, cost <= capacity else { return }
        while queue.bytes + cost > capacity, popOldest() != nil {}
        insertAbsent(key, cost: cost)
    }

    /// Records an evicted id as the newest, dropping the oldest while over capacity.
    mutating func insert(_ key: UInt64, cost: Int) {
        remove(key)
        insertAbsent(key, cost: cost)
    }

    /// `insert` for an id the caller knows is not here (one look-up fewer).
    mutating func insertAbsent(_ key: UInt64, cost: Int) {
        let slot = nodes.add(key, cost: cost, meta: ())
        nodes.pushHead(slot, &queue)
        while queue.bytes > capacity, popOldest() != nil {}
    }

    /// Removes and returns the oldest id (ARC trims its ghosts one at a time; LIRS bounds
    /// its non-resident ids by age). Pops come in runs, so it starts loading what the next
    /// two pops read: the next oldest's index bucket and the node after it.
    @discardableResult
    mutating func popOldest() -> UInt64? {
        guard queue.tail >= 0 else { return nil }
        let oldest = queue.tail
        let key = nodes[oldest].key
        nodes.unlink(oldest, &queue)
        nodes.free(oldest)
        nodes.prefetchOldest(of: queue)
        return key
    }

    /// Forgets an id; its cost when it was there.
    mutating func take(_ key: UInt64) -> Int? {
        guard let slot = nodes.find(key) else { return nil }
        let cost = nodes[slot].cost
        nodes.unlink(slot, &queue)
        nodes.free(slot)
        return cost
    }

    /// Forgets an id; true when it was there.
    @discardableResult
    mutating func remove(_ key: UInt64) -> Bool { take(key) != nil }
}
