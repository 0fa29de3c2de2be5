import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
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
    package struct Folder {
        package var path: String
        var temporary: Bool
        /// Under `--cache-dir`: the folders of the path that did not exist before the
        /// replay (the user's folder or its missing parents, and the backend's), outermost
        /// first; those that exist after it are said under the table.
        var missing: [String] = []
    }

    /// Refuses a `--cache-dir` with a symbolic link in its path, or one that is the root or a
    /// system folder (`SystemFolders`), before anything runs (the rules `CacheFolder.claim`
    /// applies to every disk backend's folder, said as an option error here so that nothing
    /// is written anywhere first).
    public func checkCacheDirectory() throws {
        guard let cacheDirectory else { return }
        if let link = LinkInPath.find(in: cacheDirectory) {
            throw WorkbenchError("--cache-dir \(ErrorText.quote(cacheDirectory, limit: 4096)) \(link.reason(for: cacheDirectory))")
        }
        if let refusal = SystemFolders.refusal(cacheDirectory) {
            throw WorkbenchError("--cache-dir \(ErrorText.quote(cacheDirectory, limit: 4096)) \(refusal)")
        }
    }

    /// The folder for one replay of `backend`.
    package func folder(for backend: String) throws -> Folder {
        if let cacheDirectory {
            let path = "\(cacheDirectory)/\(backend)"
            return Folder(path: path, temporary: false, missing: Self.missingFolders(of: path))
        }
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
        let path = String(cString: made)
        Interruption.created(path, folder: true)  // removed at a SIGINT/SIGTERM exit unless released first
        return Folder(path: path, temporary: true)
    }

    /// The folders of `path` that do not exist yet, outermost first (what a claim would
    /// create). O(components), one lstat each.
    static func missingFolders(of path: String) -> [String] {
        var prefixes: [String] = []
        var built = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            built += "/" + part
            prefixes.append(path.hasPrefix("/") ? built : String(built.dropFirst(2)))
        }
        var info = stat()
        return Array(prefixes.drop { lstat($0, &info) == 0 })
    }

    /// Removes a temporary folder unless `keep`; a user's folder always stays.
    package func release(_ folder: Folder) {
        guard folder.temporary else { return }
        defer { Interruption.finished(folder.path) }
        if keep {
            Interruption.kept(folder.path, "a --keep cache folder")
            return
        }
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
    /// Under `--cache-dir`: the folders this replay created (the user's folder or its
    /// missing parents, and the backend's), outermost first; they stay.
    public var createdFolders: [String] = []
}
