/// Percentiles of one operation kind's latencies, in nanoseconds (`LatencyRecorder.summary`).
public struct LatencySummary: Sendable, Equatable, Codable {
    public var count: UInt64
    public var p50: UInt64
    public var p90: UInt64
    public var p99: UInt64
    public var p999: UInt64
    public var max: UInt64
    public var mean: Double
}
