import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// LHD, least hit density (Beckmann, Chen and Cidon, NSDI 2018), as libCacheSim's C++ port runs
/// it (`cache/eviction/LHD/lhd.cpp` and `LHD_Interface.cpp` of the version its PyPI package
/// 0.3.5 builds, 1a1a11a/libCacheSim dbf8423), step for step so the counts are libCacheSim's.
///
/// Each cached object has a tag (its last access time, its last two hit ages, its size, whether
/// it is an explorer); objects fall into 16 classes by the sum of their last two hit ages
/// (`hitAgeClass`, log-spaced up to `MAX_AGE` 20,000 coarsened ages). A class's hit density at
/// an age is hits / expected remaining lifetime, learned from the hits and evictions it saw at
/// each age; until the first reconfiguration it is libCacheSim's start, (class + 1) / (age + 1).
/// Eviction (`LHD::rank`) draws 8 tags at random (32 after 50 reconfigurations) with
/// `next_rand() % tags`, adds the last 8 admissions that looked like victims, and evicts the one
/// of least density / size (explorers get +1 and are effectively kept). Every access draws once
/// more: 1 in 32 becomes an explorer while the explorer budget (1% of the capacity) lasts and
/// fewer than 50 reconfigurations have run. Every 2^20 accesses the statistics decay by 0.9,
/// the densities are recomputed and, at the 5th and 25th, the age coarsening is re-chosen
/// (`reconfigure`, `adaptAgeCoarsening`, `modelHitDensity`).
///
/// Exactness: the draws are libCacheSim's `next_rand` (`LibCacheSimRandom`: lehmer64 from
/// 0xdeadbeef, as a fresh PyPI process; `seed` sets `set_rand_seed`'s value), the tag vector is
/// kept in libCacheSim's order (a removed tag is replaced by the last, `LHD::replaced`), and the
/// arithmetic is C's: `rank_t` is `float`, so densities, sizes and the decays are `Float`, with
/// the C conversions (`explorerBudget` an `int64_t` updated through `float`, `density += 1.`
/// through `double`). Only the 16 classes of libCacheSim's single application id are kept (the
/// other 240 are never read). Deliberate difference: libCacheSim keeps an object's size as a
/// `uint32_t` (`sizeMap`) and updates it when a hit brings a new size; the simulator keeps the
/// size it admitted (the workbench's traces give an object one size).
///
/// Complexity: hit O(1) expected; admit O(1) amortized; evict O(sample) = O(8 or 32 + 8);
/// every 2^20th access a reconfiguration of O(16 × 20,000).
struct LHDPolicy: VictimNamingPolicy {
    /// The object's index in `tags`.
    typealias Meta = Int32

    struct Tag {
        var timestamp: UInt64 = 0
        var lastHitAge: UInt64 = 0
        var lastLastHitAge: UInt64 = 0
        var key: UInt64
        var slot: Int32
        var size: Float = 0
        var explorer = false
    }

    // libCacheSim's constants (lhd.hpp); ASSOCIATIVITY and ADMISSIONS as LHD_init sets them.
    static let associativity = 32
    static let admissions = 8
    static let explorerBudgetFraction: Float = 0.01
    static let exploreInverseProbability: UInt64 = 32
    static let hitAgeClasses = 16
    static let maxAge = 20_000
    static let accessesPerReconfiguration = 1 << 20
    static let ewmaDecay: Float = 0.9
    static let ageCoarseningErrorTolerance: Float = 0.01
    /// `DEFAULT_APP_ID % APP_CLASSES`: every object's application class.
    static let app = 1

    private var tags: [Tag] = []
    /// By class (`hitAgeClass`) and coarsened age: `classes[app × 16 + class]`'s arrays.
    private var hits: [Float]
    private var evictions: [Float]
    private var hitDensities: [Float]
    private var generator: LibCacheSimRandom
    private var timestamp: UInt64 = 0
    private var nextReconfiguration = accessesPerReconfiguration
    private(set) var reconfigurations = 0
    private var ageCoarseningShift: UInt64 = 10
    private var ewmaNumObjects: Float = 0
    private var ewmaNumObjectsMass: Float = 0
    /// The last admissions that looked like victims (keys; nil is `INVALID_CANDIDATE`).
    private var recentlyAdmitted = [UInt64?](repeating: nil, count: admissions)
    private var recentlyAdmittedHead = 0
    private var ewmaVictimHitDensity: Float = 0
    /// The tag `nextVictim` chose and its hit density, for the eviction that takes it.
    private var namedTag = 0
    private var namedRank: Float = 0
    private(set) var explorerBudget: Int64
    private(set) var fallbacks = 0

    static var fallbackRule: String? {
        "no sampled tag ranked below the largest float, where libCacheSim's LHD::rank reads tags[-1]; the last tag sampled was evicted"
    }

