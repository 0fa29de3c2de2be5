import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-line progress indicator on stderr, shown only when stderr is a terminal and a
/// replay has run for more than a second (short runs stay quiet).
public final class ProgressLine: @unchecked Sendable {
    private var label = ""
    private var shown = false
    private let enabled: Bool

    public init(enabled: Bool = isatty(2) == 1) {
        self.enabled = enabled
    }

    /// Seconds the points after this one are estimated to take (`PointETA`); nil: no ETA.
    private var secondsAfter: Double?

    public func begin(_ label: String, secondsAfter: Double? = nil) {
        finish()
        self.label = label
        self.secondsAfter = secondsAfter
    }

    public func update(_ progress: ReplayProgress) {
        guard enabled, progress.elapsedSeconds >= 1 else { return }
        var text = "\r\u{1B}[K\(label): \(progress.requests) requests"
        if let fraction = progress.fraction { text += " (\(Int(fraction * 100))%)" }
        let rate = Double(progress.requests) / max(progress.elapsedSeconds, 1e-9)
        text += ", \(TableReport.rate(rate)) req/s"
        // The ETA: this point's remainder at its own pace, then the points after it.
        if let after = secondsAfter, let fraction = progress.fraction, fraction > 0.01 {
            text += ", ETA \(Self.duration(after + progress.elapsedSeconds * (1 - fraction) / fraction))"
        }
        FileDescriptorOutput.write(text, to: 2)
        shown = true
    }

    /// A time left as the progress lines say it: `42s`, `3m07s`, `2h05m`; `?` when unknown.
    package static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        let whole = Int(seconds.rounded())
        return whole >= 3600 ? "\(whole / 3600)h\(whole % 3600 / 60)m" : whole >= 60 ? "\(whole / 60)m\(whole % 60)s" : "\(whole)s"
    }

    /// A status line of its own (for steps that are not replays), when stderr is a terminal.
    public func show(_ status: String) {
        guard enabled else { return }
        FileDescriptorOutput.write("\r\u{1B}[K" + status, to: 2)
        shown = true
    }

    /// A note on stderr (`bench: note: …`), whether or not stderr is a terminal: a fact the
    /// user needs before the run's result (the line in progress is cleared first).
    public func note(_ text: String) {
        finish()
        FileDescriptorOutput.write("bench: note: \(text)\n", to: 2)
    }

    public func finish() {
        if shown { FileDescriptorOutput.write("\r\u{1B}[K", to: 2) }
        shown = false
    }
}
