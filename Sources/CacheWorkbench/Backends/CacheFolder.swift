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
        let marker = open(markerPath, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
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
        guard fstat(marker, &markerInfo) == 0, markerInfo.st_mode & S_IFMT == S_IFREG else {
            close(marker)
            throw failure(markerPath, backend, "the marker is not a regular file")
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
        guard let directory = opendir(path) else { throw failure(path, backend, "cannot list the folder: \(errnoText())") }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { return false }
        }
        return true
    }

    /// The names in the folder (`.` and `..` left out), for a warm reopen to find files a
    /// crash left behind. Callers act only on names of their own shape.
    func names() throws -> [String] {
        guard let directory = opendir(path) else { throw Self.failure(path, backend, "cannot list the folder: \(Self.errnoText())") }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
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

    private static func isHexDigit(_ byte: UInt8, upper: Bool) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || (upper ? byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F") : byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
    }
}
