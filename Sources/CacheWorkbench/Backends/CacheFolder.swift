import WorkbenchCore
import WorkbenchTraces
#if canImport(Glibc)
import Glibc
#endif

/// A disk backend's folder, claimed so the workbench never touches what it did not make.
///
/// A folder is claimed only when it is new (the workbench creates it), empty, or carries
/// the workbench's marker file (`.cacheworkbench`, whose first line names the folder
/// format). Anything else — a folder holding other files, a symbolic link, a file, an
/// empty path — is refused with an error that names it, before any file is written or
/// removed. The claim holds an exclusive `flock` on the marker for the backend's life, so a
/// second process on the same folder is refused at once instead of corrupting it.
///
/// Complexity: claiming lists the folder once only when it has no marker (to see that it
/// is empty); every later operation is by name.
final class CacheFolder {
    static let markerName = ".cacheworkbench"
    /// The marker's content; a later incompatible layout changes the version.
    static let markerText = "CacheWorkbench cache folder, format 1\n"

    let path: String
    let backend: String
    private var lock: Int32

    private init(path: String, backend: String, lock: Int32) {
        self.path = path
        self.backend = backend
        self.lock = lock
    }

    deinit { release() }

    /// Gives up the lock (the folder and its files stay).
    func release() {
        guard lock >= 0 else { return }
        // Unlocked before the close: a child being spawned on another thread holds a copy of
        // the descriptor until its exec, and a flock lasts while any copy is open.
        flock(lock, LOCK_UN)
        close(lock)
        lock = -1
    }

    private static func failure(_ path: String, _ backend: String, _ reason: String) -> DiskError {
        DiskError(backend: backend, path: path.isEmpty ? "''" : path, reason: reason)
    }

    private static func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    /// Claims `path` for `backend`: creates it (and missing parents) when absent, adopts an
    /// empty folder by writing the marker, reopens a marked one, and refuses anything else.
    static func claim(_ path: String, backend: String) throws -> CacheFolder {
        guard !path.isEmpty else { throw failure(path, backend, "an empty path is not a cache folder") }
        // Before anything is created: a link anywhere in the path would put the folder (and
        // everything written into it) wherever the link points.
        if let link = LinkInPath.find(in: path) { throw failure(path, backend, link.reason(for: path)) }
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT || errno == ENOTDIR else { throw failure(path, backend, "cannot inspect the cache folder: \(errnoText())") }
            try makeParents(of: path, backend: backend)
            guard mkdir(path, 0o755) == 0 else { throw failure(path, backend, "cannot create the cache folder: \(errnoText())") }
            return try adopt(path, backend: backend)
        }
        switch info.st_mode & S_IFMT {
        case S_IFLNK:
            throw failure(path, backend, "is a symbolic link; a cache folder must be a real folder (the workbench never follows a link for one)")
        case S_IFDIR:
            break
        default:
            throw failure(path, backend, "exists and is not a folder")
        }
        let markerPath = path + "/" + markerName
        // O_NONBLOCK: a FIFO or device at the marker's name must not block the open.
        let marker = open(markerPath, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if marker < 0 {
            guard errno == ENOENT else {
                throw failure(markerPath, backend, "cannot open the workbench's marker: \(errnoText())")
            }
            guard try isEmpty(path, backend: backend) else {
                throw failure(path, backend, "holds files the workbench did not make (no \(markerName) marker); name a new or empty folder")
            }
            return try adopt(path, backend: backend)
        }
        var markerInfo = stat()
        let problem = fstat(marker, &markerInfo) == 0 ? FileKind.refusal(markerInfo) : "cannot be inspected: \(errnoText())"
        // A FIFO or device, or a hard link to a file outside, is never the workbench's marker.
        if let problem {
            close(marker)
            throw failure(markerPath, backend, "\(problem); the marker must be the file the workbench wrote")
        }
        var bytes = [UInt8](repeating: 0, count: 256)
        let count = pread(marker, &bytes, bytes.count, 0)
        guard count > 0, String(decoding: bytes.prefix(count), as: UTF8.self) == markerText else {
            close(marker)
            throw failure(markerPath, backend, "the marker names an unknown folder format; this workbench writes '\(markerText.dropLast())'")
        }
        return try locked(path, backend: backend, marker: marker)
    }

