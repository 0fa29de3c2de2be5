import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// `--sample-every` and `--warning-window` scaled to a short trace when the user gave
/// neither (issue 21, "short sessions work"). The fixed defaults, 4,096 and 1,000 requests,
/// suit traces of millions of requests; on a HAR of a few hundred no warning window fits
/// and the timeline has one sample, so no reading of a warning is possible.
///
/// The rule, on N = the trace's replayed requests (size above 0, and in `--mode http` a
/// HEAD too; before `--warmup`):
/// - sample every min(4,096, max(1, N / 100)) requests: about 100 samples over the trace;
/// - warning windows of min(1,000, max(1, N / 10)) requests: a tenth of the trace.
/// So the defaults are unchanged from 409,600 requests (sampling) and 10,000 (windows) on,
/// and counting stops there: a long trace costs at most that many rows read. A value the
/// user gave is kept as given.
public struct ShortTraceSampling: Sendable, Equatable {
    public static let defaultSampleEvery = 4_096
    public static let defaultWarningWindow = 1_000
    public static let samplesPerTrace = 100
    public static let windowsPerTrace = 10
    /// Requests past which neither default is scaled: counting stops there.
    public static var countLimit: Int { defaultSampleEvery * samplesPerTrace }

    /// N as counted (at most `countLimit`).
    public var requests: Int
    public var sampleEvery: Int
    public var warningWindow: Int
    /// Which values were scaled (not given, and the trace shorter than the default needs).
    public var scaledSampleEvery: Bool
    public var scaledWarningWindow: Bool

    /// The values to use: the given ones as they are, the others scaled to `requests`.
    public init(requests: Int, sampleEvery: Int?, warningWindow: Int?) {
        self.requests = requests
        let sample = min(Self.defaultSampleEvery, max(1, requests / Self.samplesPerTrace))
        let window = min(Self.defaultWarningWindow, max(1, requests / Self.windowsPerTrace))
        self.sampleEvery = sampleEvery ?? sample
        self.warningWindow = warningWindow ?? window
        scaledSampleEvery = sampleEvery == nil && sample != Self.defaultSampleEvery
        scaledWarningWindow = warningWindow == nil && window != Self.defaultWarningWindow
    }

    /// The replayed requests of `trace` (rule 4 of `Replayer`), counted up to `limit`. O(min(N, limit)).
    public static func countRequests(_ trace: any Trace, httpMode: Bool, upTo limit: Int = countLimit) throws -> Int {
        let source = try trace.open(keepKeyNames: false)
        var count = 0
        while count < limit, let chunk = try source.nextChunk() {
            try Interruption.check()
            for request in chunk where request.size > 0 || (httpMode && request.http?.isHEAD == true) { count += 1 }
        }
        return min(count, limit)
    }

    /// What was chosen, for the note under the table (nil when nothing was scaled, or when
    /// no figure printed depends on it: windows matter with warnings, sampling with a
    /// timeline or warnings).
    public func note(warnings: Bool, timeline: Bool) -> String? {
        var chosen: [String] = []
        if scaledSampleEvery && (warnings || timeline) {
            chosen.append("--sample-every \(sampleEvery) (N/\(Self.samplesPerTrace); \(Self.defaultSampleEvery) from \(Self.countLimit) requests on)")
        }
        if scaledWarningWindow && warnings {
            chosen.append("--warning-window \(warningWindow) (N/\(Self.windowsPerTrace); \(Self.defaultWarningWindow) from \(Self.defaultWarningWindow * Self.windowsPerTrace) requests on)")
        }
        guard !chosen.isEmpty else { return nil }
        return "not given, so scaled to the trace's N = \(requests) replayed requests (before --warmup): " + chosen.joined(separator: " and ")
            + "; give the option to set it"
    }
}
