import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// ARC (Megiddo and Modha, "ARC: A Self-Tuning, Low Overhead Replacement Cache", FAST
/// 2003), with byte sizes as libCacheSim's `ARC.c` does it: T1 (seen once) and T2 (seen
/// again) hold objects, B1 and B2 the ids T1 and T2 evicted, and the target size `p` of T1
/// (bytes, a real number) grows on a B1 hit by max(|B2|/|B1|, 1) and shrinks on a B2 hit
/// by max(|B1|/|B2|, 1). A ghost hit admits into T2; any other miss into T1.
///
/// Eviction (per object that must go): after a ghost hit, REPLACE — T1's LRU to B1 when T1
/// is non-empty and above `p` (or equal to `p` on a B2 hit), or when T2 is empty; else T2's
/// LRU to B2. After any other miss (the paper's case IV): when T1 + B1 + the incoming
/// object exceed the capacity, drop B1's oldest id and REPLACE, or with B1 empty evict
/// T1's LRU with no ghost; otherwise, when all four lists reach twice the capacity, drop
/// B2's oldest id, then REPLACE. Ghost ids are trimmed only then, as in libCacheSim.
///
/// B1 and B2 are ghost nodes in the simulator's own index (`keepsGhostNodes`), as
/// libCacheSim keeps ARC's ghosts in its one hash table: a miss learns whether its id is a
/// ghost from the look-up that found it uncached, an eviction relinks the victim's node
/// into B1 or B2, and only a ghost dropped from B1 or B2 leaves the index. (With a table of
/// their own, the two ghost look-ups a miss and an insertion a replacement were ~170 of
/// 431 instructions a request at 64 MiB.)
///
/// Complexity: hit O(1); miss O(1); evict O(1) expected (a dropped ghost's index removal).
struct ARCPolicy: VictimNamingPolicy {
    /// Which list holds the node: 1 = T1, 2 = T2 (cached), 3 = B1, 4 = B2 (ghosts).
    typealias Meta = UInt8
    static var keepsGhostNodes: Bool { true }
    private var t1 = Nodes.Queue()
    private var t2 = Nodes.Queue()
    private var b1 = Nodes.Queue()
    private var b2 = Nodes.Queue()
    private var p = 0.0
    private let capacity: Int
    /// Set by a ghost hit on this request's miss; consumed by its evictions and admission.
    private var ghostHitInB1 = false
    private var ghostHitInB2 = false

    /// libCacheSim aa0fc40's ARCv0 (ARCv0.c): B1 and B2 are LRU caches of the capacity's
    /// bytes each, so a ghost joining one drops its oldest ids while it would pass the
    /// capacity (`B1->get`, `B2->get`, lines 430 and 439), and case IV drops B2's oldest
    /// while all four lists reach twice the capacity (a `while`, lines 503–508), where ARC
    /// drops one.
    private let ghostListsCapped: Bool

    init(capacity: Int, options: PolicyOptions) {
        self.init(capacity: capacity, ghostListsCapped: false)
    }

    init(capacity: Int, ghostListsCapped: Bool) {
        self.capacity = capacity
        self.ghostListsCapped = ghostListsCapped
    }

    var newMeta: UInt8 { 1 }

