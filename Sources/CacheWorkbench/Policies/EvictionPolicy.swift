/// An eviction policy, simulated on key ids with a byte capacity (DESIGN.md's rules: no
/// payloads, no per-object overhead). A new policy is one file with a type conforming to
/// this protocol plus one line in `PolicyRegistry`; `PolicySimulator` does the rest (the
/// index, the slots, the demand-fill get/set, the capacity accounting), as libCacheSim's
/// `cache_get_base` does for its eviction files.
///
/// The simulator calls, for each request: `hit` when the key is cached; otherwise, when the
/// object fits the capacity at all, `evict` until it fits, then `admit` for its new slot.
protocol EvictionPolicy {
    /// Per-object metadata (a frequency, a visited bit, the queue the object is in).
    associatedtype Meta
    typealias Nodes = PolicyNodes<Meta>

    /// Reads the policy's options (`BackendConfig.options`) and the capacity in bytes.
    init(capacity: Int, options: PolicyOptions) throws
    /// Metadata of a newly admitted object.
    var newMeta: Meta { get }
    /// A request for a cached object.
    mutating func hit(_ slot: Int32, _ nodes: inout Nodes)
    /// Places a newly added object (its slot exists, it is in no queue).
    mutating func admit(_ slot: Int32, _ nodes: inout Nodes)
    /// Chooses a victim, unlinks it from its queue and returns its slot; the simulator
    /// frees it. Called only while at least one object is cached.
    mutating func evict(_ nodes: inout Nodes) -> Int32
    /// Unlinks an object a `remove` asked for (the simulator frees it).
    mutating func removing(_ slot: Int32, _ nodes: inout Nodes)
    /// The effective options, `name=value;…` (empty when none).
    var settings: String { get }
    /// Releases what the policy allocated (ghost queues).
    func deallocate()
}

extension EvictionPolicy {
    func deallocate() {}
    var settings: String { "" }
}

/// A policy's options as text, parsed with one wording of errors for every policy.
struct PolicyOptions {
    var values: [String: String]

    func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text.trimmingSpaces), range.contains(value) else {
            throw WorkbenchError("--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(ErrorText.quote(text))")
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
/// class owns (a stored `var` would cost an exclusivity check per call).
///
/// Complexity: get O(1) + the policy's `hit`; set O(1) amortized + the policy's `evict` per
/// victim and `admit`.
final class PolicySimulator<Policy: EvictionPolicy>: CacheBackend {
    static var needsKeyNames: Bool { false }
    static var holdsPayloads: Bool { false }

    private struct State {
        var policy: Policy
        var nodes = PolicyNodes<Policy.Meta>()
        var usedBytes = 0
        var evictions = 0
    }

    let capacity: Int
    private let state: UnsafeMutablePointer<State>

    init(capacity: Int, options: [String: String] = [:]) throws {
        self.capacity = capacity
        let policy = try Policy(capacity: capacity, options: PolicyOptions(values: options))
        state = .allocate(capacity: 1)
        state.initialize(to: State(policy: policy))
    }

    deinit {
        state.pointee.nodes.deallocate()
        state.pointee.policy.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    var settings: String { state.pointee.policy.settings }

    var facts: BackendFacts {
        BackendFacts(entries: state.pointee.nodes.count, accountedBytes: state.pointee.usedBytes, evictions: state.pointee.evictions)
    }

    @inline(__always)
    func get(_ request: Request) -> Bool {
        guard let slot = state.pointee.nodes.find(request.id) else { return false }
        state.pointee.policy.hit(slot, &state.pointee.nodes)
        return true
    }

    @inline(__always)
    func set(_ request: Request, cost: Int, payload: Payload?) {
        guard cost <= capacity, state.pointee.nodes.find(request.id) == nil else { return }
        while state.pointee.usedBytes + cost > capacity, state.pointee.nodes.count > 0 {
            let victim = state.pointee.policy.evict(&state.pointee.nodes)
            state.pointee.usedBytes -= state.pointee.nodes[victim].cost
            state.pointee.nodes.free(victim)
            state.pointee.evictions += 1
        }
        let slot = state.pointee.nodes.add(request.id, cost: cost, meta: state.pointee.policy.newMeta)
        state.pointee.usedBytes += cost
        state.pointee.policy.admit(slot, &state.pointee.nodes)
    }

    func remove(_ request: Request) {
        guard let slot = state.pointee.nodes.find(request.id) else { return }
        state.pointee.policy.removing(slot, &state.pointee.nodes)
        state.pointee.usedBytes -= state.pointee.nodes[slot].cost
        state.pointee.nodes.free(slot)
    }

    /// A policy simulator models no app and has no memory-pressure response.
    func didReceiveMemoryWarning() -> Int { 0 }
}
