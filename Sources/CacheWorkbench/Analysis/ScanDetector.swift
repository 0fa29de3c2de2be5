import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Scans: maximal runs of at least `minimumLength` consecutive requests that each ask for an
/// object never requested before (a one-pass sweep no cache can help with).
/// traceAnalyzer has a scan detector (experimental/scanDetector.hpp) but its analyzer.cpp
/// never creates it and it needs next-access times, so this rule is the workbench's own.
public struct ScanSummary: Sendable, Equatable {
    public static let defaultLength = 100
    public var minimumLength = defaultLength
    public var runs = 0
    public var requestsInRuns = 0
    public var longestRun = 0
}

struct ScanDetector {
    private var summary: ScanSummary
    private var run = 0

    init(minimumLength: Int) { summary = ScanSummary(minimumLength: minimumLength) }

    /// O(1).
    mutating func add(firstRequest: Bool) {
        if firstRequest { run += 1 } else { close() }
    }

    private mutating func close() {
        if run >= summary.minimumLength {
            summary.runs += 1
            summary.requestsInRuns += run
        }
        summary.longestRun = max(summary.longestRun, run)
        run = 0
    }

    mutating func finish() -> ScanSummary {
        close()
        return summary
    }
}
