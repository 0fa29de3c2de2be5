import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Segmented FIFO, as libCacheSim's `fifo/SFIFO.c` (`SFIFO_find`, `SFIFO_insert`,
/// `SFIFO_cool`, `SFIFO_evict`): `n-seg` FIFO segments (default 4) of capacity / n-seg bytes
/// each. It is SLRU (`SLRUPolicy`, whose segments, cooling, admission and eviction it
/// shares) except that a hit in the top segment does nothing, where SLRU moves the object
/// to that segment's head: a new object goes to the lowest segment with room (segment 0
/// when none has); a hit below the top moves it to the head of the segment above, and a
/// segment over its size cools, its oldest object moving down one segment, cascading (one
/// cooled out of segment 0 is evicted, so a hit can evict). Eviction takes the oldest
/// object of the lowest non-empty segment; objects larger than a segment are never stored.
///
/// Complexity: hit O(1) amortized (each cooling moves one object down); admit and evict
/// O(n-seg).
struct SFIFOPolicy: VictimNamingPolicy {
    /// The object's segment.
    typealias Meta = Int32
    private var segmented: SLRUPolicy
    private let top: Int32

    /// libCacheSim aa0fc40's two older segmented policies, which keep SFIFO's top segment
    /// (no reordering on a hit there): `slruv0` (SLRUv0.c: SLRU whose top-segment hit does
    /// nothing, and whose insertion evicts segment 0 until the object fits there) and
    /// `sfifov0` (fifo/SFIFOv0.c: SFIFO with `n-queue` segments, whose cascading coolings
    /// the C corrupts: counted, `SLRUPolicy.fallbacks`).
    enum RepositoryVariant { case slruv0, sfifov0 }

    init(capacity: Int, options: PolicyOptions) throws {
        try self.init(capacity: capacity, options: options, variant: nil)
    }

    init(capacity: Int, options: PolicyOptions, variant: RepositoryVariant?) throws {
        let countOption = variant == .sfifov0 ? "n-queue" : "n-seg"
        segmented = try SLRUPolicy(capacity: capacity, options: options, countOption: countOption,
                                   evictsIntoSegmentZero: variant == .slruv0, countsOverwrittenCoolings: variant == .sfifov0)
        top = Int32(try options.integer(countOption, default: 4, range: 1...16) - 1)
    }

    var fallbacks: Int { segmented.fallbacks }
    static var fallbackRule: String? {
        "a cooling that cascaded through a middle segment: libCacheSim aa0fc40's sfifov0 overwrites the object it moves there (its one req_local, fifo/SFIFOv0.c:437–449), losing it and caching another twice; the workbench moved the right object"
    }

    func deallocate() { segmented.deallocate() }

    var newMeta: Int32 { segmented.newMeta }
    var settings: String { segmented.settings }

    func admits(_ cost: Int) -> Bool { segmented.admits(cost) }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta < top { segmented.hit(slot, &nodes) }
    }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) { segmented.admit(slot, &nodes) }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 { segmented.evict(&nodes, incoming: incoming) }

    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 { segmented.nextVictim(&nodes, incoming: incoming) }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) { segmented.removing(slot, &nodes) }
}
