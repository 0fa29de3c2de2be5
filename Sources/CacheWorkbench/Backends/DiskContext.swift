import WorkbenchCore
import WorkbenchTraces
/// What a disk backend is given besides its options: the folder it owns, the probe its
/// writes are counted in, and whether hits are checked byte for byte.
public struct DiskContext: Sendable {
    /// The backend's folder; it may already hold a cache from an earlier run (warm start).
    public var directory: String
    public var probe: DiskIOProbe
    /// Check every hit's bytes against `PayloadContent` (`--verify`).
    public var verify: Bool

    public init(directory: String, probe: DiskIOProbe, verify: Bool = false) {
        self.directory = directory
        self.probe = probe
        self.verify = verify
    }
}

extension BackendConfig {
    /// The disk context, which `RunPlan` gives every backend that stores bytes.
    func diskContext(for backend: String) throws -> DiskContext {
        guard let disk else { throw WorkbenchError("\(backend) is a disk backend and needs a folder (DiskContext)") }
        return disk
    }
}
