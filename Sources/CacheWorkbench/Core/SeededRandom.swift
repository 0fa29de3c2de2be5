#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// xoshiro256** seeded through SplitMix64: fast, and the same sequence for the same seed
/// on every machine (generated traces must be reproducible from their seed).
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    public init(seed: UInt64) {
        var mixer = seed
        state = (Self.splitMix(&mixer), Self.splitMix(&mixer), Self.splitMix(&mixer), Self.splitMix(&mixer))
    }

    public static func splitMix(_ x: inout UInt64) -> UInt64 {
        x &+= 0x9E37_79B9_7F4A_7C15
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func next() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = rotate(state.3, 45)
        return result
    }

    /// Uniform in [0, 1) with 53 random bits.
    public mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Standard normal (Box–Muller).
    public mutating func nextNormal() -> Double {
        let u1 = max(nextUnit(), 0x1p-53)
        let u2 = nextUnit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// Exponential with the given mean.
    public mutating func nextExponential(mean: Double) -> Double {
        -log(1 - nextUnit()) * mean
    }

    private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
}
