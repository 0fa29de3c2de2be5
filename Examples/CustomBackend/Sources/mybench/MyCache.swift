import CacheWorkbench

/// A small cache of one's own: FIFO with a byte capacity (evicts the oldest insertion until
/// the new object fits). It does cache work only; the workbench's replayer owns the clock,
/// the counters and the memory sampling, and calls it from one thread at a time.
///
/// get O(1); set O(1) amortized, + O(1) per eviction; remove O(1) (its queue slot is left
/// behind and skipped when it reaches the front).
final class MyCache: CacheBackend {
    private let capacity: Int
    /// Cost of each cached object, by key id.
    private var costs: [UInt64: Int] = [:]
    /// Insertion order, oldest at `head`; a removed key's slot stays until it is reached.
    private var queue: [UInt64] = []
    private var head = 0
    private var used = 0
    private var evictions = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Hits do not change a FIFO's order.
    func get(_ request: Request) throws -> Bool {
        costs[request.id] != nil
    }

    /// The replayer calls `set` after a miss, with the object's cost under the run's cost
    /// model, and never with a cost above the capacity.
    func set(_ request: Request, cost: Int, payload: Payload?) throws {
        if let old = costs[request.id] {  // an update: the new cost replaces the old
            used -= old
            costs[request.id] = nil
        }
        while used + cost > capacity, head < queue.count {
            let oldest = queue[head]
            head += 1
            if let evicted = costs.removeValue(forKey: oldest) {
                used -= evicted
                evictions += 1
            }
        }
        if head > 1024 && head * 2 > queue.count {  // drop the consumed front now and then
            queue.removeFirst(head)
            head = 0
        }
        costs[request.id] = cost
        queue.append(request.id)
        used += cost
    }

    func remove(_ request: Request) throws {
        if let cost = costs.removeValue(forKey: request.id) { used -= cost }
    }

    /// A memory warning empties the cache, as most iOS caches do; returns the cost released.
    func didReceiveMemoryWarning() throws -> Int {
        let released = used
        costs.removeAll()
        queue.removeAll()
        head = 0
        used = 0
        return released
    }

    var facts: BackendFacts { BackendFacts(entries: costs.count, accountedBytes: used, evictions: evictions) }
    var settings: String { "" }
    /// Keys are the trace's ids; no key text needed.
    static var needsKeyNames: Bool { false }
    /// No payload memory is held: a pure policy simulator.
    static var holdsPayloads: Bool { false }
}