    /// Writes the marker into a folder the workbench made or found empty.
    private static func adopt(_ path: String, backend: String) throws -> CacheFolder {
        let markerPath = path + "/" + markerName
        let marker = open(markerPath, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard marker >= 0 else { throw failure(markerPath, backend, "cannot create the workbench's marker: \(errnoText())") }
        let text = Array(markerText.utf8)
        guard write(marker, text, text.count) == text.count else {
            let reason = errnoText()
            close(marker)
            unlink(markerPath)
            throw failure(markerPath, backend, "cannot write the workbench's marker: \(reason)")
        }
        return try locked(path, backend: backend, marker: marker)
    }

    private static func locked(_ path: String, backend: String, marker: Int32) throws -> CacheFolder {
        guard flock(marker, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = errnoText()
            close(marker)
            throw failure(path, backend, busy ? "is in use by another bench process (its lock is held); wait for it or name another folder" : "cannot lock the cache folder: \(reason)")
        }
        return CacheFolder(path: path, backend: backend, lock: marker)
    }

    /// Creates the missing parents of `path` (the user named them; the last component is
    /// the cache folder itself and is created by `claim`).
    private static func makeParents(of path: String, backend: String) throws {
        let parts = path.split(separator: "/").dropLast()
        var built = path.hasPrefix("/") ? "" : "."
        for part in parts {
            built += "/" + part
            if mkdir(built, 0o755) != 0 && errno != EEXIST { throw failure(built, backend, "cannot create folder: \(errnoText())") }
        }
    }

    private static func isEmpty(_ path: String, backend: String) throws -> Bool {
        try names(in: path, backend: backend).isEmpty
    }

    /// The names in `folder` (`.` and `..` left out). Complexity: O(entries).
    static func names(in folder: String, backend: String) throws -> [String] {
        guard let directory = opendir(folder) else { throw failure(folder, backend, "cannot list the folder: \(errnoText())") }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The names in the folder (`.` and `..` left out), for a warm reopen to find files a
    /// crash left behind. Callers act only on names of their own shape.
    func names() throws -> [String] { try Self.names(in: path, backend: backend) }

    /// Checks every entry of the folder (the marker aside) before code the workbench does
    /// not control opens them (`foundation-urlcache`: Foundation reads any file of its
    /// name shape it finds): each must have one of the backend's own name shapes and be a
    /// regular file with one name — no symbolic link, hard link, FIFO, device or folder.
    /// The first other entry is refused with its path. Complexity: O(entries), one lstat each.
    func requireOnlyOwnFiles(_ isOwnName: (String) -> Bool) throws {
        for name in try names() where name != Self.markerName {
            let entry = path + "/" + name
            guard isOwnName(name) else {
                throw Self.failure(entry, backend, "is not a file of this backend's name shape; the workbench does not let \(backend) open what it did not make (remove it or name another folder)")
            }
            var info = stat()
            guard lstat(entry, &info) == 0 else { throw Self.failure(entry, backend, "cannot inspect: \(Self.errnoText())") }
            if let problem = FileKind.refusal(info) { throw Self.failure(entry, backend, "\(problem); the workbench does not let \(backend) open it") }
        }
    }
}

/// A symbolic link in a cache folder's path. The workbench never follows one for a cache
/// folder (its files would land, and be removed, wherever the link points): every
/// component of the path as given (from `/`, or from the current folder for a relative
/// path) must be a real folder; the user passes the resolved path instead.
package struct LinkInPath: Equatable {
    /// The path up to and including the link.
    var component: String
    /// What the link says (`readlink`).
    var target: String
    /// The whole path with its links resolved, when that exists so far (the suggestion).
    var realFolder: String?

    /// The first link among the path's components that exist (the rest will be created by
    /// mkdir, which never follows one). Complexity: O(components), one lstat each.
    package static func find(in path: String) -> LinkInPath? {
        let parts = path.split(separator: "/")
        var built = path.hasPrefix("/") ? "" : nil as String?
        for (offset, part) in parts.enumerated() {
            let prefix = built.map { $0 + "/" + part } ?? String(part)
            built = prefix
            var info = stat()
            guard lstat(prefix, &info) == 0 else { return nil }
            guard info.st_mode & S_IFMT == S_IFLNK else { continue }
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(prefix, &target, target.count - 1)
            let rest = parts.dropFirst(offset + 1).joined(separator: "/")
            let real = realpath(prefix, nil).map { resolved -> String in
                defer { free(resolved) }
                let head = String(cString: resolved)
                return rest.isEmpty ? head : (head == "/" ? "" : head) + "/" + rest
            }
            let text = count >= 0 ? String(decoding: target.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
            return LinkInPath(component: prefix, target: text, realFolder: real)
        }
        return nil
    }

    /// Why a path holding this link is refused, said after the path.
    package func reason(for path: String) -> String {
        let suggestion = realFolder.map { "; pass the real folder, \(ErrorText.quote($0, limit: 4096))" } ?? "; pass the real folder"
        let trimmed = String(path.reversed().drop { $0 == "/" }.reversed())
        if component == trimmed {
            return "is a symbolic link (to \(ErrorText.quote(target))), which the workbench never follows for a cache folder\(suggestion)"
        }
        return "has a symbolic link in its path, \(ErrorText.quote(component)) (to \(ErrorText.quote(target))), which the workbench never follows for a cache folder\(suggestion)"
    }
}

/// A file type's name for messages ("a FIFO"), from `st_mode`.
enum FileKind {
    /// Why a file found in a cache folder is not one the workbench may read back or remove
    /// as its own, said after its path; nil for a regular file with one name. A link, FIFO,
    /// device or folder is not what a backend writes, and a second hard link shares the
    /// body with a place outside the folder (read there, or written there by a backend).
    static func refusal(_ info: stat) -> String? {
        if info.st_mode & S_IFMT != S_IFREG { return "is \(name(of: info.st_mode)), not a regular file" }
        if info.st_nlink != 1 { return "has \(info.st_nlink) hard links (a file shared with another place)" }
        return nil
    }

    static func name(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a folder"
        case S_IFLNK: "a symbolic link"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "a special file"
        }
    }
}

/// Shapes of the file names the disk backends make, checked before any name read back
/// from disk (a manifest, a `Cache.db` row, a folder listing) is opened or removed.
enum CacheFileName {
    /// 64 lowercase hex digits: the `files` backend's SHA-256 names.
    static func isDigest(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { isHexDigit($0, upper: false) }
    }

    /// A UUID in upper case (8-4-4-4-12 hex digits): Cache.db's `fsCachedData/` names.
    static func isUUID(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count == 36 else { return false }
        for (offset, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                if byte != UInt8(ascii: "-") { return false }
            } else if !isHexDigit(byte, upper: true) {
                return false
            }
        }
        return true
    }

    /// `foundation-urlcache`'s entries as corelibs URLCache names them: a whole number of
    /// seconds, a dot, the base64 identifier (its `/` never reaches a file name), and
    /// `.storedcachedurlresponse`.
    static func isURLCacheEntry(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2] == "storedcachedurlresponse" else { return false }
        let seconds = parts[0].hasPrefix("-") ? parts[0].dropFirst() : parts[0]
        let isDecimal = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let isBase64 = { (byte: UInt8) in
            isDecimal(byte) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "=")
        }
        return (1...19).contains(seconds.utf8.count) && seconds.utf8.allSatisfy(isDecimal)
            && !parts[1].isEmpty && parts[1].utf8.allSatisfy(isBase64)
    }

    private static func isHexDigit(_ byte: UInt8, upper: Bool) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || (upper ? byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F") : byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
    }
}
