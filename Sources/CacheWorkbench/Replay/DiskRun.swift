import Foundation

/// Where disk backends keep their files during a run, and whether those stay.
public struct DiskRunOptions: Sendable {
    /// A folder chosen by the user: each disk backend uses `<folder>/<backend>`, reopens
    /// what an earlier run left there (a warm start) and leaves it in place. nil = a fresh
    /// temporary folder per replay.
    public var cacheDirectory: String?
    /// Keep temporary folders after the run (their paths are in the results).
    public var keep = false
    /// Check every hit's bytes.
    public var verify = false
    /// Fault injection for tests: writes fail as on a full disk after this many bytes.
    public var failWritesAfterBytes: Int?

    public init() {}

    /// The folder for one replay of `backend`, and whether the run owns (may remove) it.
    func folder(for backend: String) throws -> (path: String, temporary: Bool) {
        if let cacheDirectory { return ("\(cacheDirectory)/\(backend)", false) }
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/cwb-\(backend)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw DiskError(backend: backend, path: base, reason: "cannot create a temporary folder: \(String(cString: strerror(errno)))")
        }
        return (String(cString: made), true)
    }
}

/// What the disk I/O probe and the footprint say about one replay.
public struct DiskMeasurement: Sendable {
    public var folder: String
    public var kept: Bool
    public var io: DiskIOProbe.Totals
    /// Allocated blocks under the folder after `close()`.
    public var footprintBytes: Int
}
