import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// `--shard I/N` (or `--shard N`, the index from Slurm's `SLURM_ARRAY_TASK_ID` or a
/// Kubernetes Indexed Job's `JOB_COMPLETION_INDEX`).
///
/// Complexity: O(length).
public struct ShardSpec: Equatable, Sendable {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    public static let environmentNames = ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"]
    /// The most shards a sweep is split into.
    public static let largestCount = 1_000_000

    public static func parse(_ text: String, environment: [String: String]) throws -> ShardSpec {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let count = Int(parts[parts.count - 1]), (1...largestCount).contains(count) else {
            throw WorkbenchError("--shard takes I/N (shard I of N, from 0) or N (I from \(environmentNames.joined(separator: " or "))), N from 1 to \(largestCount), not \(ErrorText.quote(text))")
        }
        let indexText: String
        if parts.count == 2 {
            indexText = String(parts[0])
        } else {
            let found = environmentNames.compactMap { name in environment[name].map { (name, $0) } }
            guard let first = found.first else {
                throw WorkbenchError("--shard \(text): no shard index; give I/N, or run as a Slurm array task (SLURM_ARRAY_TASK_ID) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX)")
            }
            guard found.allSatisfy({ $0.1 == first.1 }) else {
                throw WorkbenchError("--shard \(text): \(found.map { "\($0.0)=\($0.1)" }.joined(separator: " and ")) disagree")
            }
            indexText = first.1
        }
        guard let index = Int(indexText), (0..<count).contains(index) else {
            throw WorkbenchError("--shard: the shard index must be from 0 to \(count - 1), not \(ErrorText.quote(indexText))")
        }
        return ShardSpec(index: index, count: count)
    }
}
