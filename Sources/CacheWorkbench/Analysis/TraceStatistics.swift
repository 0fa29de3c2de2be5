import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// What a trace looks like before any cache sees it (`bench stats`): volume, unique keys,
/// working set, object sizes, one-hit wonders, reuse distances and image dimensions.
///
/// Reuse distance is the stack distance: the number of distinct other keys requested
/// between two requests for the same key (what an LRU cache of that many objects needs
/// to hit). Computed exactly with a prefix-sum tree over request positions: O(n log n) time,
/// O(n) memory.
public struct TraceStatistics: Sendable {
    public var requests = 0
    public var uniqueKeys = 0
    public var totalBytes: ByteTotal = 0
    /// Sum over unique keys of the size of their first request.
    public var workingSetBytes: ByteTotal = 0
    public var firstTime: Double?
    public var lastTime: Double?
    /// Request sizes: p50, p90, p99, max (bytes).
    public var sizePercentiles: [(label: String, value: Int)] = []
    /// Keys requested exactly once, as a share of unique keys.
    public var oneHitWonderShare = 0.0
    /// Stack distances of the re-requests: p50, p90, p99, max (distinct keys).
    public var reuseDistancePercentiles: [(label: String, value: Int)] = []
    /// Share of requests that are re-requests (the best any cache can hit).
    public var reuseShare = 0.0
    public var operations: [String: Int] = [:]
    /// Most common width×height, and the number of requests without dimensions.
    public var dimensions: [(dimension: String, requests: Int)] = []
    public var withoutDimensions = 0
    /// A HAR's pages, runs, views, per-view ceilings and clock skew (`HARSessionSummary`),
    /// and how it was read (`HARReading.notes`); empty for other formats.
    public var sessionLines: [String] = []
    /// A HAR with two or more independent runs (`HARSessionSummary`): over its first views,
    /// re-requests within a run and across runs; nil otherwise.
    public var runCeilings: (runs: Int, requests: Int, withinRun: Int, acrossRuns: Int)?
    /// An app recording's own facts (`AppRecordingFacts.statisticsLines`); nil for other formats.
    public var recording: AppRecordingFacts?

    public static func compute(_ trace: any Trace) throws -> TraceStatistics {
        let requests = try InMemoryTrace.load(trace, keepKeyNames: false).requests
        var stats = TraceStatistics()
        stats.requests = requests.count
        stats.firstTime = requests.first?.time
        stats.lastTime = requests.last?.time
        var lastSeen: [UInt64: Int] = [:]
        var counts: [UInt64: Int] = [:]
        var dimensions: [UInt64: Int] = [:]
        var distances: [Int] = []
        var sizes: [Int] = []
        sizes.reserveCapacity(requests.count)
        let tree = PrefixSumTree(count: requests.count)
        defer { tree.deallocate() }
        for (index, request) in requests.enumerated() {
            stats.totalBytes += ByteTotal(request.size)
            sizes.append(request.size)
            stats.operations[request.operation.name, default: 0] += 1
            if request.hasDimensions {
                dimensions[UInt64(request.width) << 32 | UInt64(request.height), default: 0] += 1
            } else {
                stats.withoutDimensions += 1
            }
            counts[request.id, default: 0] += 1
            if let previous = lastSeen[request.id] {
                // Each key marks only its latest position, so the marks after `previous`
                // count the distinct keys seen since.
                distances.append(tree.sum(from: previous + 1, to: index - 1))
                tree.add(previous, -1)
            } else {
                stats.workingSetBytes += ByteTotal(request.size)
            }
            tree.add(index, 1)
            lastSeen[request.id] = index
        }
        stats.uniqueKeys = counts.count
        stats.oneHitWonderShare = counts.isEmpty ? 0 : Double(counts.values.filter { $0 == 1 }.count) / Double(counts.count)
        stats.reuseShare = requests.isEmpty ? 0 : Double(distances.count) / Double(requests.count)
        stats.sizePercentiles = percentiles(sizes)
        stats.reuseDistancePercentiles = percentiles(distances)
        if let file = trace as? TraceFile, file.format.name == "har" { (stats.sessionLines, stats.runCeilings) = try harSessionLines(file) }
        if let file = trace as? TraceFile, file.format.name == "app-recording" {
            let facts = try AppRecordingReader.facts(path: file.path, options: ReadOptions(
                keepKeyNames: false, skipBadRows: file.skipBadRows, formatOptions: file.formatOptions, maxLineBytes: file.maxLineBytes))
            stats.recording = facts
            stats.sessionLines = facts.statisticsLines
        }
        stats.dimensions = dimensions.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(10).map {
            ("\($0.key >> 32)×\($0.key & 0xFFFF_FFFF)", $0.value)
        }
        return stats
    }

