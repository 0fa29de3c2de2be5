import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Splits `items` over at most `workers` cores, the costliest first onto the least loaded
/// core (longest-processing-time first): how a fanned-out sweep and a curves pass place their
/// simulators. Each item stays on one core, so it sees its requests in order.
///
/// Complexity: O(n log n + n × workers).
package func balancedGroups<Item>(_ items: [Item], workers: Int, cost: (Item) -> Double) -> [[Item]] {
    let count = max(1, min(workers, items.count))
    var groups = [[Item]](repeating: [], count: count)
    var load = [Double](repeating: 0, count: count)
    for item in items.sorted(by: { cost($0) > cost($1) }) {
        let lightest = load.indices.min { load[$0] < load[$1] }!
        groups[lightest].append(item)
        load[lightest] += cost(item)
    }
    return groups
}
