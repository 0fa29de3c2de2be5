import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Facts about a whole trace that a replay needs before it starts: the working set that
/// `%` capacities are shares of (unique keys × their first size, DESIGN.md rule 6).
public struct TraceSummary: Sendable, Equatable {
    public var requests = 0
    public var droppedZeroSize = 0
    public var uniqueKeys = 0
    /// Sum over unique keys of the cost of their first (non-zero-size) request.
    public var workingSetBytes: ByteTotal = 0
    /// The largest single request's size (bytes; 1 with `ignoreObjectSize`).
    public var largestSize = 0

    public init() {}

    /// One streaming pass; memory grows with unique keys, not with requests.
    /// With `ignoreObjectSize` every object counts 1, so the working set is the unique keys.
    public static func scan(
        _ trace: any Trace, costModel: CostModel, rules: PixelCostRules = PixelCostRules(), ignoreObjectSize: Bool = false
    ) throws -> TraceSummary {
        try summarize(trace.open(keepKeyNames: false), costModel: costModel, rules: rules, ignoreObjectSize: ignoreObjectSize)
    }

    /// `scan` of an opened source (`TraceFacts.scan` opens it with its byte tap set).
    static func summarize(
        _ source: any RequestSource, costModel: CostModel, rules: PixelCostRules = PixelCostRules(), ignoreObjectSize: Bool = false
    ) throws -> TraceSummary {
        let accumulator = Accumulator(costModel: costModel, rules: rules, ignoreObjectSize: ignoreObjectSize)
        while let chunk = try source.nextChunk() {
            try Interruption.check()  // a safe point: a scan of a large trace takes a while
            accumulator.add(chunk)
        }
        return accumulator.summary
    }

    /// The summary's rules, applied a chunk at a time: by `summarize`, and beside a replay
    /// that reads the trace anyway (`TraceFactsPass`), so the one read gives both. O(1)
    /// amortized per request; memory grows with unique keys.
    final class Accumulator: @unchecked Sendable {
        private var counted = TraceSummary()
        // An id set on the policy backends' open-addressing index: Set<UInt64> hashes with
        // SipHash and was most of a scan's time.
        private var seen = IdIndex()
        let costModel: CostModel
        let rules: PixelCostRules
        let ignoreObjectSize: Bool

        init(costModel: CostModel, rules: PixelCostRules = PixelCostRules(), ignoreObjectSize: Bool = false) {
            (self.costModel, self.rules, self.ignoreObjectSize) = (costModel, rules, ignoreObjectSize)
        }

        deinit { seen.deallocate() }

        /// Counts `chunk`'s requests: zero-size ones dropped, the first non-zero size of each
        /// key priced into the working set, the largest size kept.
        func add(_ chunk: ArraySlice<Request>) {
            // Fields through the buffer, not `for request in chunk`: copying each Request
            // retained and released its references, a fifth of a streamed scan's instructions.
            chunk.withUnsafeBufferPointer { requests in
                count(requests) { [costModel, rules] index in ByteTotal(costModel.cost(of: requests[index], rules: rules)) }
            }
        }

        /// Counts key records as `add` counts requests. A record carries the encoded size
        /// alone, which is the encoded cost model's price: for a summary under `.encoded`
        /// (`TraceFactsPass`'s), which is the one that reads them.
        func add(_ records: UnsafeBufferPointer<KeyRecord>) {
            count(records) { index in ByteTotal(records[index].size) }
        }

        /// The rules, once for requests and key records: `cost` prices item `index`.
        @inline(__always)
        private func count<Item: KeyFields>(_ items: UnsafeBufferPointer<Item>, cost: (Int) -> ByteTotal) {
            for index in items.indices {
                let id = items[index].keyID
                let size = items[index].keySize
                counted.requests += 1
                guard size > 0 else {
                    counted.droppedZeroSize += 1
                    continue
                }
                counted.largestSize = max(counted.largestSize, ignoreObjectSize ? 1 : size)
                if seen.find(id) == nil {
                    seen.insert(id, 0)
                    counted.workingSetBytes += ignoreObjectSize ? 1 : cost(index)
                }
            }
        }

        /// The requests added so far, summarized.
        var summary: TraceSummary {
            var summary = counted
            summary.uniqueKeys = seen.count
            return summary
        }
    }

    /// Distinct keys among the first `count` non-zero-size requests (a warm-up): the trace's
    /// unique keys minus these are the replay's compulsory misses. O(count) time, O(their
    /// unique keys) memory; stops reading after them.
    public static func uniqueKeys(_ trace: any Trace, firstRequests count: Int) throws -> Int {
        guard count > 0 else { return 0 }
        let source = try trace.open(keepKeyNames: false)
        var seen = IdIndex()
        defer { seen.deallocate() }
        var left = count
        while left > 0, let chunk = try source.nextChunk() {
            // Fields through the buffer, as `scan` reads them: no Request copied.
            chunk.withUnsafeBufferPointer { requests in
                for index in requests.indices where requests[index].size > 0 {
                    let id = requests[index].id
                    if seen.find(id) == nil { seen.insert(id, 0) }
                    left -= 1
                    if left == 0 { break }
                }
            }
        }
        return seen.count
    }

    /// The non-zero-size requests whose size differs from their key's previous non-zero-size
    /// request's (traceAnalyzer's "requests with a size unlike the previous one"). O(n) time,
    /// O(unique keys) memory.
    public static func sizeChanges(_ trace: any Trace) throws -> Int {
        let source = try trace.open(keepKeyNames: false)
        var last: [UInt64: Int] = [:]
        var changes = 0
        while let chunk = try source.nextChunk() {
            try Interruption.check()
            for request in chunk where request.size > 0 {
                if let previous = last.updateValue(request.size, forKey: request.id), previous != request.size { changes += 1 }
            }
        }
        return changes
    }

    /// The non-zero-size requests (those a replay counts) before the first request at least
    /// `seconds` after the trace's first (a zero-size one included, as libCacheSim starts its
    /// clock at its first request): `--warmup 1h` as `simulate_with_multi_caches` counts it
    /// (`req->clock_time - start_ts < warmup_sec`, profiler/simulator.c:73 at aa0fc40). O(those
    /// requests) time, O(1) memory; stops reading after them.
    public static func requests(_ trace: any Trace, within seconds: Double) throws -> Int {
        let source = try trace.open(keepKeyNames: false)
        var start: Double?
        var count = 0
        while let chunk = try source.nextChunk() {
            let ended = chunk.withUnsafeBufferPointer { requests in
                for index in requests.indices {
                    let time = requests[index].time
                    if start == nil { start = time }
                    if time - start! >= seconds { return true }
                    if requests[index].size > 0 { count += 1 }
                }
                return false
            }
            if ended { break }
        }
        return count
    }
}
