import WorkbenchCore
import WorkbenchTraces
/// Misses an admissioner let through and turned away (the `admitted` and `rejected`
/// columns), from the moment counting starts (after a warm-up).
public struct AdmissionCounts: Sendable, Equatable {
    public var admitted = 0
    public var rejected = 0

    public init(admitted: Int = 0, rejected: Int = 0) {
        self.admitted = admitted
        self.rejected = rejected
    }

    /// The counts since `start` (the warm-up's end).
    package func since(_ start: AdmissionCounts?) -> AdmissionCounts {
        AdmissionCounts(admitted: admitted - (start?.admitted ?? 0), rejected: rejected - (start?.rejected ?? 0))
    }
}
