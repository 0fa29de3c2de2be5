import Histogram

/// Per-call latencies of one operation kind, in nanoseconds, in an HdrHistogram with three
/// significant digits (values up to one hour).
public struct LatencyRecorder: Sendable {
    private var histogram = Histogram<UInt64>(
        lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000_000, numberOfSignificantValueDigits: .three)

    public init() {}

    @inline(__always)
    public mutating func record(_ nanoseconds: UInt64) {
        _ = histogram.record(max(nanoseconds, 1))
    }

    public var count: UInt64 { histogram.totalCount }

    /// Adds another recorder's values (e.g. hits and misses into all gets).
    public mutating func add(_ other: LatencyRecorder) { histogram.add(other.histogram) }

    public var summary: LatencySummary? {
        guard histogram.totalCount > 0 else { return nil }
        return LatencySummary(
            count: histogram.totalCount,
            p50: histogram.valueAtPercentile(50), p90: histogram.valueAtPercentile(90),
            p99: histogram.valueAtPercentile(99), p999: histogram.valueAtPercentile(99.9),
            max: histogram.max, mean: histogram.mean)
    }
}
