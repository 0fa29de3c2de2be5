import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// MQ, the Multi-Queue algorithm (Zhou, Philbin and Li, "The Multi-Queue Replacement
/// Algorithm for Second Level Buffer Caches", USENIX ATC 2001), as libCacheSim's `MQ.c`
/// (`MQ_find`, `MQ_insert`, `MQ_evict`, `MQ_adjust`): `n-queue` LRU queues (default 8); an
/// object requested f times lives in queue min(⌊log2 f⌋, n-queue − 1). Each object expires
/// `lifetime` ticks (default 10000) after its last access; a tick is a hit or an admission
/// (a miss that stores nothing does not tick). After each tick, every queue above the
/// lowest whose LRU object has expired moves that object to the head of the queue below
/// (a fresh lifetime). Eviction takes the LRU object of the lowest non-empty queue and
/// remembers its id and frequency in Qout, a FIFO of ids of `qout-size-ratio` × the
/// capacity bytes (default 4); a miss found there leaves Qout and is admitted with that
/// frequency plus one.
///
/// Complexity: hit O(n-queue) (the adjustment looks at each queue's tail); admit
/// O(n-queue); evict O(n-queue) to find the lowest non-empty queue, plus O(1) per id
/// Qout drops.
struct MQPolicy: VictimNamingPolicy {
    struct Meta {
        var frequency: Int32
        var queue: Int32
        var expiry: Int
    }

    private(set) var queues: [Nodes.Queue]
    /// Qout: evicted ids, oldest at the tail, each with its frequency.
    private var history = PolicyNodes<Int32>()
    private var historyQueue = PolicyNodes<Int32>.Queue()
    private let historyCapacity: Int
    let lifetime: Int
    let historyRatio: Double
    /// The adjustment clock: one tick per hit and per admission.
    private var ticks = 0
    /// The frequency Qout remembered for this request's miss (0: none).
    private var remembered: Int32 = 0

    init(capacity: Int, options: PolicyOptions) throws {
        queues = Array(repeating: Nodes.Queue(), count: try options.integer("n-queue", default: 8, range: 1...64))
        lifetime = try options.integer("lifetime", default: 10_000, range: 0...Int(Int32.max))
        historyRatio = try options.number("qout-size-ratio", default: 4, range: 0...64)
        // libCacheSim: (uint64_t)((double)cache_size * Qout_size_ratio).
        historyCapacity = Int(Double(capacity) * historyRatio)
    }

    func deallocate() { history.deallocate() }

    var newMeta: Meta { Meta(frequency: 1, queue: 0, expiry: 0) }
    var settings: String { "n-queue=\(queues.count);lifetime=\(lifetime);qout-size-ratio=\(historyRatio)" }

    /// min(⌊log2 f⌋, n-queue − 1), as `MQ_queue_num`.
    @inline(__always) private func queueNumber(_ frequency: Int32) -> Int {
        var queue = 0
        var f = frequency
        while f > 1 && queue < queues.count - 1 {
            f >>= 1
            queue += 1
        }
        return queue
    }

    @inline(__always) private mutating func link(_ slot: Int32, _ queue: Int, _ nodes: inout Nodes) {
        nodes[slot].meta.queue = Int32(queue)
        nodes.pushHead(slot, &queues[queue])
    }

    /// The paper's Adjust: one tick, then each expired LRU object above queue 0 moves down.
    @inline(__always) private mutating func adjust(_ nodes: inout Nodes) {
        ticks += 1
        for queue in 1..<max(queues.count, 1) {
            let tail = queues[queue].tail
            guard tail >= 0, nodes[tail].meta.expiry < ticks else { continue }
            nodes.unlink(tail, &queues[queue])
            link(tail, queue - 1, &nodes)
            nodes[tail].meta.expiry = ticks + lifetime
        }
    }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        nodes.unlink(slot, &queues[Int(nodes[slot].meta.queue)])
        if nodes[slot].meta.frequency < .max { nodes[slot].meta.frequency += 1 }
        link(slot, queueNumber(nodes[slot].meta.frequency), &nodes)
        nodes[slot].meta.expiry = ticks + lifetime
        adjust(&nodes)
    }

    @inline(__always) mutating func miss(_ key: UInt64) {
        remembered = 0
        guard let slot = history.find(key) else { return }
        remembered = history[slot].meta
        history.unlink(slot, &historyQueue)
        history.free(slot)
    }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        let frequency = remembered > 0 ? (remembered < .max ? remembered + 1 : remembered) : 1
        remembered = 0
        nodes[slot].meta.frequency = frequency
        link(slot, queueNumber(frequency), &nodes)
        nodes[slot].meta.expiry = ticks + lifetime
        adjust(&nodes)
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        let victim = nextVictim(&nodes, incoming: incoming)
        nodes.unlink(victim, &queues[Int(nodes[victim].meta.queue)])
        remember(nodes[victim].key, cost: nodes[victim].cost, frequency: nodes[victim].meta.frequency)
        return victim
    }

    /// The least recent object of the lowest non-empty queue.
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        queues[queues.firstIndex { $0.count > 0 } ?? 0].tail
    }

    /// Qout as libCacheSim's FIFO cache `get`s the id: one larger than Qout is not kept;
    /// otherwise the oldest ids go until it fits. (A cached id is never in Qout: its miss
    /// took it out.)
    private mutating func remember(_ key: UInt64, cost: Int, frequency: Int32) {
        guard cost <= historyCapacity else { return }
        while historyQueue.bytes + cost > historyCapacity {
            let oldest = historyQueue.tail
            history.unlink(oldest, &historyQueue)
            history.free(oldest)
        }
        let slot = history.add(key, cost: cost, meta: frequency)
        history.pushHead(slot, &historyQueue)
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        nodes.unlink(slot, &queues[Int(nodes[slot].meta.queue)])
    }
}
