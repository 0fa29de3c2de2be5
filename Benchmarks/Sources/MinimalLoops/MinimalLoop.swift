/// Deliberately minimal replay loops, one per policy family, as the machine's practical limit
/// for the workbench's own replay (issue 23): a packed trace (ids and sizes in two arrays), an
/// open-addressing index (linear probing, backward-shift deletion) and the policy's list or
/// bit operations on a node pool — nothing else: no `Request`, no tally beyond hits, no
/// options, no reference counting. Demand fill with byte capacity and the too-large rule, as
/// the workbench's `lru`, `fifo`, `clock` and `sieve` (libCacheSim's LRU, FIFO, Clock with one
/// bit, Sieve), so their hit counts must be equal (compared with `bench run` through `minimal-loop`,
/// docs/benchmarks.md).
///
/// Complexity: per request one index probe; on a miss, evictions O(1) each (Clock and Sieve:
/// amortized over the bits they clear) and one insert.
public enum MinimalPolicy: String, CaseIterable, Sendable {
    case lru, fifo, clock, sieve
}

/// A trace as two arrays: what a minimal loop reads.
public struct PackedTrace: Sendable {
    public var ids: [UInt64]
    public var sizes: [UInt32]

    public init(ids: [UInt64], sizes: [UInt32]) {
        precondition(ids.count == sizes.count)
        (self.ids, self.sizes) = (ids, sizes)
    }

    /// libCacheSim's oracleGeneral file: 24-byte records (uint32 time, uint64 id, uint32 size,
    /// int64 next access), little-endian; at most `limit` records.
    public init(oracleGeneral bytes: [UInt8], limit: Int = .max) {
        let count = min(limit, bytes.count / 24)
        var ids = [UInt64](repeating: 0, count: count)
        var sizes = [UInt32](repeating: 0, count: count)
        bytes.withUnsafeBytes { raw in
            for record in 0..<count {
                ids[record] = raw.loadUnaligned(fromByteOffset: record * 24 + 4, as: UInt64.self)
                sizes[record] = raw.loadUnaligned(fromByteOffset: record * 24 + 12, as: UInt32.self)
            }
        }
        self.init(ids: ids, sizes: sizes)
    }
}

/// The loops. Each call allocates its own structures and frees them before returning.
public enum MinimalLoop {
    /// Replays `trace` under `policy` at `capacity` bytes; returns the hits. Zero-size
    /// requests are skipped, as the workbench drops them.
    public static func hits(_ policy: MinimalPolicy, _ trace: PackedTrace, capacity: Int) -> Int {
        var cache = NodeCache(capacity: capacity)
        defer { cache.deallocate() }
        return trace.ids.withUnsafeBufferPointer { ids in
            trace.sizes.withUnsafeBufferPointer { sizes in
                switch policy {
                case .lru: return cache.run(ids, sizes) { cache, slot in cache.moveToHead(slot) } evict: { $0.evictTail() }
                case .fifo: return cache.run(ids, sizes) { _, _ in } evict: { $0.evictTail() }
                case .clock: return cache.run(ids, sizes) { cache, slot in cache.nodes[Int(slot)].visited = true } evict: { $0.evictClock() }
                case .sieve: return cache.run(ids, sizes) { cache, slot in cache.nodes[Int(slot)].visited = true } evict: { $0.evictSieve() }
                }
            }
        }
    }
}

/// One cached object: 24 bytes, a node pool entry.
struct Node {
    var id: UInt64
    var size: UInt32
    var prev: Int32
    var next: Int32
    var visited: Bool
}

/// The node pool, its list (head = newest) and the index. Manually allocated: no reference
/// counting in the loop.
struct NodeCache {
    let capacity: Int
    var used = 0
    var nodes: UnsafeMutablePointer<Node>
    var nodeCapacity = 1024
    var nodeCount = 0
    var free: Int32 = -1
    var head: Int32 = -1
    var tail: Int32 = -1
    /// Sieve's hand (−1: start from the tail).
    var hand: Int32 = -1
    var index = OpenIndex(capacity: 2048)

    init(capacity: Int) {
        self.capacity = capacity
        nodes = .allocate(capacity: nodeCapacity)
    }

    func deallocate() {
        nodes.deallocate()
        index.deallocate()
    }

    @inline(__always)
    mutating func run(
        _ ids: UnsafeBufferPointer<UInt64>, _ sizes: UnsafeBufferPointer<UInt32>,
        hit: (inout NodeCache, Int32) -> Void, evict: (inout NodeCache) -> Void
    ) -> Int {
        var hits = 0
        for position in 0..<ids.count {
            let id = ids[position]
            let size = Int(sizes[position])
            if size == 0 { continue }
            let slot = index.find(id)
            if slot >= 0 {
                hits &+= 1
                hit(&self, slot)
                continue
            }
            if size > capacity { continue }  // too large: never stored, evicts nothing
            while used &+ size > capacity { evict(&self) }
            insert(id, size)
        }
        return hits
    }

