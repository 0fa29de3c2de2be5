import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Segmented LRU (Karedla, Love and Wherry, IEEE Computer 1994), as libCacheSim's `SLRU.c`:
/// `n-seg` LRU segments (default 4) of capacity / n-seg bytes each. A new object goes to the
/// lowest segment with room (segment 0 when none has); a hit promotes it one segment up (in
/// the top one: to its head), and a segment over its size cools: its least recent object
/// moves down one segment, cascading; one cooled out of segment 0 is evicted — so a hit can
/// evict. Eviction takes the least recent object of the lowest non-empty segment. Objects
/// larger than a segment are never stored.
///
/// Complexity: hit O(1) amortized (each cooling moves one object down); evict O(n-seg).
struct SLRUPolicy: VictimNamingPolicy {
    /// The object's segment.
    typealias Meta = Int32
    /// The segments, lowest first, in memory the policy owns (freed by `deallocate`): in an
    /// array, each queue operation checked the array's bounds and uniqueness, a third of
    /// the replay's instructions at 64 MiB.
    private let segments: UnsafeMutableBufferPointer<Nodes.Queue>
    let segmentSize: Int
    /// The option naming the segment count (`n-seg`; `n-queue` for sfifov0, as its C names it).
    private let countOption: String
    /// libCacheSim aa0fc40's SLRUv0 (`SLRUv0_insert`, SLRUv0.c:235–241): a new object that
    /// finds no segment with room evicts segment 0's least recent objects until it fits
    /// there, where SLRU lets segment 0 overflow (the capacity as a whole was made room in).
    private let evictsIntoSegmentZero: Bool
    /// libCacheSim aa0fc40's SFIFOv0 (`SFIFOv0_cool`, fifo/SFIFOv0.c:426–450) keeps the
    /// object a cooling moves in one variable for the whole cache, which a cooling cascading
    /// through a middle segment overwrites: the C then loses the outer object and caches the
    /// inner one twice. The workbench moves the right object and counts each such cooling
    /// (`fallbacks`); never with unit sizes, where a promotion leaves room below.
    private let countsOverwrittenCoolings: Bool
    private(set) var fallbacks = 0

    init(capacity: Int, options: PolicyOptions) throws {
        try self.init(capacity: capacity, options: options, countOption: "n-seg", evictsIntoSegmentZero: false, countsOverwrittenCoolings: false)
    }

    init(capacity: Int, options: PolicyOptions, countOption: String, evictsIntoSegmentZero: Bool, countsOverwrittenCoolings: Bool) throws {
        let count = try options.integer(countOption, default: 4, range: 1...16)
        segments = .allocate(capacity: count)
        segments.initialize(repeating: Nodes.Queue())
        segmentSize = capacity / count
        self.countOption = countOption
        self.evictsIntoSegmentZero = evictsIntoSegmentZero
        self.countsOverwrittenCoolings = countsOverwrittenCoolings
    }

    func deallocate() { segments.deallocate() }

    var newMeta: Int32 { 0 }
    var settings: String { "\(countOption)=\(segments.count)" }

    func admits(_ cost: Int) -> Bool { cost <= segmentSize }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        let segment = Int(nodes[slot].meta)
        if segment == segments.count - 1 {
            nodes.moveToHead(slot, &segments[segment])
            return
        }
        nodes.unlink(slot, &segments[segment])
        nodes[slot].meta = Int32(segment + 1)
        nodes.pushHead(slot, &segments[segment + 1])
        while segments[segment + 1].bytes > segmentSize { cool(segment + 1, &nodes) }
    }

    /// Moves segment `id`'s least recent object down one segment (evicts it from segment
    /// 0), cascading while the segment below is over its size.
    private mutating func cool(_ id: Int, _ nodes: inout Nodes) {
        if id == 0 {
            let victim = evict(&nodes, incoming: 0)
            nodes.evict(victim)
            return
        }
        let moved = segments[id].tail
        nodes.unlink(moved, &segments[id])
        nodes[moved].meta = Int32(id - 1)
        nodes.pushHead(moved, &segments[id - 1])
        var cascaded = false
        while segments[id - 1].bytes > segmentSize {
            cascaded = cascaded || id - 1 >= 1
            cool(id - 1, &nodes)
        }
        if cascaded && countsOverwrittenCoolings { fallbacks += 1 }
    }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        // The lowest segment with room, 0 when none has: every segment is looked at, from
        // the top, so that the loop's exit never depends on the data (its early exit
        // was mispredicted 0.64 times a request at 64 MiB, where most segments are full).
        let cost = nodes[slot].cost
        var segment = 0
        var candidate = segments.count
        while candidate > 0 {
            candidate -= 1
            segment = segments[candidate].bytes + cost <= segmentSize ? candidate : segment
        }
        if evictsIntoSegmentZero && segment == 0 {
            while segments[0].bytes + cost > segmentSize, segments[0].bytes > 0 {
                let victim = segments[0].tail
                nodes.unlink(victim, &segments[0])
                nodes.evict(victim)
            }
        }
        nodes[slot].meta = Int32(segment)
        nodes.pushHead(slot, &segments[segment])
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        let segment = lowestOccupied
        let victim = segments[segment].tail
        nodes.unlink(victim, &segments[segment])
        return victim
    }

    /// The lowest non-empty segment (0 when all are empty).
    @inline(__always) private var lowestOccupied: Int {
        var segment = 0
        while segment < segments.count, segments[segment].bytes == 0 { segment += 1 }
        return segment == segments.count ? 0 : segment
    }

    /// The least recent object of the lowest non-empty segment (TinyLFU in front gates
    /// this, as Caffeine's `SegmentedLruPolicy` asks about probation's LRU; objects cooled
    /// out of segment 0 by a hit are not asked about).
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        segments[lowestOccupied].tail
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) { nodes.unlink(slot, &segments[Int(nodes[slot].meta)]) }
}
