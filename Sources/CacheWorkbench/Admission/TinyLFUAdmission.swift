import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// TinyLFU admission (Einziger, Friedman and Manes, ACM ToS 2017) as Caffeine's simulator
/// puts it in front of any policy: every access is recorded in a frequency sketch; a miss
/// is stored without a question while it fits; when the cache is full, the candidate is
/// compared with each victim the policy would evict, and stored only if it is more
/// frequent (or, the "jitter", with probability 1/128 when its frequency is at least 6, a
/// `java.util.Random` seeded 1033096058). Sources (ben-manes/caffeine):
/// simulator/src/main/java/com/github/benmanes/caffeine/cache/simulator/admission/TinyLfu.java
/// (`admit`), .../policy/linked/LinkedPolicy.java (`record`, `evict`: a rejected candidate
/// goes, the victims it beat before it lost stay evicted), and
/// simulator/src/main/resources/reference.conf (`tiny-lfu.jitter`, `random-seed`).
///
/// The sketch is Caffeine's own (`CountMin4`, periodic reset), sized as its simulator sizes
/// it: one counter per entry the cache can hold. With capacities counted in objects
/// (`--ignore-obj-size`) that is the capacity, as in Caffeine, and decisions are exact. With
/// capacities in bytes Caffeine's weighted `LinkedPolicy` would allocate a counter per byte
/// (64 MiB of capacity: 512 MiB of sketch); the workbench grows the sketch with the cached
/// entry count instead, forgetting its counts when it grows, as Caffeine's
/// `Frequency.ensureCapacity` documents for a weighted cache ("retracks on every
/// addition"); `backend_options` says which (`counters=capacity` or `counters=entries`).
///
/// Complexity: record O(1); a question O(1) per victim compared.
struct TinyLFUAdmission: Admissioner {
    private var sketch: CountMin4
    private var random = JavaRandom(seed: 1_033_096_058)
    /// Sized once by the capacity (objects), or grown with the cached entries (bytes).
    let sizedByCapacity: Bool
    static let jitterThreshold = 6
    static let jitterProbability: Float = 0.0078125

    /// Caffeine's `counters-multiplier`: sketch counters per entry (default 1).
    let countersMultiplier: Double

    /// `objects`: the cache's capacity in entries when it counts objects, else nil.
    init(objects: Int?, countersMultiplier: Double = 1) {
        sizedByCapacity = objects != nil
        self.countersMultiplier = countersMultiplier
        sketch = CountMin4(maximumSize: objects ?? 0, countersMultiplier: countersMultiplier)
    }

    mutating func record(_ key: UInt64, cost: Int, capacity: Int) { sketch.increment(key) }

    /// Without a victim (the cache has room) a miss is stored.
    mutating func admits(_ key: UInt64, cost: Int) -> Bool { true }

    /// Caffeine's `TinyLfu.admit(candidateKey, victimKey)`: the victim's estimate first.
    mutating func admits(_ candidate: UInt64, over victim: UInt64) -> Bool {
        let victimFrequency = sketch.frequency(victim)
        let candidateFrequency = sketch.frequency(candidate)
        return candidateFrequency > victimFrequency
            || (candidateFrequency >= Self.jitterThreshold && random.nextFloat() < Self.jitterProbability)
    }

    /// With capacities in bytes, keeps the sketch at least as wide as the cache holds
    /// objects (before a candidate is compared).
    mutating func ensureEntries(_ objects: Int) {
        if !sizedByCapacity { sketch.ensureCapacity(objects) }
    }

    func estimate(_ key: UInt64) -> Int { sketch.frequency(key) }

    var settings: String {
        (countersMultiplier == 1 ? "tinylfu" : "tinylfu:\(countersMultiplier)") + ";counters=\(sizedByCapacity ? "capacity" : "entries")"
    }
}

/// `java.util.Random`'s 48-bit linear congruential generator, for Caffeine's jitter
/// (https://docs.oracle.com/en/java/javase/21/docs/api/java.base/java/util/Random.html:
/// seed scrambled with 0x5DEECE66D; next(bits) = state × 0x5DEECE66D + 0xB mod 2^48, top
/// bits; nextFloat = next(24) / 2^24).
struct JavaRandom {
    private var state: UInt64
    private static let mask: UInt64 = (1 << 48) - 1

    init(seed: Int64) { state = (UInt64(bitPattern: seed) ^ 0x5_DEEC_E66D) & Self.mask }

    mutating func next(bits: Int) -> UInt32 {
        state = (state &* 0x5_DEEC_E66D &+ 0xB) & Self.mask
        return UInt32(truncatingIfNeeded: state >> UInt64(48 - bits))
    }

    mutating func nextFloat() -> Float { Float(next(bits: 24)) / Float(1 << 24) }
}
