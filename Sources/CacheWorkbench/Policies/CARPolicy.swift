import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// CAR, CLOCK with Adaptive Replacement (Bansal and Modha, FAST 2004), as libCacheSim's
/// `CAR.c` (`CAR_find`, `CAR_insert`, `CAR_evict`, `_CAR_replace`; the version libCacheSim's
/// PyPI package 0.3.5 runs, 1a1a11a/libCacheSim 6cecdd8), with its departures
/// from the paper kept so that counts are equal: two CLOCKs T1 and T2 (new objects at the
/// back, the hand at the front, a hit sets the object's reference bit) and two ghost LRU
/// lists B1 and B2 of the ids they evicted; `p` is T1's target in bytes.
///
/// - A B1 hit raises p by max(1, ⌊|B2| / |B1|⌋) (integer division of bytes, |B1| still
///   counting the hit id), capped at the capacity; a B2 hit lowers it by
///   max(1, ⌊|B1| / |B2|⌋), floored at 0. A ghost hit admits into T2, any other miss into
///   T1 (a ghost hit whose object is not stored leaves the next admission to T2, as
///   libCacheSim clears its flags only on insertion).
/// - Eviction (REPLACE): while T1 ≥ max(1, p) bytes, T1's front object goes to B1 if its
///   bit is clear, else it is cleared and moved to T2's back; otherwise T2's front goes to
///   B2 if clear, else it is cleared and moved to T2's back.
/// - Ghosts: after each eviction, when T1 + B1 ≥ the capacity, B1's least recent id goes;
///   B2 is never trimmed (libCacheSim's second trimming condition cannot hold where it is
///   tested), so it grows with the trace's distinct ids.
/// - Where libCacheSim would read an empty T2 (T1 below max(1, p) with T2 empty: a NULL
///   dereference), the workbench takes T1's front instead and counts it as a fallback.
///
/// Complexity: hit O(1); miss O(1) expected (two ghost look-ups); evict O(1) amortized
/// (each move clears a bit a hit set). Memory: B2 keeps an id per object it ever evicted.
struct CARPolicy: VictimNamingPolicy {
    struct Meta {
        var referenced: Bool
        var inT2: Bool
    }

    private(set) var t1 = Nodes.Queue()
    private(set) var t2 = Nodes.Queue()
    private var b1 = GhostQueue(capacity: .max)
    private var b2 = GhostQueue(capacity: .max)
    private(set) var p = 0.0
    private let capacity: Int
    /// Whether a ghost hit awaits its admission (libCacheSim's `curr_obj_in_L1_ghost ||
    /// curr_obj_in_L2_ghost`: cleared only by an admission).
    private var ghostHit = false
    private(set) var fallbacks = 0

    static var fallbackRule: String? {
        "car: T1 below its target with T2 empty, where libCacheSim's CAR dereferences NULL: the workbench evicts T1's front"
    }

    init(capacity: Int, options: PolicyOptions) throws {
        self.capacity = capacity
        p = try options.number("p", default: 0, range: 0...Double(capacity))
    }

    func deallocate() {
        b1.deallocate()
        b2.deallocate()
    }

    @inline(__always) func prefetch(_ key: UInt64) {
        b1.prefetch(key)
        b2.prefetch(key)
    }

    var newMeta: Meta { Meta(referenced: false, inT2: false) }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) { nodes[slot].meta.referenced = true }

    @inline(__always) mutating func miss(_ key: UInt64) {
        if let cost = b1.take(key) {
            ghostHit = true
            let step = max(1, b2.bytes / (b1.bytes + cost))
            p = min(p + Double(step), Double(capacity))
        } else if let cost = b2.take(key) {
            ghostHit = true
            let step = max(1, b1.bytes / (b2.bytes + cost))
            p = max(p - Double(step), 0)
        }
    }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        if ghostHit {
            ghostHit = false
            nodes[slot].meta.inT2 = true
            nodes.pushHead(slot, &t2)
        } else {
            nodes.pushHead(slot, &t1)
        }
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        evictNamed(nextVictim(&nodes, incoming: incoming), &nodes, incoming: incoming)
    }

    /// REPLACE's search, as `_CAR_replace` sweeps the hands: referenced fronts of T1 move
    /// to T2, referenced fronts of T2 go round with their bit cleared, until a front with a
    /// clear bit is found. The moves stay done if TinyLFU in front spares it.
    mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        while true {
            if Double(t1.bytes) >= max(1, p) || t2.count == 0 {
                if Double(t1.bytes) < max(1, p) { fallbacks += 1 }
                let front = t1.tail
                if !nodes[front].meta.referenced { return front }
                nodes.unlink(front, &t1)
                nodes[front].meta = Meta(referenced: false, inT2: true)
                nodes.pushHead(front, &t2)
            } else {
                let front = t2.tail
                if !nodes[front].meta.referenced { return front }
                nodes[front].meta.referenced = false
                nodes.moveToHead(front, &t2)
            }
        }
    }

    /// Takes the named front, its id to B1 or B2, then trims B1 as `_CAR_evict` does.
    @inline(__always) mutating func evictNamed(_ victim: Int32, _ nodes: inout Nodes, incoming: Int) -> Int32 {
        if nodes[victim].meta.inT2 {
            nodes.unlink(victim, &t2)
            b2.insertAbsent(nodes[victim].key, cost: nodes[victim].cost)
        } else {
            nodes.unlink(victim, &t1)
            b1.insertAbsent(nodes[victim].key, cost: nodes[victim].cost)
        }
        if t1.bytes + b1.bytes >= capacity { b1.popOldest() }
        return victim
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta.inT2 { nodes.unlink(slot, &t2) } else { nodes.unlink(slot, &t1) }
    }
}
