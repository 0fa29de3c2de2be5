import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Requests, bytes and objects in one time window (`bench analyze`'s rate over time).
public struct TraceWindow: Sendable, Equatable {
    public var start: Int
    public var requests = 0
    public var bytes: ByteTotal = 0
    /// Objects requested in the window (counted at their first request in it).
    public var objects = 0
    /// Objects requested for the first time in the trace.
    public var newObjects = 0
    /// False for the last window, which the trace ends inside.
    public var complete = true
}

/// Cuts the trace into windows the way traceAnalyzer's reqRate.cpp does, so rates compare
/// cell by cell: a request is counted in the current window *before* the window is closed,
/// so the first request at or after a window's end is counted in the window it closes
/// (reqRate.cpp `ReqRate::add_req`); windows with no request are emitted empty.
/// traceAnalyzer drops the last, unfinished window; here it is kept with `complete = false`.
struct WindowCounter {
    let length: Int
    private var current: TraceWindow
    private var done: [TraceWindow] = []
    private var nextEnd: Int

    init(length: Int) {
        self.length = length
        current = TraceWindow(start: 0)
        nextEnd = length
    }

    /// O(1) amortized (plus one per empty window skipped).
    mutating func add(time: Int, size: Int, firstInWindow: Bool, firstEver: Bool) {
        current.requests += 1
        current.bytes += ByteTotal(size)
        if firstInWindow { current.objects += 1 }
        if firstEver { current.newObjects += 1 }
        while time >= nextEnd {
            done.append(current)
            current = TraceWindow(start: nextEnd)
            nextEnd += length
        }
    }

    func finish() -> [TraceWindow] {
        var last = current
        last.complete = false
        return last.requests == 0 ? done : done + [last]
    }
}
