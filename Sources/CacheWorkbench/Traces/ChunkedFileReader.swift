import WorkbenchCore
import WorkbenchMetrics
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file sequentially through one reusable buffer, so memory stays constant however
/// long the file is. A compressed file (`Compression`) is read through its decompressor. The caller consumes bytes from `window`; `refill()` keeps the
/// unconsumed tail and appends more, growing the buffer only when one record is larger
/// than it.
final class ChunkedFileReader {
    let path: String
    private let fd: Int32
    /// For a compressed file: the file itself (its offset, shared with the decompressor,
    /// gives progress) and the decompressor's pid.
    private let compressedFile: Int32?
    private var decompressor: pid_t?
    let compression: Compression?
    private(set) var buffer: UnsafeMutableRawPointer
    private(set) var capacity: Int
    /// Unconsumed bytes are buffer[start..<end].
    var start = 0
    private(set) var end = 0
    private(set) var atEOF = false
    /// Bytes consumed before `buffer[0]`, for progress and byte offsets.
    private(set) var consumedBefore = 0
    /// Size of a regular file, nil for pipes, devices and compressed files.
    let totalBytes: Int?
    /// Size of a compressed file.
    let compressedBytes: Int?
    /// Fed every block read (`ByteTap`; a compressed file's decompressed blocks, the bytes
    /// `TraceChecksum` hashes), when one was set as this reader was made.
    private let tap: ByteTap?

    init(path: String, initialCapacity: Int = 1 << 20) throws(TraceError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw TraceError(path: path, line: nil, reason: "cannot open: \(Self.errnoText())")
        }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw TraceError(path: path, line: nil, reason: "is a directory, not a trace file")
        }
        let size = (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
        var magic = [UInt8](repeating: 0, count: Compression.magicLength)
        let peeked = size == nil ? 0 : pread(fd, &magic, Compression.magicLength, 0)
        let found = Compression.byExtension(path) ?? (peeked > 0 ? Compression.byMagic(Array(magic.prefix(peeked))) : nil)
        compression = found
        if let found {
            let (pipeFD, pid): (Int32, pid_t)
            do throws(TraceError) {
                (pipeFD, pid) = try found.spawn(reading: fd, path: path)
            } catch {
                close(fd)
                throw error
            }
            self.fd = pipeFD
            compressedFile = fd
            decompressor = pid
            compressedBytes = size
            totalBytes = nil
        } else {
            self.fd = fd
            compressedFile = nil
            compressedBytes = nil
            totalBytes = size
        }
        tap = ByteTap.current
        if found != nil { ByteTap.current?.readDecompressed = true }
        self.capacity = initialCapacity
        self.buffer = .allocate(byteCount: initialCapacity, alignment: 16)
        posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
    }

    deinit {
        close(fd)
        if let compressedFile { close(compressedFile) }
        if let decompressor {
            kill(decompressor, SIGTERM)
            var status: Int32 = 0
            waitpid(decompressor, &status, 0)
        }
        buffer.deallocate()
    }

    /// Share of the (compressed) file read, when known.
    var progress: Double? {
        if let total = totalBytes, total > 0 { return Double(consumedBytes) / Double(total) }
        if let compressedFile, let total = compressedBytes, total > 0 { return Double(lseek(compressedFile, 0, SEEK_CUR)) / Double(total) }
        return nil
    }

    var consumedBytes: Int { consumedBefore + start }

    /// Moves the unconsumed tail to the front and reads more. Returns false at end of file.
    /// Invalidates pointers into the buffer.
    func refill() throws(TraceError) -> Bool {
        if atEOF { return false }
        if start > 0 {
            let tail = end - start
            if tail > 0 { buffer.copyMemory(from: buffer + start, byteCount: tail) }
            consumedBefore += start
            start = 0
            end = tail
        }
        if end == capacity { grow() }
        while true {
            let count = read(fd, buffer + end, capacity - end)
            if count > 0 {
                tap?.update(UnsafeRawBufferPointer(start: buffer + end, count: count))
                end += count
                return true
            }
            if count == 0 {
                atEOF = true
                try finishDecompressor()
                return false
            }
            if errno == EINTR { continue }
            throw TraceError(path: path, line: nil, reason: "read failed: \(Self.errnoText())")
        }
    }

    /// At the end of a compressed stream: a decompressor that failed means corrupt or
    /// truncated input, not a short trace.
    private func finishDecompressor() throws(TraceError) {
        guard let pid = decompressor, let compression else { return }
        decompressor = nil
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = (status & 0x7F) == 0
        let code = (status >> 8) & 0xFF
        if !exited || code != 0 {
            throw TraceError(path: path, line: nil, reason: "\(compression.rawValue) -dc failed (\(exited ? "exit status \(code)" : "killed")): the compressed file is corrupt or truncated")
        }
    }

    /// Called by `refill` when one record fills the whole buffer.
    private func grow() {
        let newCapacity = capacity * 2
        let newBuffer = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        newBuffer.copyMemory(from: buffer, byteCount: end)
        buffer.deallocate()
        buffer = newBuffer
        capacity = newCapacity
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }

    /// The next line's bytes (without its line feed) and whether a line feed ended it (false
    /// only for a last line at the end of the file); nil at the end. The bytes stay valid
    /// until the next call. A line longer than `limit` throws (`LineLengthLimit`, naming
    /// `line`, the 1-based number the caller gives it). O(line length).
    func nextLine(limit: Int, path: String, line: Int) throws(TraceError) -> (bytes: UnsafeRawBufferPointer, terminated: Bool)? {
        while true {
            let available = end - start
            let base = UnsafeRawPointer(buffer + start)
            if available > 0, let newline = memchr(base, 0x0A, available).map({ UnsafeRawPointer($0) - base }) {
                try LineLengthLimit.check(available: newline, limit: limit, path: path, line: line)
                start += newline + 1
                return (UnsafeRawBufferPointer(start: base, count: newline), true)
            }
            if atEOF {
                guard available > 0 else { return nil }
                try LineLengthLimit.check(available: available, limit: limit, path: path, line: line)
                start += available
                return (UnsafeRawBufferPointer(start: base, count: available), false)
            }
            // No line end in what is held: the line is at least that long.
            try LineLengthLimit.check(available: available, limit: limit, path: path, line: line)
            _ = try refill()
        }
    }
}
