import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// PFOO-L (Berger, Beckmann and Harchol-Balter, "Practical Bounds on Optimal Caching with
/// Variable Object Sizes", SIGMETRICS 2018): a size-aware offline bound, not a policy.
///
/// Each pair of consecutive requests for one object is an interval; keeping the object
/// through it costs its cost × the requests in between, and earns a hit at its end. No
/// cache of C bytes can keep more than C × N of that resource over N requests, so:
/// - **hits** — the cheapest intervals taken while their resource fits C × N — are at least
///   the hits of any policy, online or offline, with these costs (a lower bound on the
///   object miss ratio);
/// - **byte hits** — intervals by resource per requested byte, the last one taken in part
///   (a fractional knapsack) — are at least the byte hits of any policy (a lower bound on
///   the byte miss ratio).
/// The two figures come from different interval sets, and no real cache reaches either:
/// the bound ignores that objects must be loaded whole and that space is per instant, not
/// shared over time. Objects larger than the capacity never hit; warm-up requests cost
/// resource like the rest but their hits are not counted. Belady (`belady`) bounds misses
/// only for unit sizes; with sizes use this.
///
/// The replay records each request (get answers false), then the bound is computed.
/// Complexity: O(n) per request recorded; O(n log n) at the end (two sorts); 40 bytes
/// per request.
final class PFOOLowerBound: CacheBackend {
    static var needsKeyNames: Bool { false }
    static var holdsPayloads: Bool { false }
    /// It reads the whole trace at `close` (sorts of every request): an offline bound.
    static var isOfflineBound: Bool { true }

    let capacity: Int
    private var ids: [UInt64] = []
    /// The replayed cost, or -1 when the object was not offered (larger than the capacity).
    private var costs: [Int] = []
    /// What a hit adds to the byte count (the size, or 1 under --ignore-obj-size).
    private var sizes: [Int] = []
    private var ignoreObjectSize = false

    init(capacity: Int) { self.capacity = capacity }

    var facts: BackendFacts { BackendFacts(entries: 0, accountedBytes: 0, evictions: 0) }
    var settings: String { "" }

    func get(_ request: Request) -> Bool {
        ids.append(request.id)
        costs.append(-1)
        sizes.append(ignoreObjectSize ? 1 : request.size)
        return false
    }

    func set(_ request: Request, cost: Int, payload: Payload?) {
        if let last = ids.indices.last, ids[last] == request.id { costs[last] = cost }
    }

    func remove(_ request: Request) {}
    func didReceiveMemoryWarning() -> Int { 0 }

    /// Its bound is computed after the last request, in `specializedReplay(with:)`.
    static var needsWholeReplay: Bool { true }

    func specializedReplay(with replayer: Replayer) throws -> ReplayTally {
        ignoreObjectSize = replayer.options.ignoreObjectSize
        var tally = try replayer.replay(self)
        guard tally.failure == nil else { return tally }
        let bound = Self.bound(ids: ids, costs: costs, sizes: sizes, capacity: capacity, warmup: tally.warmupRequests)
        tally.hits = bound.hits
        tally.hitBytes = bound.hitBytes
        return tally
    }

    /// The bound over recorded requests; hits at positions below `warmup` are not counted
    /// (and their intervals not taken).
    static func bound(ids: [UInt64], costs: [Int], sizes: [Int], capacity: Int, warmup: Int) -> (hits: Int, hitBytes: ByteTotal) {
        // Intervals (their end) with the resource they take, and that per byte a hit earns.
        var intervals: [(resource: ByteTotal, end: Int, perByte: Double)] = []
        var last: [UInt64: Int] = [:]
        for position in ids.indices {
            if let start = last[ids[position]], position >= warmup, costs[start] >= 0 {
                let resource = ByteTotal(costs[start]) * ByteTotal(position - start)
                intervals.append((resource, position, resource.asDouble / Double(max(1, sizes[position]))))
            }
            last[ids[position]] = position
        }
        let budget = ByteTotal(capacity) * ByteTotal(ids.count)
        var hits = 0
        var used: ByteTotal = 0
        intervals.sort { $0.resource < $1.resource }
        for interval in intervals {
            guard used + interval.resource <= budget else { break }
            used += interval.resource
            hits += 1
        }
        // Byte hits: by resource per byte earned; the last interval counts in part.
        intervals.sort { $0.perByte < $1.perByte }
        var hitBytes: ByteTotal = 0
        used = 0
        for interval in intervals {
            let size = ByteTotal(sizes[interval.end])
            if used + interval.resource <= budget {
                used += interval.resource
                hitBytes += size
                continue
            }
            let share = (budget - used).asDouble / interval.resource.asDouble
            hitBytes += ByteTotal((share * size.asDouble).rounded(.up))
            break
        }
        return (hits, hitBytes)
    }
}
