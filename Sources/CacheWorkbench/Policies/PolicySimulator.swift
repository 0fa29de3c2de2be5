import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Any `EvictionPolicy` as a backend: demand-fill replay on key ids (libCacheSim's
/// `cache_get_base`): a hit calls the policy; a miss of an object no larger than the
/// capacity evicts until it fits, then admits it. The state sits behind pointers the class
/// owns (a stored `var` would cost an exclusivity check per call). A set of a cached key
/// replaces the object (remove, then admit).
///
/// Complexity: get O(1) + the policy's `hit`; set O(1) amortized + the policy's `evict` per
/// victim and `admit`.
final class PolicySimulator<Policy: EvictionPolicy>: KeyOnlyBackend {
    static var needsKeyNames: Bool { false }
    static var holdsPayloads: Bool { false }
    static var needsFuture: Bool { Policy.needsFuture }

    let capacity: Int
    // The policy and the nodes (with their counters) each behind a pointer of their own: a
    // call that borrows both must not make Swift copy a shared struct in and out.
    private let policy: UnsafeMutablePointer<Policy>
    private let nodes: UnsafeMutablePointer<PolicyNodes<Policy.Meta>>
    /// The victim `nextVictimKey` named last, until `evictNext` takes it (-1: none).
    private var named: Int32 = -1
    /// libCacheSim's per-object metadata bytes (`cache->obj_md_size`, under
    /// `--consider-obj-metadata`), added to each object's size wherever the capacity counts
    /// it: the fit, the eviction loop, the bytes held (`ObjectMetadataBytes`). 0: none.
    var metadataBytes = 0

    convenience init(capacity: Int, options: [String: String] = [:], nextAccess: NextAccess? = nil) throws {
        self.init(capacity: capacity, policy: try Policy(capacity: capacity, options: PolicyOptions(values: options, nextAccess: nextAccess)))
    }

    init(capacity: Int, policy made: Policy) {
        self.capacity = capacity
        policy = .allocate(capacity: 1)
        policy.initialize(to: made)
        nodes = .allocate(capacity: 1)
        // Ghost ids share the index (up to as many bytes as the cached objects): twice the
        // buckets keep its first table as sparse as another policy's.
        nodes.initialize(to: PolicyNodes(minimumCapacity: Policy.keepsGhostNodes ? 2048 : 1024))
    }

    deinit {
        nodes.pointee.deallocate()
        policy.pointee.deallocate()
        nodes.deinitialize(count: 1)
        nodes.deallocate()
        policy.deinitialize(count: 1)
        policy.deallocate()
    }

    var settings: String {
        let own = policy.pointee.settings
        guard metadataBytes > 0 else { return own }
        return (own.isEmpty ? "" : own + ";") + "obj-metadata-bytes=\(metadataBytes)"
    }

    /// With metadata, whether the object and its metadata fit (libCacheSim's
    /// `cache_can_insert_default`: `obj_size + obj_md_size > cache_size` refuses it);
    /// without, the replayer's rule. O(1).
    func admits(_ request: Request, cost: Int) -> Bool? {
        guard metadataBytes > 0 else { return nil }
        let (stored, overflow) = cost.addingReportingOverflow(metadataBytes)
        return !overflow && stored <= capacity && policy.pointee.admits(stored)
    }

    /// Whether the policy would store an object of `cost` bytes (tests).
    func admitsForTests(_ cost: Int) -> Bool { cost <= capacity && policy.pointee.admits(cost) }

    /// Bytes the cached objects take.
    var usedBytes: Int { nodes.pointee.usedBytes }

    /// The keys of one of the policy's queues, head to tail (tests and debugging; O(n)).
    func keys(_ queue: (Policy) -> PolicyNodes<Policy.Meta>.Queue) -> [UInt64] { nodes.pointee.keys(queue(policy.pointee)) }
    /// Reads the policy's state (tests).
    func policyState<T>(_ read: (Policy) -> T) -> T { read(policy.pointee) }

    var facts: BackendFacts {
        BackendFacts(
            entries: nodes.pointee.count, accountedBytes: nodes.pointee.usedBytes, evictions: nodes.pointee.evictions,
            fallbacks: policy.pointee.fallbacks, fallbackRule: Policy.fallbackRule)
    }

    /// Only once the index outgrows the first two CPU caches' share of it: below 4,096
    /// objects (at most 256 KB of buckets) a bucket is there or in L2 already, and the
    /// look-ahead's hashing is most of what it costs (28 of LRU's 248 instructions a request
    /// at 64 MiB; more for a policy with ghost tables of its own). LRU's speed there was the same either way
    /// (medians of ten alternating runs 30.8 and 30.9 M requests/s).
    @inline(__always)
    func prefetch(id: UInt64) {
        guard nodes.pointee.count >= 4_096 else { return }
        nodes.pointee.prefetch(id)
        policy.pointee.prefetch(id)
    }

    /// Only worth it when the nodes outgrow the CPU caches: with a few thousand objects
    /// (64 MiB of images) they stay cached and the extra look-up costs ~15% of throughput.
    @inline(__always)
    func prefetchEntry(id: UInt64) {
        guard nodes.pointee.count >= 16_384 else { return }
        if !nodes.pointee.prefetchNode(of: id) { policy.pointee.prefetchEntry(id) }
    }

    @inline(__always)
    func get(_ request: Request) -> Bool { getKey(request.id) }

    @inline(__always)
    func getKey(_ id: UInt64) -> Bool {
        guard let slot = nodes.pointee.find(id) else {
            policy.pointee.miss(id)
            return false
        }
        if isGhost(slot) {
            policy.pointee.ghostHit(slot, &nodes.pointee)
            nodes.pointee.dropGhost(slot)
            return false
        }
        policy.pointee.hit(slot, &nodes.pointee)
        return true
    }

    @inline(__always)
    func set(_ request: Request, cost: Int, payload: Payload? = nil) { setKey(request.id, cost: cost) }

    @inline(__always)
    func setKey(_ id: UInt64, cost: Int) {
        // A set of a cached key (not in demand-fill replay: it only sets after a miss)
        // replaces the object: the old one goes, the new one is admitted afresh.
        removeKey(id)
        fillKey(id, cost: cost)
    }

    @inline(__always)
    func fillKey(_ id: UInt64, cost size: Int) {
        let (cost, overflow) = size.addingReportingOverflow(metadataBytes)
        guard !overflow, cost <= capacity, policy.pointee.admits(cost) else { return }
        // The bytes that may stay cached beside the new object: evict while more are.
        let room = capacity - cost
        while nodes.pointee.usedBytes > room, nodes.pointee.count > 0 { evictOne(incoming: cost) }
        guard policy.pointee.storesAfterEviction(cost) else { return }
        let slot = nodes.pointee.add(id, cost: cost, meta: policy.pointee.newMeta)
        policy.pointee.admit(slot, &nodes.pointee)
    }

    func remove(_ request: Request) { removeKey(request.id) }

    @inline(__always)
    func removeKey(_ id: UInt64) {
        guard let slot = nodes.pointee.find(id) else { return }
        if isGhost(slot) {
            // Not cached: the id goes, so that a set after it indexes it once.
            policy.pointee.forgetGhost(slot, &nodes.pointee)
            nodes.pointee.dropGhost(slot)
            return
        }
        policy.pointee.removing(slot, &nodes.pointee)
        nodes.pointee.free(slot)
    }

    /// Whether an indexed slot holds a ghost, not a cached object (always false, and
    /// compiled away, unless the policy `keepsGhostNodes`).
    @inline(__always)
    private func isGhost(_ slot: Int32) -> Bool { Policy.keepsGhostNodes && policy.pointee.isGhost(slot, nodes.pointee) }

    /// One of the policy's evictions; the policy finishes it itself when it keeps ghosts.
    @inline(__always)
    private func evictOne(incoming cost: Int) {
        let victim = policy.pointee.evict(&nodes.pointee, incoming: cost)
        if !Policy.keepsGhostNodes { nodes.pointee.evict(victim) }
    }

    /// A policy simulator models no app and has no memory-pressure response.
    func didReceiveMemoryWarning() -> Int { 0 }

    /// Evicts the policy's victims until at most `target` bytes remain. O(victims).
    func trim(toCost target: Int) -> Int? {
        let before = nodes.pointee.usedBytes
        while nodes.pointee.usedBytes > target, nodes.pointee.count > 0 { evictOne(incoming: 0) }
        return before - nodes.pointee.usedBytes
    }

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
    @_specialize(exported: false, where Policy == WTinyLFUCaffeinePolicy)
    @_specialize(exported: false, where Policy == LIRSPaperPolicy)
    @_specialize(exported: false, where Policy == LRUKPolicy)
    @_specialize(exported: false, where Policy == MQPolicy)
    @_specialize(exported: false, where Policy == Clock2QPlusPolicy)
    @_specialize(exported: false, where Policy == SFIFOPolicy)
    @_specialize(exported: false, where Policy == S3LRUPolicy)
    @_specialize(exported: false, where Policy == QDLPPolicy)
    @_specialize(exported: false, where Policy == CARPolicy)
    @_specialize(exported: false, where Policy == FlashProbPolicy)
    @_specialize(exported: false, where Policy == S3FIFOdPolicy)
    @_specialize(exported: false, where Policy == FIFOMergePolicy)
    @_specialize(exported: false, where Policy == MRUPolicy)
    @_specialize(exported: false, where Policy == SizePolicy)
    @_specialize(exported: false, where Policy == BeladySizePolicy)
    @_specialize(exported: false, where Policy == RandomPolicy)
    @_specialize(exported: false, where Policy == RandomTwoPolicy)
    @_specialize(exported: false, where Policy == LRUProbPolicy)
    @_specialize(exported: false, where Policy == HyperbolicPolicy)
    @_specialize(exported: false, where Policy == LeCaRPolicy)
    @_specialize(exported: false, where Policy == CacheusPolicy)
    @_specialize(exported: false, where Policy == CRLFUPolicy)
    @_specialize(exported: false, where Policy == ClockProLibCacheSim)
    @_specialize(exported: false, where Policy == LHDPolicy)
    @_specialize(exported: false, where Policy == RandomLRUPolicy)
    @_specialize(exported: false, where Policy == FIFOReinsertionPolicy)
    @_specialize(exported: false, where Policy == LRUBeladyPolicy)
    @_specialize(exported: false, where Policy == FIFOBeladyPolicy)
    @_specialize(exported: false, where Policy == SieveBeladyPolicy)
    @_specialize(exported: false, where Policy == NopPolicy)
    func specializedReplay(with replayer: Replayer) throws -> ReplayTally { try replayer.replay(self) }
}

/// A prefetcher's insertions (`PrefetchGate`): libCacheSim's prefetchers look an object up
/// without updating it and call `cache->insert` after their own eviction loop, skipping
/// `can_insert` (no size rule, no admission).
extension PolicySimulator: PrefetchTarget {
    func isCachedUntouched(_ id: UInt64) -> Bool {
        guard let slot = nodes.pointee.find(id) else { return false }
        return !isGhost(slot)
    }

    func insertPrefetched(_ id: UInt64, cost: Int) {
        let room = capacity - cost
        while nodes.pointee.usedBytes > room, nodes.pointee.count > 0 { evictOne(incoming: cost) }
        guard policy.pointee.storesAfterEviction(cost) else { return }
        let slot = nodes.pointee.add(id, cost: cost, meta: policy.pointee.newMeta)
        policy.pointee.admit(slot, &nodes.pointee)
    }

    var keepsGhosts: Bool { Policy.keepsGhostNodes }
}

/// An admissioner is asked unless the policy's own size rule comes first and refuses.
extension PolicySimulator: AdmissionOrdering {
    func asksAdmission(cost: Int) -> Bool { !Policy.sizeRuleBeforeAdmission || policy.pointee.admits(cost) }
}

/// A policy that names its next victim, one at a time, as `set`'s loop would evict them.
extension PolicySimulator: VictimPeeking where Policy: VictimNamingPolicy {
    func nextVictimKey(toFit cost: Int) -> UInt64? {
        guard cost <= capacity, policy.pointee.admits(cost), nodes.pointee.usedBytes + cost > capacity || policy.pointee.stepUnfinished,
              nodes.pointee.count > 0 else { return nil }
        named = policy.pointee.nextVictim(&nodes.pointee, incoming: cost)
        return nodes.pointee[named].key
    }

    func evictNext(incoming cost: Int) {
        guard nodes.pointee.count > 0, named >= 0 else { return }
        let victim = policy.pointee.evictNamed(named, &nodes.pointee, incoming: cost)
        named = -1
        if !Policy.keepsGhostNodes { nodes.pointee.evict(victim) }
    }

    func isCached(_ key: UInt64) -> Bool {
        guard let slot = nodes.pointee.find(key) else { return false }
        return !isGhost(slot)
    }
}

/// A randomized policy's generator, for the admissioner in front (`AdmissionGate`).
extension PolicySimulator: LibCacheSimRandomized where Policy: LibCacheSimRandomized {
    var libCacheSimRandom: LibCacheSimRandom { policy.pointee.libCacheSimRandom }
}
