import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The workbench's own cache of `TraceFacts`: one small JSON file per trace file version
/// and reading, in `$XDG_CACHE_HOME/cacheworkbench/trace-facts/` (default
/// `~/.cache/cacheworkbench/trace-facts/`), never beside the user's trace. An entry is
/// named by the SHA-256 of the file's identity (`TraceFileIdentity`: path, device, inode,
/// size, mtime and ctime in nanoseconds) and how it is read (format, format options,
/// `--skip-bad`), and holds that identity again: a changed file has another name, and an
/// entry whose content does not name this file unchanged, or does not decode, or holds
/// impossible figures, is ignored (and rewritten), never trusted. Each store prunes the
/// entries no command can use again (`prune`: their file gone or changed, damaged, of
/// another version, or beyond the newest 1,000), so the folder does not grow without end.
///
/// Writes go through `OutputFile` (a temporary file made exclusively inside the folder,
/// renamed into place); the two folders are made by the workbench (mode 0700) and used
/// only when they are real directories owned by this user, not links. A cache that
/// cannot be written is said (`store` returns why) and the command goes on without it.
///
/// Complexity: `load` is O(1), one small file; `store` O(entries) with its prune.
public struct TraceFactsCache: Sendable {
    /// The folder the entries are in.
    public let folder: String
    /// An entry as written on disk.
    typealias Entry = TraceFactsEntry

    public init(folder: String) {
        self.folder = folder
    }

    /// The folder under `$XDG_CACHE_HOME` (an absolute path, as the XDG spec requires;
    /// otherwise ignored) or `$HOME/.cache`; nil when neither is set.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> TraceFactsCache? {
        let base: String
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = home + "/.cache"
        } else {
            return nil
        }
        return TraceFactsCache(folder: base + "/cacheworkbench/trace-facts")
    }

    /// How `file` is read, in the entry's name: a summary depends on the reader and its options.
    package static func reading(_ file: TraceFile) -> String {
        ([file.format.name, "skip-bad=\(file.skipBadRows)"] + file.formatOptions.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
            .joined(separator: "\n")
    }

    func entryPath(_ identity: TraceFileIdentity, reading: String) -> String {
        folder + "/" + SHA256Digest.hex("v\(Entry.currentVersion)\n\(identity.key)\n\(reading)") + ".json"
    }

    /// The kept facts of this file version read this way, or nil (none, unreadable, or not
    /// valid: an entry is only trusted when every check passes, `TraceFactsEntry.validated`).
    public func load(_ identity: TraceFileIdentity, reading: String) -> TraceFacts? {
        guard usableFolder(), let entry = readEntry(at: entryPath(identity, reading: reading)) else { return nil }
        return entry.validated(for: identity, reading: reading)?.facts
    }

    /// Keeps `facts`, then prunes the entries no command can use again (`prune`); returns
    /// why it could not keep them, or nil.
    public func store(_ facts: TraceFacts, reading: String) -> String? {
        guard makeFolder() else { return "the trace facts cache \(folder) could not be made or is not a folder of this user's; nothing kept" }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let path = entryPath(facts.identity, reading: reading)
            try OutputFile.write([UInt8](encoder.encode(Entry(facts, reading: reading))), to: path)
            prune(keeping: String(path.dropFirst(folder.count + 1)))
            return nil
        } catch {
            return "the trace facts could not be kept in \(folder): \(error)"
        }
    }

    /// The entry in the regular file at `path` (never through a link), or nil when there is
    /// none, it is too large to be one, or it does not decode.
    private func readEntry(at path: String) -> Entry? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= Entry.sizeLimit,
              let data = try? handle.read(upToCount: Entry.sizeLimit + 1) else { return nil }
        return try? JSONDecoder().decode(Entry.self, from: data)
    }

    /// At most this many entries are kept (about 300 bytes each); the oldest computed go first.
    static let entryLimit = 1_000

    /// Removes, from the cache's own folder, the entries no later command can use: an
    /// entry of another version, one that does not decode or holds impossible figures, one
    /// whose file is gone or is no longer the version it names (an entry's name hashes the
    /// identity, so a changed file never finds it again), and beyond `limit` the oldest.
    /// Only names the cache gives its entries (64 hex digits and `.json`) that are regular
    /// files of this user's are read or removed, by name inside the folder (`unlinkat`), so
    /// nothing outside it and no link target is touched. `keeping` (the entry just written)
    /// stays. Best effort: a name that cannot be removed is left.
    ///
    /// Complexity: O(entries) small reads and one `stat` each; run only after a trace was
    /// read whole to make an entry, so never more than that read's cost.
    func prune(keeping: String, limit: Int = entryLimit) {
        guard usableFolder() else { return }
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else { return }
        defer { close(directory) }
        var live: [(name: String, computed: Double)] = []
        for name in Self.entryNames(in: folder) where name != keeping {
            var info = stat()
            guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == geteuid() else { continue }
            if let entry = readEntry(at: folder + "/" + name), entry.version == Entry.currentVersion, entry.workingSet != nil,
               TraceFileIdentity.of(path: entry.identity.path) == entry.identity {
                live.append((name, entry.computed))
            } else {
                unlinkat(directory, name, 0)
            }
        }
        guard live.count + 1 > limit else { return }
        for old in live.sorted(by: { $0.computed < $1.computed }).prefix(live.count + 1 - max(1, limit)) {
            unlinkat(directory, old.name, 0)
        }
    }

    /// The names in `folder` shaped as the cache names its entries: 64 lowercase hex digits
    /// and `.json`. Anything else (a temporary file being renamed, a user's file) is left.
    static func entryNames(in folder: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.filter { name in
            let bytes = Array(name.utf8)
            return bytes.count == 69 && name.hasSuffix(".json")
                && bytes.prefix(64).allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
        }
    }

    /// Whether the two folders the workbench makes are real directories of this user's.
    private func usableFolder() -> Bool {
        let parent = OutputFile.folderOf(folder)
        return [parent, folder].allSatisfy { path in
            var info = stat()
            return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR && info.st_uid == geteuid()
        }
    }

    /// Makes the cache's base (`~/.cache`) when missing, then its two folders, each 0700.
    private func makeFolder() -> Bool {
        let parent = OutputFile.folderOf(folder)
        for path in [OutputFile.folderOf(parent), parent, folder] {
            if mkdir(path, 0o700) != 0 && errno != EEXIST { return false }
        }
        return usableFolder()
    }
}

extension TraceFactsEntry {
    /// The entry that keeps `facts` of the file version they name, read as `reading` says.
    init(_ facts: TraceFacts, reading: String) {
        self.init(
            version: Self.currentVersion, identity: facts.identity, reading: reading, sha256: facts.sha256, requests: facts.summary.requests,
            droppedZeroSize: facts.summary.droppedZeroSize, uniqueKeys: facts.summary.uniqueKeys,
            workingSetBytes: String(facts.summary.workingSetBytes), largestSize: facts.summary.largestSize, computed: facts.computed)
    }

    /// The facts the entry holds, when its figures are possible; nil otherwise. O(1).
    var facts: TraceFacts? {
        guard let workingSet else { return nil }
        var summary = TraceSummary()
        summary.requests = requests
        summary.droppedZeroSize = droppedZeroSize
        summary.uniqueKeys = uniqueKeys
        summary.workingSetBytes = workingSet
        summary.largestSize = largestSize
        return TraceFacts(identity: identity, sha256: sha256, summary: summary, computed: computed)
    }
}
