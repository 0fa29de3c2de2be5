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

    /// Refuses a `--cache-dir` with a symbolic link in its path before anything runs (the
    /// rule `CacheFolder.claim` applies to every disk backend's folder, said as an option
    /// error here so that nothing is written anywhere first).
    public func checkCacheDirectory() throws {
        guard let cacheDirectory, let link = LinkInPath.find(in: cacheDirectory) else { return }
        throw WorkbenchError("--cache-dir \(ErrorText.quote(cacheDirectory, limit: 4096)) \(link.reason(for: cacheDirectory))")
    }

    /// The folder for one replay of `backend`.
    func folder(for backend: String) throws -> Folder {
        if let cacheDirectory { return Folder(path: "\(cacheDirectory)/\(backend)", temporary: false) }
        let named = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        // A TMPDIR that is a link (or under one) is resolved once, here, so the folder's
        // path holds no link and the claim's no-link rule holds for it too.
        let base = realpath(named, nil).map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        } ?? named
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
