import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// A policy that evicts among objects drawn from libCacheSim's hash table
/// (`hashtable_rand_obj`): Random, RandomTwo, RandomLRU, Hyperbolic, BeladySize. Admission,
/// removal and the generator shared with an admissioner are the sampler's; `nextVictim`
/// draws and chooses, and eviction takes what it chose. TinyLFU in front compares the
/// candidate with that choice, as Caffeine's `SampledPolicy.evict` asks its admittor about
/// the victim of a fresh sample: the draws are spent once whether the victim goes or stays.
///
/// Complexity: admit O(1) amortized; evict O(1) plus the policy's draws.
protocol SampledPolicy: VictimNamingPolicy, LibCacheSimRandomized {
    var sampler: LibCacheSimSampler { get set }
}

extension SampledPolicy {
    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) { sampler.insert(slot, id: nodes[slot].key) }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        evictNamed(nextVictim(&nodes, incoming: incoming), &nodes, incoming: incoming)
    }

    @inline(__always) mutating func evictNamed(_ victim: Int32, _ nodes: inout Nodes, incoming: Int) -> Int32 {
        sampler.remove(victim)
        return victim
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) { sampler.remove(slot) }

    /// Its draws are libCacheSim's `next_rand`, shared with an admissioner in front.
    var libCacheSimRandom: LibCacheSimRandom { sampler.libCacheSimRandom }
}
