import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// What libCacheSim's traceAnalyzer computes about a trace (`bench analyze`), in one pass
/// over the requests, with its rules so figures compare cell by cell (docs/analyze.md):
/// times are whole seconds since the first request (a fractional time is floored, as
/// libCacheSim's readers store `clock_time` as an integer); an object's size is the size
/// of its latest request; windows are `window` seconds long and start at the first request.
///
/// A trace whose time goes backwards (a request earlier than the one before it) is
/// counted (`timeBackwardsRows`) and read by rules that keep every figure non-negative:
/// times count from the earliest request (the first one in an ordered trace, so ordered
/// traces keep traceAnalyzer's figures); the span is the latest time minus the earliest;
/// windows advance with the latest time seen, a request earlier than its window counted in
/// it; a re-request earlier than the object's previous request has reuse time 0
/// (`reuseTimesClamped` of them).
///
/// Memory O(objects + requests) (the stack distances need a tree over request positions);
/// time O(n log n).
public struct TraceAnalysis: Sendable {
    /// Nothing counted yet; `analyze` adds the trace. O(1).
    package init() {}

    public var requests = 0
    public var objects = 0
    /// Sum of every request's size, and of every object's first-request size.
    public var requestBytes: ByteTotal = 0
    public var objectBytes: ByteTotal = 0
    /// The earliest request's time (whole seconds), and the span: the latest time minus
    /// the earliest, never negative.
    public var startTime = 0
    public var endTime = 0
    /// Requests earlier than the request before them (time goes backwards there).
    public var timeBackwardsRows = 0
    /// Re-requests earlier than the object's previous request: reuse time counted as 0.
    public var reuseTimesClamped = 0
    /// `xHit[k]` = objects requested exactly k + 1 times, for k < `trackedHits`.
    public var xHit: [Int] = []
    /// Request counts of the most popular objects, most popular first.
    public var mostPopular: [Int] = []
    /// Object frequency → number of objects with it (the Zipf plot's data).
    public var frequencyCounts: [Int: Int] = [:]
    public var zipf: Result<ZipfFit, ZipfFitRefusal> = .failure(.tooFewObjects(0))
    /// Re-requests by time since the previous request for the object: seconds / 5
    /// (traceAnalyzer's `rtime_granularity_`), and `LogBins` of the request count.
    public var reuseSeconds: [Int: Int] = [:]
    public var reuseRequests: [Int: Int] = [:]
    /// Re-requests by stack distance (distinct other objects between the two requests):
    /// `LogBins` of the distance, with distance 0 under key -1.
    public var reuseDistance: [Int: Int] = [:]
    /// Object size → requests of that size, and objects whose first request had that size.
    public var sizeRequests: [Int: Int] = [:]
    public var sizeObjects: [Int: Int] = [:]
    /// Objects whose size differs between two of their requests, and such requests.
    public var objectsWithSizeChange = 0
    public var requestsWithSizeChange = 0
    public var windows: [TraceWindow] = []
    public var scans = ScanSummary()
    public var window = 300
    /// traceAnalyzer's popularity decay (`PopularityDecay`).
    public var popularityDecay = PopularityDecay(window: 300, warmup: PopularityDecay.defaultWarmup)

    public static let rtimeGranularity = 5
    public static let trackedHits = 8
    public static let trackedPopular = 8

    public var compulsoryMissRatio: Double { requests == 0 ? 0 : Double(objects) / Double(requests) }
    public var byteCompulsoryMissRatio: Double { requestBytes == 0 ? 0 : Double(objectBytes) / Double(requestBytes) }
    public var oneHitWonders: Int { xHit.first ?? 0 }

    private struct ObjectState {
        var frequency: Int
        var size: Int
        var lastTime: Int
        var lastIndex: Int
        var sizeChanged: Bool
        /// When it was first requested (seconds from the trace's first request).
        var created: Int
    }

    public static func compute(_ trace: any Trace, window: Int = 300, scanLength: Int = ScanSummary.defaultLength,
                               decayWarmup: Int = PopularityDecay.defaultWarmup) throws -> TraceAnalysis {
        try compute(requests: InMemoryTrace.load(trace, keepKeyNames: false).requests, window: window, scanLength: scanLength, decayWarmup: decayWarmup)
    }

    /// Most windows a trace may span: each one, even empty, is a row (as in traceAnalyzer).
    public static let maximumWindows = 10_000_000