    @inline(__always) mutating func insert(_ id: UInt64, _ size: Int) {
        let slot: Int32
        if free >= 0 {
            slot = free
            free = nodes[Int(slot)].next
        } else {
            if nodeCount == nodeCapacity { grow() }
            slot = Int32(nodeCount)
            nodeCount &+= 1
        }
        nodes[Int(slot)] = Node(id: id, size: UInt32(size), prev: -1, next: head, visited: false)
        if head >= 0 { nodes[Int(head)].prev = slot } else { tail = slot }
        head = slot
        used &+= size
        index.insert(id, slot)
    }

    mutating func grow() {
        let larger = UnsafeMutablePointer<Node>.allocate(capacity: nodeCapacity * 2)
        larger.moveInitialize(from: nodes, count: nodeCount)
        nodes.deallocate()
        nodes = larger
        nodeCapacity *= 2
    }

    @inline(__always) mutating func unlink(_ slot: Int32) {
        let node = nodes[Int(slot)]
        if node.prev >= 0 { nodes[Int(node.prev)].next = node.next } else { head = node.next }
        if node.next >= 0 { nodes[Int(node.next)].prev = node.prev } else { tail = node.prev }
    }

    @inline(__always) mutating func moveToHead(_ slot: Int32) {
        guard slot != head else { return }
        unlink(slot)
        nodes[Int(slot)].prev = -1
        nodes[Int(slot)].next = head
        nodes[Int(head)].prev = slot
        head = slot
    }

    @inline(__always) mutating func remove(_ slot: Int32) {
        unlink(slot)
        let node = nodes[Int(slot)]
        used &-= Int(node.size)
        index.remove(node.id)
        nodes[Int(slot)].next = free
        free = slot
    }

    @inline(__always) mutating func evictTail() { remove(tail) }

    /// libCacheSim's Clock (one bit): a visited tail is cleared and moved to the head.
    @inline(__always) mutating func evictClock() {
        while nodes[Int(tail)].visited {
            let slot = tail
            nodes[Int(slot)].visited = false
            moveToHead(slot)
        }
        remove(tail)
    }

    /// Sieve: the hand walks from the tail toward the head clearing bits, wrapping to the tail;
    /// the first unvisited object goes, the hand stays at the one before it.
    @inline(__always) mutating func evictSieve() {
        var slot = hand >= 0 ? hand : tail
        while nodes[Int(slot)].visited {
            nodes[Int(slot)].visited = false
            slot = nodes[Int(slot)].prev >= 0 ? nodes[Int(slot)].prev : tail
        }
        hand = nodes[Int(slot)].prev
        remove(slot)
    }
}

/// Open addressing from 64-bit ids to 32-bit slots: linear probing over a power-of-two table
/// kept at most half full (doubling), backward-shift deletion, Fibonacci hashing. The same
/// design as the workbench's `IdIndex`, written apart on purpose: the limit the workbench is
/// measured against must not share its code (a slow path there would slow both alike).
struct OpenIndex {
    struct Entry {
        var id: UInt64
        var slot: Int32  // −1: empty
    }

    var entries: UnsafeMutablePointer<Entry>
    var mask: Int
    var shift: UInt64
    var count = 0

    init(capacity: Int) {
        var size = 16
        while size < capacity { size *= 2 }
        entries = .allocate(capacity: size)
        entries.initialize(repeating: Entry(id: 0, slot: -1), count: size)
        mask = size - 1
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    func deallocate() { entries.deallocate() }

    @inline(__always) func home(_ id: UInt64) -> Int { Int(truncatingIfNeeded: (id &* 0x9E37_79B9_7F4A_7C15) &>> shift) }

    @inline(__always) func find(_ id: UInt64) -> Int32 {
        var at = home(id)
        while true {
            let entry = entries[at]
            if entry.slot < 0 { return -1 }
            if entry.id == id { return entry.slot }
            at = (at &+ 1) & mask
        }
    }

    @inline(__always) mutating func insert(_ id: UInt64, _ slot: Int32) {
        if (count &+ 1) * 2 > mask &+ 1 { rehash() }
        var at = home(id)
        while entries[at].slot >= 0 { at = (at &+ 1) & mask }
        entries[at] = Entry(id: id, slot: slot)
        count &+= 1
    }

    @inline(__always) mutating func remove(_ id: UInt64) {
        var at = home(id)
        while entries[at].id != id || entries[at].slot < 0 { at = (at &+ 1) & mask }
        // Backward shift: later entries of the run move into the hole when their home allows.
        var hole = at
        var next = (at &+ 1) & mask
        while entries[next].slot >= 0 {
            let wanted = home(entries[next].id)
            // The entry may fill the hole iff its home is not in (hole, next] cyclically.
            if (next &- wanted) & mask >= (next &- hole) & mask {
                entries[hole] = entries[next]
                hole = next
            }
            next = (next &+ 1) & mask
        }
        entries[hole].slot = -1
        count &-= 1
    }

    mutating func rehash() {
        let old = entries
        let oldSize = mask + 1
        let size = oldSize * 2
        entries = .allocate(capacity: size)
        entries.initialize(repeating: Entry(id: 0, slot: -1), count: size)
        mask = size - 1
        shift = UInt64(64 - size.trailingZeroBitCount)
        for at in 0..<oldSize where old[at].slot >= 0 {
            var to = home(old[at].id)
            while entries[to].slot >= 0 { to = (to &+ 1) & mask }
            entries[to] = old[at]
        }
        old.deallocate()
    }
}
