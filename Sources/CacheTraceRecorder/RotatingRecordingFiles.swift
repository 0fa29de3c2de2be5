#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Why the recorder could not start or stopped writing.
public enum RecorderError: Error, CustomStringConvertible, Equatable {
    case cannotOpenDirectory(path: String, errno: Int32)
    /// A part's file already exists: the recorder creates its files exclusively and never
    /// writes into (or through) something it did not create.
    case fileExists(path: String)
    case cannotCreate(path: String, errno: Int32)
    case cannotWrite(path: String, errno: Int32)
    case invalidConfiguration(String)

    public var description: String {
        switch self {
        case .cannotOpenDirectory(let path, let code): "cannot open the recording folder \(path): \(String(cString: strerror(code)))"
        case .fileExists(let path): "\(path) already exists (the recorder creates its files itself; choose another name)"
        case .cannotCreate(let path, let code): "cannot create \(path): \(String(cString: strerror(code)))"
        case .cannotWrite(let path, let code): "cannot write \(path): \(String(cString: strerror(code)))"
        case .invalidConfiguration(let reason): reason
        }
    }
}

/// The recording's files: `<name>-<part>.jsonl` in the app's folder, each at most
/// `maxFileBytes` (a single line longer than that gets a part of its own), each starting
/// with its header; beyond `maxFiles` parts the oldest is deleted. Files are created with
/// O_CREAT|O_EXCL|O_NOFOLLOW relative to the folder opened once, so the recorder never
/// writes into or through a file it did not create. Used on the writer's queue only.
final class RotatingRecordingFiles {
    let folder: String
    let name: String
    let maxFileBytes: Int
    let maxFiles: Int
    private let header: (Int) -> [UInt8]
    private let folderDescriptor: Int32
    private var descriptor: Int32 = -1
    private(set) var part = 0
    private var bytesInPart = 0
    private var eventBytesInPart = 0
    /// Lines waiting to be written; written in chunks of `writeChunk` bytes (two pages).
    private var pending: [UInt8] = []
    private static let writeChunk = 8 * 1024

    init(folder: String, name: String, maxFileBytes: Int, maxFiles: Int, header: @escaping (Int) -> [UInt8]) throws {
        guard maxFileBytes > 0, maxFiles > 0 else {
            throw RecorderError.invalidConfiguration("maxFileBytes and maxFiles must be positive")
        }
        guard !name.isEmpty, !name.contains("/") else {
            throw RecorderError.invalidConfiguration("the recording's name must be a file name without '/': '\(name)'")
        }
        self.folder = folder
        self.name = name
        self.maxFileBytes = maxFileBytes
        self.maxFiles = maxFiles
        self.header = header
        folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folderDescriptor >= 0 else { throw RecorderError.cannotOpenDirectory(path: folder, errno: errno) }
        do { try startPart() } catch {
            closeDescriptor(folderDescriptor)
            throw error
        }
    }

    deinit {
        if descriptor >= 0 { closeDescriptor(descriptor) }
        closeDescriptor(folderDescriptor)
    }

    func fileName(part: Int) -> String { "\(name)-\(part).jsonl" }

    /// Queues one whole line, starting the next part first when it would not fit. O(line).
    func append(_ line: [UInt8]) throws {
        if eventBytesInPart > 0, bytesInPart + line.count > maxFileBytes {
            try writePending()
            closeDescriptor(descriptor)
            descriptor = -1
            part += 1
            try startPart()
            if part >= maxFiles {
                // unlinkat removes the name itself, never what a link points to.
                _ = unlinkat(folderDescriptor, fileName(part: part - maxFiles), 0)
            }
        }
        pending += line
        bytesInPart += line.count
        eventBytesInPart += line.count
        if pending.count >= Self.writeChunk { try write(upTo: pending.count - pending.count % Self.writeChunk) }
    }

    /// Writes everything queued: the file then ends with a whole line.
    func writePending() throws {
        try write(upTo: pending.count)
    }

    /// Writes the first `count` queued bytes in chunks of `writeChunk`, keeping the rest. Chunks
    /// are not aligned to lines (as with stdio's full buffering): a process killed while a
    /// batch is being written leaves a torn last line, which a reader drops and counts.
    private func write(upTo count: Int) throws {
        var offset = 0
        while offset < count {
            let length = min(Self.writeChunk, count - offset)
            let written = pending.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress! + offset, length) }
            if written < 0 {
                if errno == EINTR { continue }
                let code = errno
                pending.removeAll(keepingCapacity: true)
                throw RecorderError.cannotWrite(path: folder + "/" + fileName(part: part), errno: code)
            }
            offset += written
        }
        pending.removeFirst(count)
    }

    func close() throws {
        defer {
            if descriptor >= 0 { closeDescriptor(descriptor) }
            descriptor = -1
        }
        try writePending()
    }

    private func startPart() throws {
        let path = folder + "/" + fileName(part: part)
        descriptor = openat(folderDescriptor, fileName(part: part), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw errno == EEXIST ? RecorderError.fileExists(path: path) : RecorderError.cannotCreate(path: path, errno: errno)
        }
        let headerLine = header(part)
        pending += headerLine
        bytesInPart = headerLine.count
        eventBytesInPart = 0
    }
}

/// write(2), named apart from `RotatingRecordingFiles.write(upTo:)`.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}

/// close(2), named apart from `RotatingRecordingFiles.close()`.
private func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(descriptor)
    #else
    _ = Darwin.close(descriptor)
    #endif
}
