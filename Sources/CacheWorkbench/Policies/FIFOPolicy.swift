/// FIFO: evict the oldest insertion; a hit changes nothing. As libCacheSim's `FIFO.c`.
///
/// Complexity: hit O(1) (nothing to do), admit O(1), evict O(1).
struct FIFOPolicy: EvictionPolicy {
    typealias Meta = Void
    private var queue = Nodes.Queue()

    init(capacity: Int, options: PolicyOptions) {}

    var newMeta: Void { () }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {}

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) { nodes.pushHead(slot, &queue) }

    @inline(__always) mutating func evict(_ nodes: inout Nodes) -> Int32 {
        let victim = queue.tail
        nodes.unlink(victim, &queue)
        return victim
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) { nodes.unlink(slot, &queue) }
}
