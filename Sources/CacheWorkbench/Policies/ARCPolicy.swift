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
/// Complexity: hit O(1); miss O(1) expected (two ghost look-ups); evict O(1).
struct ARCPolicy: VictimNamingPolicy {
    /// Which data list holds the object: 1 = T1, 2 = T2.
    typealias Meta = UInt8
    private var t1 = Nodes.Queue()
    private var t2 = Nodes.Queue()
    private var b1: GhostQueue
    private var b2: GhostQueue
    private var p = 0.0
    private let capacity: Int
    /// Set by a ghost hit on this request's miss; consumed by its evictions and admission.
    private var ghostHitInB1 = false
    private var ghostHitInB2 = false

    init(capacity: Int, options: PolicyOptions) {
        self.capacity = capacity
        b1 = GhostQueue(capacity: .max)
        b2 = GhostQueue(capacity: .max)
    }

    func deallocate() {
        b1.deallocate()
        b2.deallocate()
    }

    var newMeta: UInt8 { 1 }

    @inline(__always) func prefetch(_ key: UInt64) {
        b1.prefetch(key)
        b2.prefetch(key)
    }

    @inline(__always) func prefetchEntry(_ key: UInt64) {
        if !b1.prefetchNode(of: key) { _ = b2.prefetchNode(of: key) }
    }

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
        // One look-up per list: the ratios use the lists' bytes before the id leaves.
        if let cost = b1.take(key) {
            ghostHitInB1 = true
            p = min(p + max(Double(b2.bytes) / Double(b1.bytes + cost), 1), Double(capacity))
        } else if let cost = b2.take(key) {
            ghostHitInB2 = true
            p = max(p - max(Double(b1.bytes) / Double(b2.bytes + cost), 1), 0)
        }
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
                b1.popOldest()
                return replace(&nodes)
            }
            let victim = t1.tail  // T1 alone fills the cache: evict without a ghost
            nodes.unlink(victim, &t1)
            return victim
        }
        if t1.bytes + b1.bytes + t2.bytes + b2.bytes >= 2 * capacity, b2.bytes > 0 { b2.popOldest() }
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

    /// The paper's REPLACE: T1's LRU to B1, or T2's LRU to B2.
    @inline(__always) private mutating func replace(_ nodes: inout Nodes) -> Int32 {
        let fromT1 = replacesFromT1
        let victim = fromT1 ? t1.tail : t2.tail
        if fromT1 { nodes.unlink(victim, &t1) } else { nodes.unlink(victim, &t2) }
        // A cached id is in neither ghost list (a ghost hit took it out before admission).
        if fromT1 { b1.insertAbsent(nodes[victim].key, cost: nodes[victim].cost) } else { b2.insertAbsent(nodes[victim].key, cost: nodes[victim].cost) }
        // The next victim is likely the new tail of the same list: start loading its index
        // bucket, which freeing it will touch, and its ghost list's.
        let next = fromT1 ? t1.tail : t2.tail
        if next >= 0 {
            let key = nodes[next].key
            nodes.prefetch(key)
            if fromT1 { b1.prefetch(key) } else { b2.prefetch(key) }  // where its id will go
        }
        return victim
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta == 1 { nodes.unlink(slot, &t1) } else { nodes.unlink(slot, &t2) }
    }
}
