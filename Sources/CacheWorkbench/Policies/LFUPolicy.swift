import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// LFU, as libCacheSim's `LFU.c`: evict an object of the lowest request count; among equal
/// counts, the one that reached that count first (each count's objects form a FIFO). A new
/// object counts 1; counts are forgotten on eviction.
///
/// Complexity: hit O(1); admit O(1); evict O(1), plus a scan up the counts when the lowest
/// one empties (amortized by the hits that raised them, as in libCacheSim).
struct LFUPolicy: VictimNamingPolicy {
    /// The object's request count.
    typealias Meta = Int32
    /// `buckets[f]`: the objects requested f times, in the order they reached f.
    private var buckets = [Nodes.Queue](repeating: Nodes.Queue(), count: 2)
    /// The lowest count with an object, or 0 = not known (found at the next eviction).
    private var lowest = 1

    init(capacity: Int, options: PolicyOptions) {}

    var newMeta: Int32 { 1 }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        let count = Int(nodes[slot].meta)
        nodes.unlink(slot, &buckets[count])
        if count + 1 == buckets.count { buckets.append(Nodes.Queue()) }
        nodes[slot].meta = Int32(count + 1)
        nodes.pushHead(slot, &buckets[count + 1])
        if count == lowest && buckets[count].count == 0 { lowest = count + 1 }
    }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        nodes.pushHead(slot, &buckets[1])
        lowest = 1
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        let victim = nextVictim(&nodes, incoming: incoming)
        nodes.unlink(victim, &buckets[lowest])
        if buckets[lowest].count == 0 { lowest = 0 }
        return victim
    }

    /// The oldest object of the lowest count (found again if it emptied).
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        if lowest == 0 || buckets[lowest].count == 0 {
            lowest = 1
            while buckets[lowest].count == 0 { lowest += 1 }
        }
        return buckets[lowest].tail
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) { nodes.unlink(slot, &buckets[Int(nodes[slot].meta)]) }
}
