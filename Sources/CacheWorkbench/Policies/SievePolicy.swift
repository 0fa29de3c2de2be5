import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// SIEVE (Zhang et al., "SIEVE is Simpler than LRU", NSDI 2024), as libCacheSim's
/// `Sieve.c`: a FIFO queue with a visited bit per object and a hand. A hit sets the bit;
/// new objects go to the head; to evict, the hand walks from where it stopped (the tail at
/// first) towards the head, clearing visited bits, wrapping to the tail, and evicts the
/// first unvisited object; the hand stays at that object's newer neighbour. Objects never
/// move, so hits write one byte.
///
/// Complexity: hit O(1); admit O(1); evict O(1) amortized (each bit cleared was set by a hit).
struct SievePolicy: SingleQueuePolicy, VictimNamingPolicy {
    typealias Meta = Bool
    var queue = Nodes.Queue()
    /// The next object the hand looks at; -1 = start from the tail.
    private var hand: Int32 = -1

    init(capacity: Int, options: PolicyOptions) {}

    var newMeta: Bool { false }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) { nodes[slot].meta = true }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        let victim = nextVictim(&nodes, incoming: incoming)
        hand = nodes[victim].newer
        nodes.unlink(victim, &queue)
        return victim
    }

    /// The hand's walk, clearing bits; it stops on the victim (so a spared victim is where
    /// the next walk starts, unvisited unless hit since).
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        var victim = hand >= 0 ? hand : queue.tail
        while nodes[victim].meta {
            nodes[victim].meta = false
            victim = nodes[victim].newer >= 0 ? nodes[victim].newer : queue.tail
        }
        hand = victim
        return victim
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        if slot == hand { hand = nodes[slot].newer }
        nodes.unlink(slot, &queue)
    }
}