    @inline(__always) func isGhost(_ slot: Int32, _ nodes: Nodes) -> Bool { nodes[slot].meta >= 3 }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta == 1 {
            nodes.unlink(slot, &t1)
            nodes[slot].meta = 2
            nodes.pushHead(slot, &t2)
        } else {
            nodes.moveToHead(slot, &t2)
        }
    }

    @inline(__always) mutating func miss(_ key: UInt64) {
        ghostHitInB1 = false
        ghostHitInB2 = false
    }

    /// The ratios use the lists' bytes with the ghost still in them.
    @inline(__always) mutating func ghostHit(_ slot: Int32, _ nodes: inout Nodes) {
        ghostHitInB1 = nodes[slot].meta == 3
        ghostHitInB2 = !ghostHitInB1
        if ghostHitInB1 {
            p = min(p + max(Double(b2.bytes) / Double(b1.bytes), 1), Double(capacity))
        } else {
            p = max(p - max(Double(b1.bytes) / Double(b2.bytes), 1), 0)
        }
        forgetGhost(slot, &nodes)
    }

    @inline(__always) mutating func forgetGhost(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta == 3 { nodes.unlink(slot, &b1) } else { nodes.unlink(slot, &b2) }
    }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        if ghostHitInB1 || ghostHitInB2 {
            nodes[slot].meta = 2
            nodes.pushHead(slot, &t2)
            ghostHitInB1 = false
            ghostHitInB2 = false
        } else {
            nodes.pushHead(slot, &t1)
        }
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        if ghostHitInB1 || ghostHitInB2 { return replace(&nodes) }
        if t1.bytes + b1.bytes + incoming > capacity {
            if b1.bytes > 0 {
                dropOldest(&b1, &nodes)
                return replace(&nodes)
            }
            let victim = t1.tail  // T1 alone fills the cache: evict without a ghost
            nodes.unlink(victim, &t1)
            nodes.evict(victim)
            return victim
        }
        if ghostListsCapped {
            while t1.bytes + b1.bytes + t2.bytes + b2.bytes >= 2 * capacity, b2.bytes > 0 { dropOldest(&b2, &nodes) }
        } else if t1.bytes + b1.bytes + t2.bytes + b2.bytes >= 2 * capacity, b2.bytes > 0 {
            dropOldest(&b2, &nodes)
        }
        return replace(&nodes)
    }

    /// `evict`'s choice, without the ghost lists' trimming, which does not change it.
    /// TinyLFU in front compares the candidate with it after the miss has adapted `p`.
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        let t1Alone = !(ghostHitInB1 || ghostHitInB2) && t1.bytes + b1.bytes + incoming > capacity && b1.bytes == 0
        return t1Alone || replacesFromT1 ? t1.tail : t2.tail
    }

    /// Whether REPLACE takes T1's LRU (else T2's).
    @inline(__always) private var replacesFromT1: Bool {
        (t1.bytes > 0 && (Double(t1.bytes) > p || (Double(t1.bytes) == p && ghostHitInB2))) || t2.bytes == 0
    }

    /// The paper's REPLACE: T1's LRU becomes B1's newest ghost, or T2's LRU B2's.
    @inline(__always) private mutating func replace(_ nodes: inout Nodes) -> Int32 {
        let victim: Int32
        if replacesFromT1 {
            victim = t1.tail
            if ghostListsCapped { while b1.bytes > 0, b1.bytes + nodes[victim].cost > capacity { dropOldest(&b1, &nodes) } }
            nodes.unlink(victim, &t1)
            nodes[victim].meta = 3
            nodes.pushHead(victim, &b1)
        } else {
            victim = t2.tail
            if ghostListsCapped { while b2.bytes > 0, b2.bytes + nodes[victim].cost > capacity { dropOldest(&b2, &nodes) } }
            nodes.unlink(victim, &t2)
            nodes[victim].meta = 4
            nodes.pushHead(victim, &b2)
        }
        nodes.retire(victim)
        return victim
    }

    /// Drops a ghost list's oldest id (`b1` or `b2`, which is not empty). Drops come in
    /// runs, so it starts loading what the next one reads: the next oldest's index bucket
    /// and the node after it.
    @inline(__always) private func dropOldest(_ ghosts: inout Nodes.Queue, _ nodes: inout Nodes) {
        let oldest = ghosts.tail
        nodes.unlink(oldest, &ghosts)
        nodes.dropGhost(oldest)
        nodes.prefetchOldest(of: ghosts)
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta == 1 { nodes.unlink(slot, &t1) } else { nodes.unlink(slot, &t2) }
    }
}
