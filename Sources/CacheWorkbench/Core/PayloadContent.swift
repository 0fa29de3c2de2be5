/// The bytes a disk backend stores for an object: derived from the key and the size only,
/// so any hit can be checked (`--verify`) without keeping a copy. Each 8-byte word is
/// SplitMix64 of a per-object seed plus the word's index: fast to make, and a body stored
/// under the wrong key or truncated or shifted never matches.
public enum PayloadContent {
    package static func seed(key: String, size: Int) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a over the key's UTF-8
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash ^ UInt64(truncatingIfNeeded: size) &* 0x9E37_79B9_7F4A_7C15
    }

    @inline(__always)
    static func word(_ seed: UInt64, _ index: Int) -> UInt64 {
        var state = seed &+ UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15
        return SeededRandom.splitMix(&state)
    }

    /// Fills `buffer` with the content of an object of `buffer.count` bytes under `key`.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer, key: String) {
        let seed = seed(key: key, size: buffer.count)
        let words = buffer.count / 8
        for index in 0..<words { buffer.storeBytes(of: word(seed, index).littleEndian, toByteOffset: index * 8, as: UInt64.self) }
        let tail = word(seed, words).littleEndian
        withUnsafeBytes(of: tail) { bytes in
            for offset in 0..<(buffer.count - words * 8) { buffer[words * 8 + offset] = bytes[offset] }
        }
    }

    /// Whether `bytes` are exactly the content of an object of `bytes.count` bytes under
    /// `key` (the caller checks the count against the expected size).
    public static func matches(_ bytes: UnsafeRawBufferPointer, key: String) -> Bool {
        let seed = seed(key: key, size: bytes.count)
        let words = bytes.count / 8
        for index in 0..<words where bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self) != word(seed, index).littleEndian {
            return false
        }
        let tail = word(seed, words).littleEndian
        return withUnsafeBytes(of: tail) { expected in
            (0..<(bytes.count - words * 8)).allSatisfy { bytes[words * 8 + $0] == expected[$0] }
        }
    }
}
