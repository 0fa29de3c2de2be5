import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// CLOCK (second chance, FIFO-reinsertion; Corbató 1968), as libCacheSim's `Clock.c`: a
/// FIFO queue whose objects carry an `n-bit-counter`-bit frequency (default 1 bit), set to
/// `init-freq` (default 0) on insertion and raised by one on each hit up to its maximum.
/// To evict, the oldest object with a frequency above 0 loses one and goes back to the
/// head; the first with 0 goes.
///
/// Complexity: hit O(1); admit O(1); evict O(1) amortized (each reinsertion spends a hit).
struct ClockPolicy: SingleQueuePolicy, VictimNamingPolicy {
    typealias Meta = Int32
    var queue = Nodes.Queue()
    let bits: Int
    let initialFrequency: Int32
    let maximumFrequency: Int32

    init(capacity: Int, options: PolicyOptions) throws {
        bits = try options.integer("n-bit-counter", default: 1, range: 1...30)
        maximumFrequency = Int32((1 << bits) - 1)
        initialFrequency = Int32(try options.integer("init-freq", default: 0, range: 0...Int(maximumFrequency)))
    }

    var newMeta: Int32 { initialFrequency }
    var settings: String { "n-bit-counter=\(bits);init-freq=\(initialFrequency)" }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta < maximumFrequency { nodes[slot].meta += 1 }
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        let victim = nextVictim(&nodes, incoming: incoming)
        nodes.unlink(victim, &queue)
        return victim
    }

    /// The walk: the tail loses a frequency and goes back to the head until the tail has 0.
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        var victim = queue.tail
        while nodes[victim].meta >= 1 {
            nodes[victim].meta -= 1
            nodes.moveToHead(victim, &queue)
            victim = queue.tail
        }
        return victim
    }
}