    public static func compute(requests list: [Request], window: Int = 300, scanLength: Int = ScanSummary.defaultLength,
                               decayWarmup: Int = PopularityDecay.defaultWarmup) throws -> TraceAnalysis {
        try PopularityDecay.check(warmup: decayWarmup, window: window)
        var analysis = TraceAnalysis()
        analysis.window = window
        var decay = PopularityDecay(window: window, warmup: decayWarmup)
        analysis.popularityDecay = decay
        guard let first = list.first else { return analysis }
        // O(n): the earliest and latest time, and the rows where time goes backwards.
        var earliest = wholeSeconds(first.time), last = earliest, previous = first.time
        for request in list {
            let time = wholeSeconds(request.time)
            earliest = min(earliest, time)
            last = max(last, time)
            if request.time < previous { analysis.timeBackwardsRows += 1 }
            previous = request.time
        }
        analysis.startTime = earliest
        analysis.endTime = last - earliest
        // Both ends are within ±2e18, so the span (and every difference below) fits an Int.
        guard (last - analysis.startTime) / window < maximumWindows else {
            throw WorkbenchError("--window \(window): the trace spans \(last - analysis.startTime) s, over \(maximumWindows) windows; give a longer --window")
        }
        var states: [UInt64: ObjectState] = [:]
        var windows = WindowCounter(length: window)
        var scans = ScanDetector(minimumLength: scanLength)
        let tree = PrefixSumTree(count: list.count)
        defer { tree.deallocate() }
        for (index, request) in list.enumerated() {
            let time = wholeSeconds(request.time) - analysis.startTime
            analysis.requests += 1
            analysis.requestBytes += ByteTotal(request.size)
            analysis.sizeRequests[request.size, default: 0] += 1
            let firstInWindow: Bool
            let firstEver = states[request.id] == nil
            if var state = states[request.id] {
                // analyzer.cpp: first seen in window compares window indexes time / window.
                firstInWindow = state.lastTime / window != time / window
                decay.add(time: time, created: state.created, firstInWindow: firstInWindow)
                if time < state.lastTime { analysis.reuseTimesClamped += 1 }
                analysis.reuseSeconds[max(0, time - state.lastTime) / rtimeGranularity, default: 0] += 1
                analysis.reuseRequests[LogBins.bin(index - state.lastIndex), default: 0] += 1
                // Each object marks only its latest position, so the marks after the
                // previous one count the distinct objects seen since.
                let distance = tree.sum(from: state.lastIndex + 1, to: index - 1)
                analysis.reuseDistance[distance == 0 ? -1 : LogBins.bin(distance), default: 0] += 1
                tree.add(state.lastIndex, -1)
                if state.size != request.size {
                    analysis.requestsWithSizeChange += 1
                    if !state.sizeChanged { analysis.objectsWithSizeChange += 1 }
                    state.sizeChanged = true
                }
                state.frequency += 1
                state.size = request.size
                state.lastTime = time
                state.lastIndex = index
                states[request.id] = state
                scans.add(firstRequest: false)
            } else {
                firstInWindow = true
                states[request.id] = ObjectState(frequency: 1, size: request.size, lastTime: time, lastIndex: index, sizeChanged: false, created: time)
                decay.add(time: time, created: time, firstInWindow: true)
                analysis.objectBytes += ByteTotal(request.size)
                analysis.sizeObjects[request.size, default: 0] += 1
                scans.add(firstRequest: true)
            }
            tree.add(index, 1)
            windows.add(time: time, size: request.size, firstInWindow: firstInWindow, firstEver: firstEver)
        }
        analysis.objects = states.count
        analysis.windows = windows.finish()
        analysis.scans = scans.finish()
        let frequencies = states.values.map(\.frequency)
        analysis.xHit = Array(repeating: 0, count: trackedHits)
        for frequency in frequencies {
            analysis.frequencyCounts[frequency, default: 0] += 1
            if frequency <= trackedHits { analysis.xHit[frequency - 1] += 1 }
        }
        analysis.mostPopular = Array(frequencies.sorted(by: >).prefix(trackedPopular))
        analysis.zipf = ZipfFit.fit(frequencies: frequencies)
        analysis.popularityDecay = decay
        return analysis
    }

    /// libCacheSim's readers keep whole seconds; floor, and clamp to ±2e18 s (far beyond
    /// any real trace) so differences of two times cannot overflow.
    static func wholeSeconds(_ time: Double) -> Int {
        guard time.isFinite else { return 0 }
        return Int(max(min(time.rounded(.down), 2.0e18), -2.0e18))
    }
}
