import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// XXH64 (Yann Collet's xxHash, 64-bit) of one 8-byte little-endian integer: the hash
/// libCacheSim's counting Bloom filter (`minimalIncrementCBF.c`) and Bloom-filter admission
/// apply to an object id (`XXH64(&obj_id, sizeof(obj_id_t), seed)`). Only the 8-byte input
/// path of XXH64 is needed, so only it is written: the spec's short-input branch
/// (xxhash.h, XXH64_finalize for len & 31 == 8, then XXH64_avalanche).
///
/// Checked against libCacheSim's own `xxhash.h` for ids 0, 1, 2, 42, 123456789 and 2⁶⁴−1
/// (XXHash64Tests). Complexity O(1).
enum XXHash64 {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    /// XXH64 of `value`'s 8 bytes in little-endian order (x86's and ARM's memory order).
    @inline(__always) static func hash(_ value: UInt64, seed: UInt64) -> UInt64 {
        var h = seed &+ prime5 &+ 8
        var k = value &* prime2
        k = (k << 31) | (k >> 33)
        k = k &* prime1
        h ^= k
        h = ((h << 27) | (h >> 37)) &* prime1 &+ prime4
        h ^= h >> 33
        h = h &* prime2
        h ^= h >> 29
        h = h &* prime3
        h ^= h >> 32
        return h
    }
}
