import WorkbenchCore
import WorkbenchMetrics
#if canImport(Glibc)
import Glibc
#endif

/// Compressed traces, streamed through the system's decompressor (`gzip`, `zstd`, `xz`,
/// `bzip2` -dc) over a pipe: nothing is decompressed to disk, and memory stays the
/// reader's buffer. Recognised by extension or by magic bytes.
package enum Compression: String, CaseIterable, Sendable {
    case gzip, zstd, xz, bzip2

    var extensions: [String] {
        switch self {
        case .gzip: ["gz"]
        case .zstd: ["zst", "zstd"]
        case .xz: ["xz"]
        case .bzip2: ["bz2"]
        }
    }

    var magic: [UInt8] {
        switch self {
        case .gzip: [0x1F, 0x8B]
        case .zstd: [0x28, 0xB5, 0x2F, 0xFD]
        case .xz: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]
        case .bzip2: [0x42, 0x5A, 0x68]
        }
    }

    /// The Debian package that provides the tool, for the error when it is missing.
    var package: String { self == .xz ? "xz-utils" : rawValue }

    /// The compression a path's extension names, if any.
    package static func byExtension(_ path: String) -> Compression? {
        let lower = path.lowercased()
        return allCases.first { $0.extensions.contains { lower.hasSuffix("." + $0) } }
    }

    /// The path without its compression extension (to detect the inner format).
    static func innerPath(_ path: String) -> String {
        guard let compression = byExtension(path), let ext = compression.extensions.first(where: { path.lowercased().hasSuffix("." + $0) }) else { return path }
        return String(path.dropLast(ext.count + 1))
    }

    /// By magic bytes. bzip2's "BZh" is also how plain text can begin, so it counts only
    /// with its block size digit and the magic of its first block (or of an empty stream).
    package static func byMagic(_ bytes: [UInt8]) -> Compression? {
        allCases.first { compression in
            guard bytes.starts(with: compression.magic) else { return false }
            guard compression == .bzip2 else { return true }
            guard bytes.count >= 10, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(bytes[3]) else { return false }
            let block = Array(bytes[4..<10])
            return block == [0x31, 0x41, 0x59, 0x26, 0x53, 0x59] || block == [0x17, 0x72, 0x45, 0x38, 0x50, 0x90]
        }
    }

    /// Bytes `byMagic` needs to decide.
    package static let magicLength = 10

    /// Starts `<tool> -dc` reading `fileDescriptor`; returns the pipe's read end and the pid.
    func spawn(reading fileDescriptor: Int32, path: String) throws(TraceError) -> (Int32, pid_t) {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw TraceError(path: path, line: nil, reason: "cannot make a pipe: \(ChunkedFileReader.errnoText())") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fileDescriptor, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        let arguments = [rawValue, "-dc"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, rawValue, &actions, nil, &argv, environ)
        close(pipeEnds[1])
        guard status == 0 else {
            close(pipeEnds[0])
            let reason = status == ENOENT
                ? "is \(rawValue)-compressed, but `\(rawValue)` is not installed (apt-get install \(package))"
                : "cannot start \(rawValue): \(String(cString: strerror(status)))"
            throw TraceError(path: path, line: nil, reason: reason)
        }
        return (pipeEnds[0], pid)
    }
}
