import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// How the popularity of new objects fades, as libCacheSim's traceAnalyzer computes it
/// (traceAnalyzer/popularityDecay.cpp, with `create_rtime` and `first_seen_in_window` from
/// analyzer.cpp): after a warm-up of `warmup` seconds (a multiple of the window), objects are
/// grouped by the window they were first requested in. When a window ends, one row is kept:
/// for each creation window since the warm-up, oldest first, how many of its objects were
/// requested in the window that ended (each object once per window). Row k therefore has k + 1
/// cells, its last the window just ended, which is 0 by construction (its objects' first
/// requests are counted in the next row); the last, unfinished window gives no row. Objects
/// first requested during the warm-up are not followed.
///
/// Times are whole seconds from the trace's first request. Complexity: O(1) per request,
/// O(windows²) cells in all.
public struct PopularityDecay: Sendable {
    /// traceAnalyzer's default `--warmup-sec` (bin/traceAnalyzer/cli_parser.cpp).
    public static let defaultWarmup = 86_400

    /// traceAnalyzer refuses a warm-up that is not a whole number of windows (analyzer.h).
    public static func check(warmup: Int, window: Int) throws {
        guard warmup >= 0, window >= 1, warmup % window == 0 else {
            throw WorkbenchError("--decay-warmup must be 0 or more seconds and a multiple of --window (\(window)), not \(warmup)")
        }
    }

    public let window: Int
    public let warmup: Int
    /// Rows kept so far (traceAnalyzer's `.popularityDecay_w<window>_obj` lines).
    public private(set) var rows: [[Int]] = []
    private var counts = [0]
    private var nextWindowEnd: Int?
    private var warmupWindows: Int { warmup / window }

    init(window: Int, warmup: Int) {
        self.window = window
        self.warmup = warmup
    }

    /// One request at `time`, for an object first requested at `created`; `firstInWindow`
    /// when this object was not requested earlier in this window.
    mutating func add(time: Int, created: Int, firstInWindow: Bool) {
        var next = nextWindowEnd ?? time + window
        defer { nextWindowEnd = next }
        if time < warmup {
            while time >= next { next += window }
            return
        }
        let createdWindow = created / window
        guard created >= 0, createdWindow >= warmupWindows else { return }  // created during the warm-up
        while time >= next {
            if next < warmup {  // no request in some windows: jump to the warm-up's end
                next = warmup
                continue
            }
            rows.append(counts)
            counts = Array(repeating: 0, count: counts.count + 1)
            next += window
        }
        // Out-of-order times aside, an object is never created after the current window.
        let column = createdWindow - warmupWindows
        if firstInWindow, column < counts.count { counts[column] += 1 }
    }
}
