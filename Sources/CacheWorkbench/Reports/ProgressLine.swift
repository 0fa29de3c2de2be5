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

    public func begin(_ label: String) {
        finish()
        self.label = label
    }

    public func update(_ progress: ReplayProgress) {
        guard enabled, progress.elapsedSeconds >= 1 else { return }
        var text = "\r\u{1B}[K\(label): \(progress.requests) requests"
        if let fraction = progress.fraction { text += " (\(Int(fraction * 100))%)" }
        let rate = Double(progress.requests) / max(progress.elapsedSeconds, 1e-9)
        text += ", \(TableReport.rate(rate)) req/s"
        FileDescriptorOutput.write(text, to: 2)
        shown = true
    }

    /// A status line of its own (for steps that are not replays), when stderr is a terminal.
    public func show(_ status: String) {
        guard enabled else { return }
        FileDescriptorOutput.write("\r\u{1B}[K" + status, to: 2)
        shown = true
    }

    public func finish() {
        if shown { FileDescriptorOutput.write("\r\u{1B}[K", to: 2) }
        shown = false
    }
}
