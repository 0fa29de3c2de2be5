import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
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
    /// frees it (unless the policy `keepsGhostNodes`: it finishes the eviction itself).
    /// Called only while at least one object is cached; `incoming` is the cost of the
    /// object about to be admitted.
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
    /// The second stage, for a key the simulator does not hold: start loading its record
    /// in the policy's structures (its ghost node).
    func prefetchEntry(_ key: UInt64)
    /// Decisions taken where the policy's reference implementation would fail, and the
    /// rule used then (reported under the table; 0 and nil for most policies).
    var fallbacks: Int { get }
    static var fallbackRule: String? { get }
    /// Whether the policy's own size rule (`admits`) comes before an admissioner's question
    /// (`AdmissionGate`), as libCacheSim's `can_insert` of 2Q, S3-FIFO, S3-FIFOd, QDLP and
    /// S3-LRU checks the small queue's size first; false for the others (the admissioner first).
    static var sizeRuleBeforeAdmission: Bool { get }

    // MARK: ghosts in the simulator's index

    /// Whether the ids the policy evicts stay in the simulator's own index as ghost nodes
    /// (ARC's B1 and B2), as libCacheSim keeps them in its one hash table: a miss finds its
    /// ghost in the look-up that found it uncached, and an eviction moves a node from one
    /// queue to another instead of inserting its id into a second table. Such a policy's
    /// `evict` finishes each eviction itself (`nodes.retire` to keep a ghost, `nodes.evict`
    /// to keep none) and drops ghosts with `nodes.dropGhost`. False by default; the
    /// simulator's checks for it then compile away.
    static var keepsGhostNodes: Bool { get }
    /// Whether the node in `slot` is a ghost (only asked when `keepsGhostNodes`).
    func isGhost(_ slot: Int32, _ nodes: Nodes) -> Bool
    /// A request for a ghost, called instead of `miss`: the policy learns from it and
    /// unlinks it; the simulator then drops it.
    mutating func ghostHit(_ slot: Int32, _ nodes: inout Nodes)
    /// Unlinks a ghost without learning from it (a `remove` or a `set` of its id); the
    /// simulator then drops it.
    mutating func forgetGhost(_ slot: Int32, _ nodes: inout Nodes)
}

extension EvictionPolicy {
    static var needsFuture: Bool { false }
    @inline(__always) mutating func miss(_ key: UInt64) {}
    @inline(__always) func admits(_ cost: Int) -> Bool { true }
    @inline(__always) func storesAfterEviction(_ cost: Int) -> Bool { true }
    func deallocate() {}
    var settings: String { "" }
    @inline(__always) func prefetch(_ key: UInt64) {}
    @inline(__always) func prefetchEntry(_ key: UInt64) {}
    var fallbacks: Int { 0 }
    static var fallbackRule: String? { nil }
    static var sizeRuleBeforeAdmission: Bool { false }
    static var keepsGhostNodes: Bool { false }
    @inline(__always) func isGhost(_ slot: Int32, _ nodes: Nodes) -> Bool { false }
    @inline(__always) mutating func ghostHit(_ slot: Int32, _ nodes: inout Nodes) {}
    @inline(__always) mutating func forgetGhost(_ slot: Int32, _ nodes: inout Nodes) {}
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

/// A policy that can name the object its next `evict` takes before taking it: TinyLFU
/// admission (`AdmissionGate`) compares the candidate with it first, as Caffeine's
/// simulator asks its admittor about the victim its `findVictim` chose
/// (`policy/linked/LinkedPolicy.java`).
protocol VictimNamingPolicy: EvictionPolicy {
    /// The slot the next `evict` for an object of `incoming` bytes returns, left cached.
    /// The search's own side effects happen here and stay done if the victim is spared
    /// (CLOCK's cleared bits and reinsertions, SIEVE's hand and bits, S3-FIFO's moves to
    /// main, stale heap entries dropped, a random policy's draws), as in Caffeine's
    /// `findVictim` and `SampledPolicy.evict`. Called only while an object is cached.
    /// Complexity: that of the policy's `evict`.
    mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32
    /// Takes `victim`, which `nextVictim` has just named, out of the policy's structures as
    /// `evict` does after its search (unlinks it, records its ghost) and returns it. The
    /// default calls `evict`, whose search names the same slot again when nothing random
    /// is in it; a policy that draws takes the named slot instead, so each draw is spent once.
    mutating func evictNamed(_ victim: Int32, _ nodes: inout Nodes, incoming: Int) -> Int32
    /// Whether the eviction step the last victim belonged to needs more victims: a move into
    /// a main queue that still lacks room there (QD-LP, S3-FIFOd, FlashProb) or a batch
    /// with victims left (FIFO-Reinsertion). `evict` takes a whole step (`evictStep`); named
    /// one at a time, a step's victims are named until it is done, even when the incoming
    /// object fits already. False for policies whose steps take one victim.
    var stepUnfinished: Bool { get }
}

extension VictimNamingPolicy {
    @inline(__always) mutating func evictNamed(_ victim: Int32, _ nodes: inout Nodes, incoming: Int) -> Int32 {
        evict(&nodes, incoming: incoming)
    }

    var stepUnfinished: Bool { false }

    /// `evict` of a policy whose step can take several victims: names and takes them one at
    /// a time until the step is done, freeing all but the last, which it returns.
    @inline(__always) mutating func evictStep(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        var victim = evictNamed(nextVictim(&nodes, incoming: incoming), &nodes, incoming: incoming)
        while stepUnfinished {
            nodes.evict(victim)
            victim = evictNamed(nextVictim(&nodes, incoming: incoming), &nodes, incoming: incoming)
        }
        return victim
    }
}

/// A single-queue policy that evicts from the tail with the default `evict` and nothing else
/// (LRU, FIFO): its next victim is the tail.
protocol TailEvictingPolicy: SingleQueuePolicy, VictimNamingPolicy {}

extension TailEvictingPolicy {
    @inline(__always) mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 { queue.tail }
}
