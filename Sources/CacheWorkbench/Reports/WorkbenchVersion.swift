import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// What `bench --version` prints: the workbench's version and the git revision of the
/// checkout it was built from. The revision is read at run time (`git describe` of the
/// sources next to this binary, `-dirty` for uncommitted changes, as the results' `git_rev`
/// column): SwiftPM cannot embed it at build time without a plugin or a generated file that
/// would dirty the tree. A binary moved away from its checkout says "unknown".
public enum WorkbenchVersion {
    /// Semantic version of the workbench: the CLI, the results columns and the plan format.
    public static let number = "0.1.0"

    public static func text() -> String {
        "bench \(number) (revision \(RunEnvironment.gitDescribe()), Swift \(RunEnvironment.compilerVersion))"
    }
}
