import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// LIRS (Jiang and Zhang, "LIRS: An Efficient Low Inter-reference Recency Set Replacement
/// Policy", SIGMETRICS 2002), after the paper, with byte sizes. Objects with a low
/// inter-reference recency (LIR) hold `1 − hirs-ratio` of the capacity; the rest (default
/// 0.01, libCacheSim's) holds resident HIR objects in the queue Q. The stack S orders recent
/// accesses of LIR objects, resident HIR objects and non-resident HIR ids, and is pruned so
/// that its bottom is always LIR.
///
/// - A LIR hit moves the object to the top of S (pruning if it was the bottom).
/// - A resident HIR hit: if the object is in S it becomes LIR (leaving Q) and bottom LIR
///   objects become HIR at Q's end until the LIR set fits; otherwise it goes to the top of
///   S and to Q's end, still HIR.
/// - A miss whose id is in S (a non-resident HIR) admits the object as LIR, demoting as
///   above; any other miss admits it as LIR while the LIR set has room (the warm-up),
///   else as a resident HIR (top of S, end of Q).
/// - Eviction takes Q's front; if it is in S it stays there as a non-resident id. With Q
///   empty, the bottom LIR object goes.
///
/// As libCacheSim does, objects larger than Q's share are not stored, and S keeps at most
/// twice the capacity in bytes, dropping its oldest non-resident ids first. This is not
/// libCacheSim's `LIRS.c` step by step (that one counts a non-resident id's hit into both
/// S and Q differently), so its numbers differ slightly; the paper is the reference.
///
/// Complexity: hit O(1) amortized (pruning removes each stack entry once); miss O(1)
/// expected (one look-up in S); evict O(1) amortized.
struct LIRSPaperPolicy: VictimNamingPolicy {
    struct Meta {
        var isLIR: Bool
        /// The object's entry in S, or -1.
        var entry: Int32
    }

    /// S: an entry per recent access; `meta` is the resident object's slot, or -1 for a
    /// non-resident HIR id.
    private var stack = PolicyNodes<Int32>()
    private var stackQueue = PolicyNodes<Int32>.Queue()
    /// Q: resident HIR objects, front = tail.
    private var hir = Nodes.Queue()
    /// Non-resident ids in S, oldest first (for bounding S).
    private var nonresident = GhostQueue(capacity: .max)
    private var lirBytes = 0
    private let lirLimit: Int
    private let hirLimit: Int
    private let stackLimit: Int
    private let hirRatio: Double
    /// The S entry of a non-resident id missed on this request (-1: none).
    private var pending: Int32 = -1

    init(capacity: Int, options: PolicyOptions) throws {
        hirRatio = try options.fraction("hirs-ratio", default: 0.01)
        hirLimit = max(1, Int(hirRatio * Double(capacity)))
        lirLimit = max(0, capacity - hirLimit)
        stackLimit = capacity > Int.max / 2 ? .max : 2 * capacity
    }

    func deallocate() {
        stack.deallocate()
        nonresident.deallocate()
    }

    var newMeta: Meta { Meta(isLIR: false, entry: -1) }
    var settings: String { "hirs-ratio=\(hirRatio)" }

    func admits(_ cost: Int) -> Bool { cost <= hirLimit && cost <= lirLimit }

    // MARK: the stack

    @inline(__always) private mutating func pushEntry(_ slot: Int32, _ nodes: inout Nodes) {
        let entry = stack.add(nodes[slot].key, cost: nodes[slot].cost, meta: slot)
        stack.pushHead(entry, &stackQueue)
        nodes[slot].meta.entry = entry
    }

    @inline(__always) private mutating func dropEntry(_ entry: Int32, _ nodes: inout Nodes) {
        let slot = stack[entry].meta
        if slot >= 0 { nodes[slot].meta.entry = -1 } else { nonresident.remove(stack[entry].key) }
        if entry == pending { pending = -1 }
        stack.unlink(entry, &stackQueue)
        stack.free(entry)
    }