    /// The session summary reads every view; the notes describe the views this reading kept.
    static func harSessionLines(_ file: TraceFile) throws -> ([String], (runs: Int, requests: Int, withinRun: Int, acrossRuns: Int)?) {
        var allViews = try HARFilter(file.formatOptions)
        allViews.view = .all
        let data = try HARTraceReader.readAll(file.path)
        let summary = HARSessionSummary(try HARTraceReader.read(data, path: file.path, filter: allViews, keepKeyNames: false, skipBad: file.skipBadRows))
        let filter = try HARFilter(file.formatOptions)
        let reading = try HARTraceReader.read(data, path: file.path, filter: filter, keepKeyNames: false, skipBad: file.skipBadRows)
        let ceilings: (runs: Int, requests: Int, withinRun: Int, acrossRuns: Int)? = summary.independentRuns >= 2
            ? (summary.independentRuns, summary.firstViewRequests, summary.withinRunReRequests, summary.acrossRunReRequests) : nil
        return (summary.lines + reading.notes(view: filter.view, order: filter.pageOrder).map { "note: " + $0 }, ceilings)
    }

    static func percentiles(_ values: [Int]) -> [(label: String, value: Int)] {
        guard !values.isEmpty else { return [] }
        let sorted = values.sorted()
        func at(_ share: Double) -> Int { sorted[min(sorted.count - 1, Int(Double(sorted.count) * share))] }
        return [("p50", at(0.5)), ("p90", at(0.9)), ("p99", at(0.99)), ("max", sorted.last!)]
    }

    public func text(label: String) -> String {
        func percent(_ value: Double) -> String { String(format2: value * 100) + "%" }
        var lines = ["trace \(label)"]
        lines.append("requests            \(requests)")
        lines.append("unique keys         \(uniqueKeys)")
        lines.append("bytes requested     \(totalBytes) (\(ByteCount.format(totalBytes)))")
        lines.append("working set         \(workingSetBytes) (\(ByteCount.format(workingSetBytes)))")
        // To the millisecond: a difference of two doubles prints float noise otherwise.
        if let firstTime, let lastTime { lines.append("time span           \(String(format: "%.3f", lastTime - firstTime)) s") }
        lines.append("operations          " + operations.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        lines.append("object size         " + sizePercentiles.map { "\($0.label) \(ByteCount.format($0.value))" }.joined(separator: ", "))
        lines.append("one-hit wonders     \(percent(oneHitWonderShare)) of unique keys")
        // Across independent runs a re-request is a later page load's, which a cache emptied per run never sees.
        lines.append("re-requests         \(percent(reuseShare)) of requests (" + (runCeilings == nil ? "the most any cache can hit)" : "the most a cache can hit if runs are replayed as visits of one user; within a run and across runs apart below)"))
        lines.append("reuse distance      " + (reuseDistancePercentiles.isEmpty ? "none (no key is requested twice)"
            : reuseDistancePercentiles.map { "\($0.label) \($0.value)" }.joined(separator: ", ") + " distinct keys between re-requests"))
        if dimensions.isEmpty {
            lines.append("image dimensions    none in this trace")
        } else {
            lines.append("image dimensions    (requests)")
            for entry in dimensions { lines.append("  " + entry.dimension.padding(16) + String(entry.requests)) }
            if withoutDimensions > 0 { lines.append("  " + "none".padding(16) + String(withoutDimensions)) }
        }
        lines += sessionLines
        return lines.joined(separator: "\n") + "\n"
    }
}
