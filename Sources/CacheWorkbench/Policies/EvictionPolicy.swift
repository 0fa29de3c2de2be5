/// An eviction policy, simulated on key ids with a byte capacity (DESIGN.md's rules: no
/// payloads, no per-object overhead). A new policy is one file with a type conforming to
/// this protocol plus one line in `PolicyRegistry`; `PolicySimulator` does the rest (the
/// index, the slots, the demand-fill get/set, the capacity accounting), as libCacheSim's
/// `cache_get_base` does for its eviction files.
///
/// The simulator calls, for each request: `hit` when the key is cached; otherwise `miss`
/// (a ghost hit adapts the policy even when the object is then too large to store) and,
/// when the object fits the capacity at all, `evict` until it fits, then `admit`.
protocol EvictionPolicy {
    /// Whether the policy needs each request's next access (offline policies).
    static var needsFuture: Bool { get }
    /// Per-object metadata (a frequency, a visited bit, the queue the object is in).
    associatedtype Meta
    typealias Nodes = PolicyNodes<Meta>

    /// Reads the policy's options (`BackendConfig.options`) and the capacity in bytes.
    init(capacity: Int, options: PolicyOptions) throws
    /// Metadata of a newly admitted object.
    var newMeta: Meta { get }
    /// A request for a cached object. A policy that evicts here (SLRU cooling its segments)
    /// unlinks its victims and frees them with `nodes.evict`.
    mutating func hit(_ slot: Int32, _ nodes: inout Nodes)
    /// A request for an object that is not cached (before any eviction or admission).
    mutating func miss(_ key: UInt64)
    /// Places a newly added object (its slot exists, it is in no queue); may evict others
    /// with `nodes.evict` (2Q's main queue keeping to its own size).
    mutating func admit(_ slot: Int32, _ nodes: inout Nodes)
    /// Whether an object of `cost` bytes (no larger than the capacity) may be stored at all
    /// (2Q and SLRU refuse objects larger than their first queue, as libCacheSim's do).
    func admits(_ cost: Int) -> Bool
    /// Whether the object is stored after all, once room has been made for it (S3-FIFO, as
    /// libCacheSim's, evicts for an object its small queue then refuses).
    func storesAfterEviction(_ cost: Int) -> Bool
    /// Chooses a victim, unlinks it from its queue and returns its slot; the simulator
    /// frees it. Called only while at least one object is cached; `incoming` is the cost of
    /// the object about to be admitted.
    mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32
    /// Unlinks an object a `remove` asked for (the simulator frees it).
    mutating func removing(_ slot: Int32, _ nodes: inout Nodes)
    /// The effective options, `name=value;…` (empty when none).
    var settings: String { get }
    /// Releases what the policy allocated (ghost queues).
    func deallocate()
    /// Starts loading what a request for `key` a few requests from now will look up in
    /// the policy's own structures (its ghost queues).
    func prefetch(_ key: UInt64)
}

extension EvictionPolicy {
    static var needsFuture: Bool { false }
    @inline(__always) mutating func miss(_ key: UInt64) {}
    @inline(__always) func admits(_ cost: Int) -> Bool { true }
    @inline(__always) func storesAfterEviction(_ cost: Int) -> Bool { true }
    func deallocate() {}
    var settings: String { "" }
    @inline(__always) func prefetch(_ key: UInt64) {}
}

/// A policy with one queue, new objects at its head: admit and removal are the same for all
/// (FIFO, LRU, CLOCK, SIEVE), and so is eviction from the tail unless a policy says otherwise.
protocol SingleQueuePolicy: EvictionPolicy {
    var queue: Nodes.Queue { get set }
}

extension SingleQueuePolicy {
    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) { nodes.pushHead(slot, &queue) }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        let victim = queue.tail
        nodes.unlink(victim, &queue)
        // The next victim is the new tail: start loading the index bucket freeing it touches.
        if queue.tail >= 0 { nodes.prefetch(nodes[queue.tail].key) }
        return victim
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) { nodes.unlink(slot, &queue) }
}

/// A policy's options as text, parsed with one wording of errors for every policy.
struct PolicyOptions {
    var values: [String: String]
    /// Next accesses, for offline policies.
    var nextAccess: NextAccess? = nil

    func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text.trimmingSpaces), range.contains(value) else {
            throw WorkbenchError("--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(ErrorText.quote(text))")
        }
        return value
    }

    func number(_ name: String, default fallback: Double, range: ClosedRange<Double>) throws -> Double {
        guard let text = values[name] else { return fallback }
        guard let value = Double(text.trimmingSpaces), range.contains(value) else {
            throw WorkbenchError("--\(name) must be a number from \(range.lowerBound) to \(range.upperBound), not \(ErrorText.quote(text))")
        }
        return value
    }

    func fraction(_ name: String, default fallback: Double) throws -> Double {
        guard let text = values[name] else { return fallback }
        guard let value = Double(text.trimmingSpaces), value > 0, value < 1 else {
            throw WorkbenchError("--\(name) must be a fraction above 0 and below 1, not \(ErrorText.quote(text))")
        }
        return value
    }
}

