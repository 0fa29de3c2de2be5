import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import HeapModule

/// LRU-K (O'Neil, O'Neil and Weikum, "The LRU-K Page Replacement Algorithm for Database
/// Disk Buffering", SIGMOD 1993), as libCacheSim's `cpp/LRU_K.cpp` (`LRU_K_find`,
/// `LRU_K_insert`, `LRU_K_evict`): each cached object keeps the request numbers of its
/// last `k` accesses (default 2). Objects with fewer than k accesses have an infinite
/// backward k-distance and sit in a FIFO queue in insertion order (hits do not move them);
/// they are evicted first. The others are ranked by their k-th most recent access: the
/// oldest goes. As in libCacheSim, history is forgotten on eviction (no retained
/// information period), and k = 1 is LRU.
///
/// Complexity: hit O(log n) (a heap entry per access of a ranked object; stale entries
/// are skipped, and the heap is rebuilt when they outnumber the live ones); admit O(1);
/// evict O(1) from the FIFO, O(log n) amortized from the heap.
struct LRUKPolicy: VictimNamingPolicy {
    struct Meta {
        /// Accesses recorded (at most k), and where the next goes in the slot's ring.
        var accesses: Int32
        var next: Int32
        /// The k-th most recent access once ranked (its live heap entry), else −1.
        var kth: Int
    }

    struct Entry: Comparable {
        var kth: Int
        var slot: Int32
        // An access number belongs to one object, so k-th accesses never tie.
        static func < (a: Entry, b: Entry) -> Bool { a.kth < b.kth }
    }

    let k: Int
    /// Objects with fewer than k accesses, oldest insertion at the tail.
    private(set) var fifo = Nodes.Queue()
    private var heap = Heap<Entry>()
    /// The last k access numbers of the object in slot s at `history[s*k ..< s*k + k]`.
    private var history: [Int] = []
    /// libCacheSim's `n_req`: every request counts, hit or miss.
    private var requests = 0
    private var ranked = 0

    init(capacity: Int, options: PolicyOptions) throws {
        k = try options.integer("k", default: 2, range: 1...64)
    }

    var newMeta: Meta { Meta(accesses: 0, next: 0, kth: -1) }
    var settings: String { "k=\(k)" }

    /// Records access number `requests` for the object in `slot`; true once it has k.
    @inline(__always) private mutating func record(_ slot: Int32, _ nodes: inout Nodes) -> Bool {
        let base = Int(slot) * k
        if history.count < base + k { history.append(contentsOf: repeatElement(0, count: base + k - history.count)) }
        var meta = nodes[slot].meta
        history[base + Int(meta.next)] = requests
        meta.next = meta.next + 1 == k ? 0 : meta.next + 1
        if meta.accesses < k { meta.accesses += 1 }
        nodes[slot].meta = meta
        return Int(meta.accesses) == k
    }

    /// Ranks the object by its k-th most recent access (the oldest in its ring).
    @inline(__always) private mutating func rank(_ slot: Int32, _ nodes: inout Nodes) {
        let kth = history[Int(slot) * k + Int(nodes[slot].meta.next)]
        if nodes[slot].meta.kth < 0 { ranked += 1 }
        nodes[slot].meta.kth = kth
        heap.insert(Entry(kth: kth, slot: slot))
        if heap.count > 2 * ranked + 1024 {
            heap = Heap(heap.unordered.filter { nodes[$0.slot].meta.kth == $0.kth })
        }
    }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        requests += 1
        let wasRanked = nodes[slot].meta.kth >= 0
        guard record(slot, &nodes) else { return }
        if !wasRanked { nodes.unlink(slot, &fifo) }
        rank(slot, &nodes)
    }

    @inline(__always) mutating func miss(_ key: UInt64) { requests += 1 }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        if record(slot, &nodes) { rank(slot, &nodes) } else { nodes.pushHead(slot, &fifo) }
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        if fifo.count > 0 {
            let victim = fifo.tail
            nodes.unlink(victim, &fifo)
            return victim
        }
        while let lowest = heap.popMin() {
            guard nodes[lowest.slot].meta.kth == lowest.kth else { continue }
            nodes[lowest.slot].meta.kth = -1
            ranked -= 1
            return lowest.slot
        }
        return -1  // unreachable: every cached object is in the FIFO or has a live entry
    }

    /// The FIFO's oldest, else the live heap entry with the oldest k-th access (stale
    /// entries on top are dropped on the way, as `evict` would).
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        if fifo.count > 0 { return fifo.tail }
        while let lowest = heap.min {
            if nodes[lowest.slot].meta.kth == lowest.kth { return lowest.slot }
            heap.removeMin()
        }
        return -1  // unreachable: every cached object is in the FIFO or has a live entry
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta.kth >= 0 {
            nodes[slot].meta.kth = -1
            ranked -= 1
        } else {
            nodes.unlink(slot, &fifo)
        }
    }
}
