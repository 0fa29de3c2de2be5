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

    /// Creates the folder (and its parents) if missing, and checks that it is writable.
    func makeDirectory(_ path: String) throws {
        var built = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o755) != 0 && errno != EEXIST { throw error(built, "cannot create folder") }
        }
        if access(path, W_OK | X_OK) != 0 { throw error(path, "folder is not writable") }
    }

    /// Writes `bytes` to a temporary file next to `path`, optionally fsyncs it, and renames
    /// it over `path`, so a reader sees the old body or the new one, never a part.
    func writeAtomically(_ path: String, _ bytes: UnsafeRawBufferPointer, fsync sync: Bool, kind: DiskIOProbe.FileKind = .data) throws {
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw error(temporary, "cannot create") }
        do {
            try writeAll(descriptor, bytes, path: temporary, kind: kind)
            if sync {
                guard fsync(descriptor) == 0 else { throw error(temporary, "fsync failed") }
                probe.countSync(kind)
            }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        guard close(descriptor) == 0 else {
            unlink(temporary)
            throw error(temporary, "close failed")
        }
        guard rename(temporary, path) == 0 else {
            let failure = error(path, "cannot rename the temporary file into place")
            unlink(temporary)
            throw failure
        }
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
    func read(_ path: String, into buffer: inout [UInt8]) throws -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return false }
            throw error(path, "cannot open")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw error(path, "cannot stat") }
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

    func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}
