/// Turns a key's bytes into the 64-bit `Request.id`.
///
/// A canonical decimal integer (no sign, no leading zero, fits in 64 bits) is its own id,
/// so integer traces compare exactly with libCacheSim's object ids. Any other key gets
/// MurmurHash64A (seed 0) of its UTF-8 bytes: stable across runs and machines (Swift's
/// `Hasher` is seeded per process, so it cannot be used). Two distinct text keys share
/// an id with probability about n²/2⁶⁵ — 3·10⁻⁶ for ten million keys — the same
/// trade libCacheSim makes when it hashes string keys. Backends that store by name
/// (NSCache-like, disk) compare full strings and are exact regardless.
public enum KeyDigest {
    public static func parse(_ key: String) -> (id: UInt64, isInteger: Bool) {
        var key = key
        return key.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    @inline(__always)
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> (id: UInt64, isInteger: Bool) {
        if let value = canonicalInteger(bytes) { return (value, true) }
        return (murmur64A(bytes), false)
    }

    /// The value of a canonical unsigned decimal, or nil ("007", "+7", "" and overflow are not).
    @inline(__always)
    public static func canonicalInteger(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        let count = bytes.count
        guard count > 0, count <= 20 else { return nil }
        if count > 1 && bytes[0] == UInt8(ascii: "0") { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
            if o1 || o2 { return nil }
            value = sum
        }
        return value
    }

    /// MurmurHash64A by Austin Appleby (public domain), little-endian reads.
    public static func murmur64A(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let m: UInt64 = 0xc6a4_a793_5bd1_e995
        let r: UInt64 = 47
        let count = bytes.count
        var h = seed ^ (UInt64(count) &* m)
        let words = count / 8
        for i in 0..<words {
            var k = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))
            k &*= m
            k ^= k >> r
            k &*= m
            h ^= k
            h &*= m
        }
        let tail = count & 7
        if tail > 0 {
            let base = words * 8
            var t: UInt64 = 0
            for j in stride(from: tail - 1, through: 0, by: -1) {
                t = (t << 8) | UInt64(bytes[base + j])
            }
            h ^= t
            h &*= m
        }
        h ^= h >> r
        h &*= m
        h ^= h >> r
        return h
    }
}
