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
/// impossible figures, is ignored (and rewritten), never trusted.
///
/// Writes go through `OutputFile` (a temporary file made exclusively inside the folder,
/// renamed into place); the two folders are made by the workbench (mode 0700) and used
/// only when they are real directories owned by this user, not links. A cache that
/// cannot be written is said (`store` returns why) and the command goes on without it.
///
/// Complexity: `load` and `store` are O(1): one small file.
public struct TraceFactsCache: Sendable {
    /// The folder the entries are in.
    public let folder: String
    /// How the trace is read: part of the entry's name and checked on load.
    static let version = 1

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
    static func reading(_ file: TraceFile) -> String {
        ([file.format.name, "skip-bad=\(file.skipBadRows)"] + file.formatOptions.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
            .joined(separator: "\n")
    }

    private func entryPath(_ identity: TraceFileIdentity, reading: String) -> String {
        folder + "/" + SHA256Digest.hex("v\(Self.version)\n\(identity.key)\n\(reading)") + ".json"
    }

    /// The kept facts of this file version read this way, or nil (none, unreadable, or not
    /// valid: an entry is only trusted when every check passes).
    public func load(_ identity: TraceFileIdentity, reading: String) -> TraceFacts? {
        guard usableFolder() else { return nil }
        let descriptor = open(entryPath(identity, reading: reading), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= Self.entryLimit,
              let data = try? handle.read(upToCount: Self.entryLimit + 1),
              let entry = try? JSONDecoder().decode(Entry.self, from: data) else { return nil }
        return entry.facts(for: identity, reading: reading)
    }

    /// Keeps `facts`; returns why it could not, or nil.
    public func store(_ facts: TraceFacts, reading: String) -> String? {
        guard makeFolder() else { return "the trace facts cache \(folder) could not be made or is not a folder of this user's; nothing kept" }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(Entry(facts, reading: reading))
            try OutputFile.write([UInt8](data), to: entryPath(facts.identity, reading: reading))
            return nil
        } catch {
            return "the trace facts could not be kept in \(folder): \(error)"
        }
    }

    /// An entry is a few hundred bytes; anything larger is not one.
    static let entryLimit = 1 << 16

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

    /// The file's text: the facts with the identity and reading they belong to.
    struct Entry: Codable {
        var version: Int
        var identity: TraceFileIdentity
        var reading: String
        var sha256: String
        var requests: Int
        var droppedZeroSize: Int
        var uniqueKeys: Int
        /// A decimal: `ByteTotal` is 128 bits wide.
        var workingSetBytes: String
        var largestSize: Int
        var computed: Double

        init(_ facts: TraceFacts, reading: String) {
            version = TraceFactsCache.version
            identity = facts.identity
            self.reading = reading
            sha256 = facts.sha256
            requests = facts.summary.requests
            droppedZeroSize = facts.summary.droppedZeroSize
            uniqueKeys = facts.summary.uniqueKeys
            workingSetBytes = String(facts.summary.workingSetBytes)
            largestSize = facts.summary.largestSize
            computed = facts.computed
        }

        /// The facts, when the entry is of this version, names this file and reading, and
        /// its figures are possible (a digest of 64 hex digits; counts that fit each other:
        /// a working set of at least one byte per key and at most the largest size per key).
        func facts(for wanted: TraceFileIdentity, reading wantedReading: String) -> TraceFacts? {
            guard version == TraceFactsCache.version, identity == wanted, reading == wantedReading,
                  sha256.utf8.count == 64, sha256.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
                  requests >= 0, droppedZeroSize >= 0, droppedZeroSize <= requests, uniqueKeys >= 0, uniqueKeys <= requests - droppedZeroSize,
                  largestSize >= 0, computed.isFinite,
                  let workingSet = ByteTotal(workingSetBytes), workingSet >= ByteTotal(uniqueKeys),
                  workingSet <= ByteTotal(uniqueKeys) * ByteTotal(largestSize),
                  (uniqueKeys == 0) == (largestSize == 0)
            else { return nil }
            var summary = TraceSummary()
            summary.requests = requests
            summary.droppedZeroSize = droppedZeroSize
            summary.uniqueKeys = uniqueKeys
            summary.workingSetBytes = workingSet
            summary.largestSize = largestSize
            return TraceFacts(identity: identity, sha256: sha256, summary: summary, computed: computed)
        }
    }
}
