import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// `--repeat K`: the spread of each timing figure over K replays of one point. The row
/// keeps the median (as the usual columns) and this type the smallest and largest value,
/// written as `<column>_min` and `<column>_max`. Counts (hits, bytes, evictions) come from
/// the first replay: a replay is deterministic for a trace, options and seed, and
/// `disagreements` counts replays whose hits or byte hits differed, which is reported.
public struct RepeatSpread: Sendable {
    public var repeats: Int
    /// Replays whose hits or hit bytes differed from the first's.
    public var disagreements = 0
    /// By column name: the smallest and largest value over the replays (nil: not timed).
    public var ranges: [String: (min: Double, max: Double)] = [:]

    /// Every timing and throughput column the spread covers, in CSV order.
    public static let columns: [String] = [
        "get_p50_ns", "get_p90_ns", "get_p99_ns", "get_p999_ns", "get_max_ns",
        "get_hit_p50_ns", "get_hit_p90_ns", "get_hit_p99_ns", "get_hit_p999_ns", "get_hit_max_ns",
        "get_miss_p50_ns", "get_miss_p90_ns", "get_miss_p99_ns", "get_miss_p999_ns", "get_miss_max_ns",
        "set_p50_ns", "set_p90_ns", "set_p99_ns", "set_p999_ns", "set_max_ns",
        "throughput_rps", "wall_s",
    ]

    /// The figures of one tally by column name (those it has).
    static func figures(_ tally: ReplayTally) -> [String: Double] {
        var values: [String: Double] = [:]
        let summaries: [(String, LatencySummary?)] = [("get", tally.get), ("get_hit", tally.getHit), ("get_miss", tally.getMiss), ("set", tally.set)]
        for (prefix, summary) in summaries {
            guard let summary else { continue }
            values["\(prefix)_p50_ns"] = Double(summary.p50)
            values["\(prefix)_p90_ns"] = Double(summary.p90)
            values["\(prefix)_p99_ns"] = Double(summary.p99)
            values["\(prefix)_p999_ns"] = Double(summary.p999)
            values["\(prefix)_max_ns"] = Double(summary.max)
        }
        values["throughput_rps"] = tally.throughput
        values["wall_s"] = tally.wallSeconds
        return values
    }

    /// The median of `values` (the mean of the middle two for an even count).
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func median(_ summaries: [LatencySummary?]) -> LatencySummary? {
        let present = summaries.compactMap { $0 }
        guard present.count == summaries.count, var result = present.first else { return nil }
        func middle(_ field: KeyPath<LatencySummary, UInt64>) -> UInt64 { UInt64(median(present.map { Double($0[keyPath: field]) }).rounded()) }
        result.p50 = middle(\.p50)
        result.p90 = middle(\.p90)
        result.p99 = middle(\.p99)
        result.p999 = middle(\.p999)
        result.max = middle(\.max)
        result.mean = median(present.map(\.mean))
        return result
    }

    /// The row's tally (the first replay's counts, the median timing figures) and, for
    /// more than one replay, the spread.
    static func combine(_ tallies: [ReplayTally]) -> (ReplayTally, RepeatSpread?) {
        guard tallies.count > 1 else { return (tallies[0], nil) }
        var tally = tallies[0]
        tally.get = median(tallies.map(\.get))
        tally.getHit = median(tallies.map(\.getHit))
        tally.getMiss = median(tallies.map(\.getMiss))
        tally.set = median(tallies.map(\.set))
        tally.wallSeconds = median(tallies.map(\.wallSeconds))
        var spread = RepeatSpread(repeats: tallies.count)
        spread.disagreements = tallies.dropFirst().filter { $0.hits != tally.hits || $0.hitBytes != tally.hitBytes }.count
        let figures = tallies.map(figures)
        for column in columns {
            let values = figures.compactMap { $0[column] }
            guard values.count == tallies.count, let low = values.min(), let high = values.max() else { continue }
            spread.ranges[column] = (low, high)
        }
        return (tally, spread)
    }
}
