import WorkbenchCore
import WorkbenchTraces
#if canImport(Glibc)
import Glibc
#endif

/// The file operations of the disk backends, through plain POSIX calls, with every write
/// and fsync counted in a `DiskIOProbe` and every failure turned into a `DiskError` that
/// names the backend and the path.
struct CountingFiles {
    let backend: String
    let probe: DiskIOProbe

    func error(_ path: String, _ what: String, _ code: Int32 = errno) -> DiskError {
        DiskError(backend: backend, path: path, reason: "\(what): \(String(cString: strerror(code)))")
    }

    /// Creates a subfolder of a claimed cache folder if missing; an existing one must be a
    /// real folder (never a link).
    func makeSubfolder(_ path: String) throws {
        if mkdir(path, 0o755) == 0 { return }
        guard errno == EEXIST else { throw error(path, "cannot create folder") }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw DiskError(backend: backend, path: path, reason: "exists and is not a real folder (a link or a file); the workbench does not follow it")
        }
    }

    /// Opens a new file for writing; it must not exist yet (`O_EXCL`), and a link at its
    /// name is never followed (`O_NOFOLLOW`).
    private func createExclusively(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw error(path, "cannot create") }
        return descriptor
    }

    /// Writes a new file in one go (Cache.db's body files), fsynced first when `sync`; the
    /// name must be new. On any failure the file is removed.
    func writeNew(_ path: String, _ bytes: UnsafeRawBufferPointer, fsync sync: Bool = false, kind: DiskIOProbe.FileKind = .data) throws {
        let descriptor = try createExclusively(path)
        do {
            try writeAll(descriptor, bytes, path: path, kind: kind)
            if sync {
                guard fsync(descriptor) == 0 else { throw error(path, "fsync failed") }
                probe.countSync(kind)
            }
        } catch {
            close(descriptor)
            unlink(path)
            throw error
        }
        guard close(descriptor) == 0 else {
            unlink(path)
            throw error(path, "close failed")
        }
    }

    /// Writes `bytes` to a temporary file next to `path` and renames it over `path`, so a
    /// reader sees the old body or the new one, never a part; the file is fsynced before
    /// the rename when `sync`, and the folder after it when `syncFolder` (`Durability`).
    func writeAtomically(_ path: String, _ bytes: UnsafeRawBufferPointer, fsync sync: Bool, syncFolder: Bool = false, kind: DiskIOProbe.FileKind = .data) throws {
        let temporary = path + ".tmp"
        // A temporary file left by a crash has our name in our folder: remove it (a link is
        // removed, not followed), then create afresh and exclusively.
        if unlink(temporary) != 0 && errno != ENOENT { throw error(temporary, "cannot remove a stale temporary file") }
        try writeNew(temporary, bytes, fsync: sync, kind: kind)
        guard rename(temporary, path) == 0 else {
            let failure = error(path, "cannot rename the temporary file into place")
            unlink(temporary)
            throw failure
        }
        if syncFolder { try self.syncFolder(containing: path) }
    }

    /// Fsyncs the folder holding `path`, so a name just created or renamed in it survives a
    /// power loss (Linux fsync(2): fsync of a file "does not necessarily ensure that the
    /// entry in the directory containing the file has also reached disk").
    /// Counted as a sync of kind `other`. A link is never followed.
    func syncFolder(containing path: String) throws {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let descriptor = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw error(folder, "cannot open the folder to fsync it") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw error(folder, "fsync of the folder failed") }
        probe.countSync(.other)
    }

    private func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String, kind: DiskIOProbe.FileKind) throws {
        var offset = 0
        while offset < bytes.count {
            let chunk = bytes.count - offset
            if probe.writeShouldFail(bytes: chunk) { throw error(path, "write failed (injected)", ENOSPC) }
            let written = write(descriptor, bytes.baseAddress! + offset, chunk)
            if written < 0 {
                if errno == EINTR { continue }
                throw error(path, "write failed")
            }
            probe.countWrite(kind, offset: offset, bytes: written)
            offset += written
        }
    }

    /// Reads the whole file into `buffer` (resized to fit); false when it does not exist.
    /// A link is not followed, and anything but a regular file with one name (a hard link
    /// would read a file outside the folder) of at most `limit` bytes is an error. The open
    /// does not block (`O_NONBLOCK`), so a FIFO or device at the name is refused at once
    /// instead of hanging the run.
    func read(_ path: String, into buffer: inout [UInt8], limit: Int = DiskLimits.largestBody) throws -> Bool {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return false }
            throw error(path, errno == ELOOP ? "is a symbolic link, which the workbench does not follow" : "cannot open")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw error(path, "cannot stat") }
        if let problem = FileKind.refusal(info) { throw refused(path, problem) }
        // A regular file: back to ordinary blocking reads.
        guard fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK) == 0 else { throw error(path, "cannot clear O_NONBLOCK") }
        guard info.st_size <= limit else {
            throw DiskError(backend: backend, path: path, reason: "holds \(info.st_size) bytes, more than the \(limit) a body may have")
        }
        let size = Int(info.st_size)
        if buffer.count != size { buffer = [UInt8](repeating: 0, count: size) }
        var offset = 0
        try buffer.withUnsafeMutableBytes { bytes in
            while offset < size {
                let got = Glibc.read(descriptor, bytes.baseAddress! + offset, size - offset)
                if got < 0 {
                    if errno == EINTR { continue }
                    throw error(path, "read failed")
                }
                if got == 0 { throw error(path, "file shorter than its size while reading") }
                offset += got
            }
        }
        return true
    }

    /// Removes the file; a missing file is not an error (it is what removal wants).
    func remove(_ path: String) throws {
        if unlink(path) != 0 && errno != ENOENT { throw error(path, "cannot remove") }
    }

    private func refused(_ path: String, _ problem: String) -> DiskError {
        DiskError(backend: backend, path: path, reason: "\(problem); the workbench reads and removes only regular files with one name in a cache folder")
    }

    /// Checks, without opening it, that nothing or a regular file with one name is at
    /// `path`: a file that code the workbench does not control will open (`Cache.db` and its
    /// side files), or one a reopen is about to keep or remove (`files`' own names).
    func requireRegularFileOrNothing(_ path: String) throws {
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else { throw error(path, "cannot inspect") }
            return
        }
        if let problem = FileKind.refusal(info) { throw refused(path, problem) }
    }

    /// The size of a regular file at `path` (a link is not followed); nil when there is no
    /// regular file there.
    func regularFileSize(_ path: String) -> Int? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(info.st_size)
    }
}