    init(capacity: Int, options: PolicyOptions) throws {
        generator = try LibCacheSimRandom(options: options)
        // C: `cache->cache_size * EXPLORER_BUDGET_FRACTION`, a float stored in an int64_t.
        explorerBudget = Self.int64(Float(capacity) * Self.explorerBudgetFraction)
        let count = Self.hitAgeClasses * Self.maxAge
        hits = [Float](repeating: 0, count: count)
        evictions = [Float](repeating: 0, count: count)
        // "Initialize policy to ~GDSF": (c + 1) / (a + 1) in double, for class ids c = 16…31.
        hitDensities = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            for hitAgeClass in 0..<Self.hitAgeClasses {
                let c = Double(Self.app * Self.hitAgeClasses + hitAgeClass)
                for age in 0..<Self.maxAge {
                    buffer[hitAgeClass * Self.maxAge + age] = Float(1.0 * (c + 1) / Double(age + 1))
                }
            }
            initialized = count
        }
    }

    var newMeta: Int32 { -1 }

    var settings: String { generator.settings }

    // MARK: the replay

    mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        update(Int(nodes[slot].meta), inserted: false, size: nodes[slot].cost)
    }

    mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        nodes[slot].meta = Int32(tags.count)
        tags.append(Tag(lastLastHitAge: UInt64(Self.maxAge), key: nodes[slot].key, slot: slot))
        update(tags.count - 1, inserted: true, size: nodes[slot].cost)
    }

    /// `LHD::rank` then `LHD::replaced`.
    mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        evictNamed(nextVictim(&nodes, incoming: incoming), &nodes, incoming: incoming)
    }

    /// The lowest hit density among the sampled tags and the recently admitted objects (the
    /// draws spent if TinyLFU in front spares it).
    mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        var victim = -1
        var victimRank = Float.greatestFiniteMagnitude
        var sampled = 0
        let candidates = reconfigurations > 50 ? Self.associativity : 8
        for _ in 0..<candidates {
            sampled = Int(generator.next() % UInt64(tags.count))
            let rank = hitDensity(tags[sampled])
            if rank < victimRank {
                victim = sampled
                victimRank = rank
            }
        }
        for key in recentlyAdmitted {
            guard let key, let slot = nodes.find(key) else { continue }
            let index = Int(nodes[slot].meta)
            let rank = hitDensity(tags[index])
            if rank < victimRank {
                victim = index
                victimRank = rank
            }
        }
        if victim < 0 {
            fallbacks += 1
            victim = sampled
        }
        namedTag = victim
        namedRank = victimRank
        return tags[victim].slot
    }

    /// Takes the named tag's object, its eviction counted in the age class statistics.
    mutating func evictNamed(_ named: Int32, _ nodes: inout Nodes, incoming: Int) -> Int32 {
        let victim = namedTag, victimRank = namedRank
        ewmaVictimHitDensity = Self.ewmaDecay * ewmaVictimHitDensity + (1 - Self.ewmaDecay) * victimRank
        let slot = tags[victim].slot
        let age = self.age(tags[victim])
        evictions[classIndex(tags[victim]) * Self.maxAge + age] += 1
        if tags[victim].explorer { explorerBudget = Self.int64(Float(explorerBudget) + tags[victim].size) }
        removeTag(victim, &nodes)
        return slot
    }

    /// `LHD_remove`: the tag goes, no statistics recorded.
    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) { removeTag(Int(nodes[slot].meta), &nodes) }

    /// The last tag takes the removed one's place, as `tags[index] = tags.back()`.
    private mutating func removeTag(_ index: Int, _ nodes: inout Nodes) {
        let last = tags.removeLast()
        if index < tags.count {
            tags[index] = last
            nodes[last.slot].meta = Int32(index)
        }
    }

    /// `LHD::update`: an access (a hit, or the admission just made).
    private mutating func update(_ index: Int, inserted: Bool, size: Int) {
        if !inserted {
            let age = self.age(tags[index])
            hits[classIndex(tags[index]) * Self.maxAge + age] += 1
            if tags[index].explorer { explorerBudget = Self.int64(Float(explorerBudget) + tags[index].size) }
            tags[index].lastLastHitAge = tags[index].lastHitAge
            tags[index].lastHitAge = UInt64(age)
        }
        tags[index].timestamp = timestamp
        tags[index].size = Float(size)
        let explore = generator.next() % Self.exploreInverseProbability == 0
        if explore && explorerBudget > 0 && reconfigurations < 50 {
            tags[index].explorer = true
            explorerBudget = Self.int64(Float(explorerBudget) - tags[index].size)
        } else {
            tags[index].explorer = false
        }
        if inserted && !explore && hitDensity(tags[index]) < ewmaVictimHitDensity {
            recentlyAdmitted[recentlyAdmittedHead % Self.admissions] = tags[index].key
            recentlyAdmittedHead += 1
        }
        timestamp += 1
        nextReconfiguration -= 1
        if nextReconfiguration == 0 {
            reconfigure()
            nextReconfiguration = Self.accessesPerReconfiguration
            reconfigurations += 1
        }
    }

    // MARK: densities

    /// `getAge`: coarsened, at most MAX_AGE − 1.
    @inline(__always) private func age(_ tag: Tag) -> Int {
        let age = (timestamp &- tag.timestamp) >> ageCoarseningShift
        return age >= UInt64(Self.maxAge) ? Self.maxAge - 1 : Int(age)
    }

    /// `hitAgeClass(lastHitAge + lastLastHitAge)`: about log2(MAX_AGE / age), 15 for age 0.
    @inline(__always) private func classIndex(_ tag: Tag) -> Int {
        var age = tag.lastHitAge &+ tag.lastLastHitAge
        if age == 0 { return Self.hitAgeClasses - 1 }
        var log = 0
        while age < UInt64(Self.maxAge) && log < Self.hitAgeClasses - 1 {
            age <<= 1
            log += 1
        }
        return log
    }

    /// `getHitDensity`: the class's density at the tag's age per byte; +1 for an explorer.
    @inline(__always) private func hitDensity(_ tag: Tag) -> Float {
        let age = self.age(tag)
        if age == Self.maxAge - 1 { return -Float.greatestFiniteMagnitude }
        var density = hitDensities[classIndex(tag) * Self.maxAge + age] / tag.size
        if tag.explorer { density = Float(Double(density) + 1.0) }
        return density
    }

    /// `LHD::reconfigure`: decay, re-coarsen ages (5th and 25th time), recompute densities.
    private mutating func reconfigure() {
        for index in hits.indices {
            hits[index] *= Self.ewmaDecay
            evictions[index] *= Self.ewmaDecay
        }
        adaptAgeCoarsening()
        modelHitDensity()
    }

    private mutating func adaptAgeCoarsening() {
        ewmaNumObjects *= Self.ewmaDecay
        ewmaNumObjectsMass *= Self.ewmaDecay
        ewmaNumObjects += Float(tags.count)
        ewmaNumObjectsMass = Float(Double(ewmaNumObjectsMass) + 1.0)
        let numObjects = ewmaNumObjects / ewmaNumObjectsMass
        let optimal = Float(1.0 * Double(numObjects) / Double(Self.ageCoarseningErrorTolerance * Float(Self.maxAge)))
        guard reconfigurations == 5 || reconfigurations == 25 else { return }
        var log2: UInt64 = 1
        while Float(1 << log2) < optimal { log2 += 1 }
        let delta = Int(log2) - Int(ageCoarseningShift)
        ageCoarseningShift = log2
        ewmaNumObjects *= 8
        ewmaNumObjectsMass *= 8
        let maxAge = Self.maxAge
        for start in stride(from: 0, to: hits.count, by: maxAge) {
            if delta < 0 {
                // Stretch.
                let shift = -delta
                if (maxAge >> shift) < maxAge - 1 {
                    for age in (maxAge >> shift)..<(maxAge - 1) {
                        hits[start + maxAge - 1] += hits[start + age]
                        evictions[start + maxAge - 1] += evictions[start + age]
                    }
                }
                let divisor = Float(1 << shift)
                for age in stride(from: maxAge - 2, through: 0, by: -1) {
                    hits[start + age] = hits[start + (age >> shift)] / divisor
                    evictions[start + age] = evictions[start + (age >> shift)] / divisor
                }
            } else if delta > 0 {
                // Compress.
                for age in 0..<(maxAge >> delta) {
                    hits[start + age] = hits[start + (age << delta)]
                    evictions[start + age] = evictions[start + (age << delta)]
                    for step in 1..<(1 << delta) {
                        hits[start + age] += hits[start + (age << delta) + step]
                        evictions[start + age] += evictions[start + (age << delta) + step]
                    }
                }
                for age in (maxAge >> delta)..<(maxAge - 1) {
                    hits[start + age] = 0
                    evictions[start + age] = 0
                }
            }
        }
    }

    private mutating func modelHitDensity() {
        let maxAge = Self.maxAge
        for start in stride(from: 0, to: hits.count, by: maxAge) {
            var totalEvents = hits[start + maxAge - 1] + evictions[start + maxAge - 1]
            var totalHits = hits[start + maxAge - 1]
            var lifetimeUnconditioned = totalEvents
            for age in stride(from: maxAge - 2, through: 0, by: -1) {
                totalHits += hits[start + age]
                totalEvents += hits[start + age] + evictions[start + age]
                lifetimeUnconditioned += totalEvents
                hitDensities[start + age] = Double(totalEvents) > 1e-5 ? totalHits / lifetimeUnconditioned : 0
            }
        }
    }

    /// C's float-to-int64_t conversion (truncation), clamped where C's would be undefined.
    @inline(__always) private static func int64(_ value: Float) -> Int64 {
        if value.isNaN { return 0 }
        if value >= 9.2e18 { return Int64.max }
        if value <= -9.2e18 { return Int64.min }
        return Int64(value)
    }
}

/// Its draws are libCacheSim's `next_rand`, shared with an admissioner in front.
extension LHDPolicy: LibCacheSimRandomized {
    var libCacheSimRandom: LibCacheSimRandom { generator }
}
