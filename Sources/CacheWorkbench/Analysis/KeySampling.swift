import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Spatial (by-key) sampling as libCacheSim's MRC profilers do it, so a sampled curve here
/// and there follow the same keys. Every request of a sampled key is kept, none of the others.
///
/// - MiniSim (`mrcProfiler.cpp:287`, `traceReader/sampling/spatial.c:13`): a key is kept
///   iff `XXH3(id ^ 10000019) % ⌊1/R⌋ == 0` — the salt fixed in `MRCProfilerMINISIM::run`,
///   the modulus the sampler's `sampling_ratio_inv = (int)(1.0 / ratio)`. Misses are scaled
///   back by that integer, so 1/R must be whole (`MissRatioCurveRun` checks it).
/// - SHARDS (`mrcProfiler.cpp:111,126`): a key is kept iff `XXH3(id ^ salt) ≤ ⌊2⁶⁴ × R⌋`,
///   salt 0 unless given (its `shards_params` are zero-initialized).
///
/// The hash is libCacheSim's `get_hash_value_int_64`: XXH3_64bits of the 8-byte id (its
/// `HASH_TYPE` is `XXHASH3`, include/config.h:29; dataStructure/hash/hash.h:43), written
/// once in `LibCacheSimBuckets.hash` and checked against libCacheSim's own xxh3.h in
/// SampledCurveTests. Complexity O(1) per key.
public enum KeySampling {
    /// libCacheSim's MiniSim salt (`set_spatial_sampler_salt(sampler, 10000019)`).
    public static let miniSimSalt: UInt64 = 10_000_019

    /// ⌊1/R⌋ as libCacheSim's `(int)(1.0 / sampling_ratio)`.
    public static func inverse(of rate: Double) -> UInt64 { UInt64(1.0 / rate) }

    /// MiniSim's rule: kept iff the salted hash is a multiple of `inverse` (1 keeps all).
    @inline(__always) public static func miniSimKeeps(_ id: UInt64, inverse: UInt64) -> Bool {
        inverse <= 1 || LibCacheSimBuckets.hash(id ^ miniSimSalt) % inverse == 0
    }

    /// SHARDS' threshold for rate R: ⌊2⁶⁴ × R⌋, and UInt64.max for R = 1 (every hash).
    public static func shardsThreshold(rate: Double) -> UInt64 {
        guard rate < 1 else { return .max }
        return UInt64(rate * 18_446_744_073_709_551_616.0)
    }

    /// SHARDS' hash of a key (salt 0 by default, as libCacheSim's).
    @inline(__always) public static func shardsHash(_ id: UInt64, salt: UInt64 = 0) -> UInt64 { LibCacheSimBuckets.hash(id ^ salt) }
}
