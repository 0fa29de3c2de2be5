#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file sequentially through one reusable buffer, so memory stays constant however
/// long the file is. The caller consumes bytes from `window`; `refill()` keeps the
/// unconsumed tail and appends more, growing the buffer only when one record is larger
/// than it.
final class ChunkedFileReader {
    let path: String
    private let fd: Int32
    private(set) var buffer: UnsafeMutableRawPointer
    private(set) var capacity: Int
    /// Unconsumed bytes are buffer[start..<end].
    var start = 0
    private(set) var end = 0
    private(set) var atEOF = false
    /// Bytes consumed before `buffer[0]`, for progress and byte offsets.
    private(set) var consumedBefore = 0
    /// Size of a regular file, nil for pipes and devices.
    let totalBytes: Int?

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
        self.fd = fd
        self.totalBytes = (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
        self.capacity = initialCapacity
        self.buffer = .allocate(byteCount: initialCapacity, alignment: 16)
        posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
    }

    deinit {
        close(fd)
        buffer.deallocate()
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
                end += count
                return true
            }
            if count == 0 {
                atEOF = true
                return false
            }
            if errno == EINTR { continue }
            throw TraceError(path: path, line: nil, reason: "read failed: \(Self.errnoText())")
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
}