    /// Removes HIR entries from S's bottom until a LIR object is there.
    private mutating func prune(_ nodes: inout Nodes) {
        while stackQueue.tail >= 0 {
            let slot = stack[stackQueue.tail].meta
            if slot >= 0 && nodes[slot].meta.isLIR { return }
            dropEntry(stackQueue.tail, &nodes)
        }
    }

    /// Keeps S within twice the capacity, oldest non-resident ids first.
    private mutating func limitStack(_ nodes: inout Nodes) {
        while stack.usedBytes > stackLimit, let key = nonresident.popOldest() {
            guard let entry = stack.find(key) else { continue }
            if entry == pending { pending = -1 }
            stack.unlink(entry, &stackQueue)
            stack.free(entry)
        }
    }

    /// The bottom LIR object becomes a resident HIR at Q's end (its entry leaves S), until
    /// the LIR set fits; `keep` (the object just made LIR) is never demoted.
    private mutating func demoteWhileOver(keeping keep: Int32, _ nodes: inout Nodes) {
        while lirBytes > lirLimit {
            prune(&nodes)
            guard stackQueue.tail >= 0 else { return }
            let slot = stack[stackQueue.tail].meta
            guard slot != keep else { return }
            dropEntry(stackQueue.tail, &nodes)
            nodes[slot].meta.isLIR = false
            lirBytes -= nodes[slot].cost
            nodes.pushHead(slot, &hir)
        }
        prune(&nodes)
    }

    @inline(__always) private mutating func makeLIR(_ slot: Int32, _ nodes: inout Nodes) {
        nodes[slot].meta.isLIR = true
        lirBytes += nodes[slot].cost
    }

    // MARK: the policy

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        let meta = nodes[slot].meta
        if meta.isLIR {
            let wasBottom = meta.entry == stackQueue.tail
            stack.moveToHead(meta.entry, &stackQueue)
            if wasBottom { prune(&nodes) }
            return
        }
        if meta.entry >= 0 {
            stack.moveToHead(meta.entry, &stackQueue)
            nodes.unlink(slot, &hir)
            makeLIR(slot, &nodes)
            demoteWhileOver(keeping: slot, &nodes)
            prune(&nodes)
        } else {
            pushEntry(slot, &nodes)
            nodes.moveToHead(slot, &hir)
            limitStack(&nodes)
        }
    }

    @inline(__always) mutating func miss(_ key: UInt64) { pending = stack.find(key) ?? -1 }

    mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        if pending >= 0 {
            let entry = pending
            pending = -1
            nonresident.remove(stack[entry].key)
            stack[entry].meta = slot
            nodes[slot].meta.entry = entry
            stack.moveToHead(entry, &stackQueue)
            makeLIR(slot, &nodes)
            demoteWhileOver(keeping: slot, &nodes)
            prune(&nodes)
        } else if lirBytes + nodes[slot].cost <= lirLimit {
            pushEntry(slot, &nodes)
            makeLIR(slot, &nodes)
        } else {
            pushEntry(slot, &nodes)
            nodes.pushHead(slot, &hir)
        }
        limitStack(&nodes)
    }

    /// The resident HIR queue's oldest, else (only LIR objects cached) the stack's bottom
    /// after pruning, which `evict` then finds done.
    mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        if hir.count > 0 { return hir.tail }
        prune(&nodes)
        return stack[stackQueue.tail].meta
    }

    mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        if hir.count > 0 {
            let victim = hir.tail
            nodes.unlink(victim, &hir)
            let entry = nodes[victim].meta.entry
            if entry >= 0 {  // stays in S as a non-resident id
                stack[entry].meta = -1
                nonresident.insert(nodes[victim].key, cost: nodes[victim].cost)
            }
            return victim
        }
        // Only LIR objects are cached (all of them in S): the bottom one goes.
        prune(&nodes)
        let victim = stack[stackQueue.tail].meta
        dropEntry(stackQueue.tail, &nodes)
        lirBytes -= nodes[victim].cost
        prune(&nodes)
        return victim
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        let meta = nodes[slot].meta
        if meta.entry >= 0 { dropEntry(meta.entry, &nodes) }
        if meta.isLIR {
            lirBytes -= nodes[slot].cost
            prune(&nodes)
        } else {
            nodes.unlink(slot, &hir)
        }
    }
}
