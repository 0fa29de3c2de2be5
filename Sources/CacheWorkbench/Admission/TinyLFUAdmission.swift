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
/// The sketch is the workbench's `CountMinSketch` (Caffeine's shape: 4-bit counters, 4
/// rows, halving every 10 × width additions, widened to the cached objects' count as
/// Caffeine's `ensureCapacity`), not Caffeine's `CountMin4` hashing: where counters
/// collide, estimates can differ from Caffeine's.
///
/// Complexity: record O(1); a question O(1) per victim compared.
struct TinyLFUAdmission: Admissioner {
    private var sketch = CountMinSketch(width: 16)
    private var random = JavaRandom(seed: 1_033_096_058)
    static let jitterThreshold = 6
    static let jitterProbability: Float = 0.0078125

    mutating func record(_ key: UInt64, cost: Int, capacity: Int) { sketch.increment(key) }

    /// Without a victim (the cache has room) a miss is stored.
    mutating func admits(_ key: UInt64, cost: Int) -> Bool { true }

    /// Caffeine's `TinyLfu.admit(candidateKey, victimKey)`.
    mutating func admits(_ candidate: UInt64, over victim: UInt64) -> Bool {
        let victimFrequency = sketch.estimate(victim)
        let candidateFrequency = sketch.estimate(candidate)
        return candidateFrequency > victimFrequency
            || (candidateFrequency >= Self.jitterThreshold && random.nextFloat() < Self.jitterProbability)
    }

    /// Keeps the sketch at least as wide as the cache holds objects.
    mutating func ensureWidth(_ objects: Int) { sketch.ensureWidth(objects) }

    func estimate(_ key: UInt64) -> Int { sketch.estimate(key) }

    var settings: String { "tinylfu" }
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
