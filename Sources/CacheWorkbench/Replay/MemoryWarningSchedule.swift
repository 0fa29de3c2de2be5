import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// When the replayer delivers simulated memory warnings (`--memory-warning`).
public enum MemoryWarningSchedule: Sendable, Equatable, CustomStringConvertible {
    /// After every N replayed requests.
    case every(Int)
    /// Before the first request at or after each time (seconds after the trace's first
    /// request, so a HAR's epoch timestamps work as well as a trace starting at 0), in order.
    case at([Double])
    /// When the process's allocated heap crosses above this many bytes, as the OS warns
    /// under pressure; re-armed once it falls back below.
    case above(Int)
    /// The app's own warnings, from a recording: each recorded `memory_warning`
    /// (`ReplayOptions.lifecycle`) delivered before the request at its position in the trace
    /// (`RecordedLifecycleEvent.requestsBefore`), exactly by index, never by time.
    case recorded

    /// `every:N`, `at:T1,T2,…`, `above:BYTES` (units as capacities: `above:512MiB`) or
    /// `recorded`.
    public init(parsing text: String) throws {
        if text.trimmingSpaces.lowercased() == "recorded" {
            self = .recorded
            return
        }
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2 else {
            throw WorkbenchError("memory warning '\(text)': expected every:N, at:T1,T2,…, above:BYTES or recorded")
        }
        switch parts[0].lowercased() {
        case "every":
            guard let count = Int(parts[1]), count > 0 else {
                throw WorkbenchError("memory warning '\(text)': every takes a whole number of requests above 0")
            }
            self = .every(count)
        case "at":
            let times = parts[1].split(separator: ",").map { Double(String($0).trimmingSpaces) }
            guard !times.isEmpty, times.allSatisfy({ $0 != nil && $0!.isFinite }) else {
                throw WorkbenchError("memory warning '\(text)': at takes trace times in seconds, comma-separated")
            }
            self = .at(times.map { $0! }.sorted())
        case "above":
            guard case .bytes(let bytes) = try Capacity(parsing: parts[1]) else {
                throw WorkbenchError("memory warning '\(text)': above takes bytes (512MiB), not a share")
            }
            self = .above(bytes)
        default:
            throw WorkbenchError("memory warning '\(text)': expected every:N, at:T1,T2,…, above:BYTES or recorded")
        }
    }

    public var description: String {
        switch self {
        case .every(let count): return "every:\(count)"
        case .at(let times): return "at:" + times.map { String($0) }.joined(separator: ",")
        case .above(let bytes): return "above:\(bytes)"
        case .recorded: return "recorded"
        }
    }
}

/// One delivered warning and how the cache fared around it.
public struct MemoryWarningEvent: Sendable, Equatable {
    /// Requests replayed before the warning.
    public var requestIndex: Int
    public var traceTime: Double
    /// Accounted cost the backend released.
    public var releasedBytes: Int
    public var allocatedBefore: Int?
    public var allocatedAfter: Int?
    /// Object hit ratio over the window before and after (nil until that window is full).
    public var hitRatioBefore: Double?
    public var hitRatioAfter: Double?
}

/// A row of the `--timeline` CSV.
public struct TimelineSample: Sendable, Equatable {
    public var requestIndex: Int
    public var traceTime: Double
    public var accountedBytes: Int
    public var allocatedBytes: Int?
    public var residentBytes: Int?
    /// Hit ratio since the previous sample.
    public var windowHitRatio: Double?
    /// Set on samples taken at a warning: the bytes it released.
    public var warningReleasedBytes: Int?
}
