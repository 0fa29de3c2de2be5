import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// 2Q (Johnson and Shasha, VLDB 1994), as libCacheSim's `TwoQ.c`: new objects enter A1in,
/// a FIFO of `ain-size-ratio` of the capacity (default 0.25); a hit there changes nothing.
/// When A1in is over its size, its oldest object leaves and its id goes to A1out, a FIFO of
/// ids of `aout-size-ratio` of the capacity (default 0.5); otherwise Am, an LRU, gives up
/// its least recent object. A miss whose id is in A1out enters Am (which then keeps to its
/// own size, capacity − A1in's, evicting its least recent). Objects larger than A1in's
/// size are never stored.
///
/// Complexity: hit O(1); miss O(1) expected; evict O(1).
struct TwoQPolicy: VictimNamingPolicy {
    /// Which queue holds the object: 1 = A1in, 2 = Am.
    typealias Meta = UInt8
    private var ain = Nodes.Queue()
    private var am = Nodes.Queue()
    private var aout: GhostQueue
    let ainRatio: Double
    let aoutRatio: Double
    /// Byte sizes as libCacheSim truncates them.
    let ainSize: Int
    let amSize: Int
    /// Set by a miss whose id was in A1out; consumed by the admission.
    private var ghostHit = false

    init(capacity: Int, options: PolicyOptions) throws {
        ainRatio = try options.fraction("ain-size-ratio", default: 0.25)
        aoutRatio = try options.fraction("aout-size-ratio", default: 0.5)
        ainSize = Int(Double(capacity) * ainRatio)
        amSize = capacity - ainSize
        aout = GhostQueue(capacity: Int(Double(capacity) * aoutRatio))
    }

    func deallocate() { aout.deallocate() }

    @inline(__always) func prefetch(_ key: UInt64) { aout.prefetch(key) }
    @inline(__always) func prefetchEntry(_ key: UInt64) { _ = aout.prefetchNode(of: key) }

    var newMeta: UInt8 { 1 }
    var settings: String { "ain-size-ratio=\(ainRatio);aout-size-ratio=\(aoutRatio)" }

    func admits(_ cost: Int) -> Bool { cost <= ainSize }
    /// libCacheSim checks this size first, then asks an admissioner.
    static var sizeRuleBeforeAdmission: Bool { true }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta == 2 { nodes.moveToHead(slot, &am) }
    }

    @inline(__always) mutating func miss(_ key: UInt64) { ghostHit = aout.remove(key) }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        guard ghostHit else {
            nodes.pushHead(slot, &ain)
            return
        }
        ghostHit = false
        // Am admits as an LRU cache of its own size would.
        while am.bytes + nodes[slot].cost > amSize, am.tail >= 0 {
            let victim = am.tail
            nodes.unlink(victim, &am)
            nodes.evict(victim)
        }
        nodes[slot].meta = 2
        nodes.pushHead(slot, &am)
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        if ain.bytes > ainSize {
            let victim = ain.tail
            nodes.unlink(victim, &ain)
            aout.recordFIFO(nodes[victim].key, cost: nodes[victim].cost)
            return victim
        }
        let victim = am.tail
        nodes.unlink(victim, &am)
        return victim
    }

    /// `evict`'s choice (TinyLFU in front gates it; Am's own trimming at admission is not
    /// a capacity eviction and is not asked about).
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        ain.bytes > ainSize ? ain.tail : am.tail
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta == 1 { nodes.unlink(slot, &ain) } else { nodes.unlink(slot, &am) }
    }
}
