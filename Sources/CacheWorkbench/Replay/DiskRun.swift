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

    /// A replay's folder, and whether the run made it (and so may remove it).
    struct Folder {
        var path: String
        var temporary: Bool
    }

    /// The folder for one replay of `backend`.
    func folder(for backend: String) throws -> Folder {
        if let cacheDirectory { return Folder(path: "\(cacheDirectory)/\(backend)", temporary: false) }
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/cwb-\(backend)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw DiskError(backend: backend, path: base, reason: "cannot create a temporary folder: \(String(cString: strerror(errno)))")
        }
        return Folder(path: String(cString: made), temporary: true)
    }

    /// Removes a temporary folder unless `keep`; a user's folder always stays.
    func release(_ folder: Folder) {
        guard folder.temporary, !keep else { return }
        try? FileManager.default.removeItem(atPath: folder.path)
    }
}

/// What the disk I/O probe and the footprint say about one replay.
public struct DiskMeasurement: Sendable {
    public var folder: String
    public var kept: Bool
    /// nil when the backend writes through code the probe does not see (`CacheBackend.probesIO`).
    public var io: DiskIOProbe.Totals?
    /// Allocated blocks under the folder after `close()`.
    public var footprintBytes: Int
}