/// Any `EvictionPolicy` as a backend: demand-fill replay on key ids (libCacheSim's
/// `cache_get_base`): a hit calls the policy; a miss of an object no larger than the
/// capacity evicts until it fits, then admits it. All state sits behind one pointer the
/// class owns (a stored `var` would cost an exclusivity check per call). A set of a cached
/// key replaces the object (remove, then admit).
///
/// Complexity: get O(1) + the policy's `hit`; set O(1) amortized + the policy's `evict` per
/// victim and `admit`.
final class PolicySimulator<Policy: EvictionPolicy>: CacheBackend {
    static var needsKeyNames: Bool { false }
    static var holdsPayloads: Bool { false }
    static var needsFuture: Bool { Policy.needsFuture }

    let capacity: Int
    // The policy, the nodes and the counters each behind a pointer of their own: a call
    // that borrows two of them must not make Swift copy a shared struct in and out.
    private let policy: UnsafeMutablePointer<Policy>
    private let nodes: UnsafeMutablePointer<PolicyNodes<Policy.Meta>>

    convenience init(capacity: Int, options: [String: String] = [:], nextAccess: NextAccess? = nil) throws {
        self.init(capacity: capacity, policy: try Policy(capacity: capacity, options: PolicyOptions(values: options, nextAccess: nextAccess)))
    }

    init(capacity: Int, policy made: Policy) {
        self.capacity = capacity
        policy = .allocate(capacity: 1)
        policy.initialize(to: made)
        nodes = .allocate(capacity: 1)
        nodes.initialize(to: PolicyNodes())
    }

    deinit {
        nodes.pointee.deallocate()
        policy.pointee.deallocate()
        nodes.deinitialize(count: 1)
        nodes.deallocate()
        policy.deinitialize(count: 1)
        policy.deallocate()
    }

    var settings: String { policy.pointee.settings }

    /// Whether the policy would store an object of `cost` bytes (tests).
    func admitsForTests(_ cost: Int) -> Bool { cost <= capacity && policy.pointee.admits(cost) }

    /// Bytes the cached objects take.
    var usedBytes: Int { nodes.pointee.usedBytes }

    /// The keys of one of the policy's queues, head to tail (tests and debugging; O(n)).
    func keys(_ queue: (Policy) -> PolicyNodes<Policy.Meta>.Queue) -> [UInt64] { nodes.pointee.keys(queue(policy.pointee)) }

    var facts: BackendFacts {
        BackendFacts(entries: nodes.pointee.count, accountedBytes: nodes.pointee.usedBytes, evictions: nodes.pointee.evictions)
    }

    @inline(__always)
    func prefetch(_ request: Request) {
        nodes.pointee.prefetch(request.id)
        policy.pointee.prefetch(request.id)
    }

    @inline(__always)
    func get(_ request: Request) -> Bool {
        guard let slot = nodes.pointee.find(request.id) else {
            policy.pointee.miss(request.id)
            return false
        }
        policy.pointee.hit(slot, &nodes.pointee)
        return true
    }

    @inline(__always)
    func set(_ request: Request, cost: Int, payload: Payload? = nil) {
        // A set of a cached key (not in demand-fill replay: it only sets after a miss)
        // replaces the object: the old one goes, the new one is admitted afresh.
        if nodes.pointee.find(request.id) != nil { remove(request) }
        guard cost <= capacity, policy.pointee.admits(cost) else { return }
        while nodes.pointee.usedBytes + cost > capacity, nodes.pointee.count > 0 {
            let victim = policy.pointee.evict(&nodes.pointee, incoming: cost)
            nodes.pointee.evict(victim)
        }
        guard policy.pointee.storesAfterEviction(cost) else { return }
        let slot = nodes.pointee.add(request.id, cost: cost, meta: policy.pointee.newMeta)
        policy.pointee.admit(slot, &nodes.pointee)
    }

    func remove(_ request: Request) {
        guard let slot = nodes.pointee.find(request.id) else { return }
        policy.pointee.removing(slot, &nodes.pointee)
        nodes.pointee.free(slot)
    }

    /// A policy simulator models no app and has no memory-pressure response.
    func didReceiveMemoryWarning() -> Int { 0 }

    /// The replay loop specialized for each policy: called through `any CacheBackend`, a
    /// generic class's methods would otherwise run unspecialized (every `hit` and `evict`
    /// through a witness table, half the speed). One line per policy.
    @_specialize(exported: false, where Policy == LRUPolicy)
    @_specialize(exported: false, where Policy == FIFOPolicy)
    @_specialize(exported: false, where Policy == ClockPolicy)
    @_specialize(exported: false, where Policy == SievePolicy)
    @_specialize(exported: false, where Policy == ARCPolicy)
    @_specialize(exported: false, where Policy == TwoQPolicy)
    @_specialize(exported: false, where Policy == SLRUPolicy)
    @_specialize(exported: false, where Policy == LFUPolicy)
    @_specialize(exported: false, where Policy == BeladyPolicy)
    @_specialize(exported: false, where Policy == S3FIFOPolicy)
    @_specialize(exported: false, where Policy == LFUDAPolicy)
    @_specialize(exported: false, where Policy == GDSFPolicy)
    @_specialize(exported: false, where Policy == WTinyLFUPolicy)
    @_specialize(exported: false, where Policy == LIRSPolicy)
    func replay(with replayer: Replayer) throws -> ReplayTally { try replayer.replay(self) }
}
