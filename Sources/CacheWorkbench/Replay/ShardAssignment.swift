import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import HeapModule

/// How a plan's points are split into shards.
///
/// Complexity: `assignment` O(points × log points); `shard` the same.
extension SweepPlan {
    /// The shard of `count` that runs each point: the longest first, each to the shard with
    /// the least estimated work so far (ties: the lower point, the lower shard), so shards
    /// take similar time and every machine computes the same split.
    public func assignment(shards count: Int) -> [Int] {
        struct Load: Comparable {
            var work: Double
            var shard: Int
            static func < (a: Load, b: Load) -> Bool { (a.work, a.shard) < (b.work, b.shard) }
        }
        var loads = Heap((0..<count).map { Load(work: 0, shard: $0) })
        var shardOf = [Int](repeating: 0, count: points.count)
        for point in points.sorted(by: { ($1.estimate, $0.index) < ($0.estimate, $1.index) }) {
            var least = loads.removeMin()
            shardOf[point.index] = least.shard
            least.work += point.estimate
            loads.insert(least)
        }
        return shardOf
    }

    /// The points of shard `index` of `count`, in plan order.
    public func shard(_ index: Int, of count: Int) -> [Int] {
        assignment(shards: count).enumerated().filter { $0.element == index }.map(\.offset)
    }

    /// A point's estimated replay time in seconds on the 2-core development machine: the
    /// backend's `microsecondsPerRequest` (measured release-build rates: `files` 110,
    /// `sqlite` 350, `foundation-urlcache` 5,000; by class otherwise) per request, plus 0.55
    /// ns per byte of capacity for a backend whose payloads are real memory (fresh pages to
    /// fault in: a 5 GiB nscache took 3.2 s where 174 MiB took 0.34 s). Only ratios
    /// matter: it balances shards.
    public static func estimate(_ kind: BackendKind, requests: Int, capacityBytes: Int, materialized: Bool) -> Double {
        let seconds = Double(requests) * kind.microsecondsPerRequest * 1e-6 + (materialized ? Double(capacityBytes) * 0.55e-9 : 0)
        return (seconds * 1e3).rounded(.up) / 1e3  // to the millisecond
    }
}
