import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// A plan's identity, written in every row a run of the plan makes (`plan_id`): SHA-256 of
/// the plan as `encoded()` writes it (keys sorted: the revision, the whole command and
/// every point), so two plans that differ anywhere, `--warmup` included, have different
/// identities and `bench merge` refuses to mix their rows. Without the trace facts it
/// carries (`traceFacts`: when and where they were computed is no part of the sweep; the
/// checksum is in every point), so the same sweep planned again has the same identity. A
/// separate file from `SweepPlan.swift` so the plan fuzz target builds without libcrypto.
///
/// Complexity: O(plan size).
extension SweepPlan {
    public func identity() throws -> String {
        var sweep = self
        sweep.traceFacts = nil
        return SHA256Digest.hex(try sweep.encoded())
    }
}
