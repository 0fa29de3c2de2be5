#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CLOCK_MONOTONIC in nanoseconds (a vDSO call on Linux, no system call).
public enum MonotonicClock {
    @inline(__always)
    public static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// The median cost of one back-to-back pair of reads: what every timed call carries
    /// on top of the work it times. Reported with the run, never subtracted.
    public static func measureOverhead(samples: Int = 10_001) -> UInt64 {
        var deltas = [UInt64]()
        deltas.reserveCapacity(samples)
        for _ in 0..<samples {
            let start = now()
            let end = now()
            deltas.append(end &- start)
        }
        deltas.sort()
        return deltas[deltas.count / 2]
    }
}
