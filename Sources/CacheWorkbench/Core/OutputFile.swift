#if canImport(Glibc)
import Glibc
#endif

/// Where a command writes a file the user named (`--csv`, `--json`, `--timeline`, `gen
/// --out`, `convert OUT`, an experiment's `--csv`), with the promises the README makes:
///
/// - a regular file (or a new name) appears whole or not at all: the bytes go to a new
///   temporary file in the same folder, created exclusively, then renamed over the name;
/// - `-`, a terminal or other device, a FIFO or a socket is written in place (never
///   replaced by a regular file), and so is standard output;
/// - a directory, a name ending in `/`, a symbolic link to a regular file (it would be
///   replaced, not followed), an output that is the trace or another output, two outputs
///   on standard output: refused by `check` before any work starts;
/// - every write, flush and close is checked: a full disk or `/dev/full` is an error.
///
/// Writes are buffered (64 KiB); `commit()` finishes the file. An `OutputFile` dropped
/// without `commit()` removes its temporary file.
public final class OutputFile {
    public let path: String
    private let descriptor: Int32
    private let temporaryPath: String?
    private var buffer: [UInt8] = []
    private var done = false
    private static let bufferSize = 1 << 16

    /// Names of standard output: written to it directly, whatever it is redirected to.
    package static let standardOutputNames: Set<String> = ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]

    /// `path` nil or `-` (or `/dev/stdout`) is standard output.
    public init(_ path: String?) throws {
        let path = path ?? "-"
        self.path = path
        buffer.reserveCapacity(Self.bufferSize)
        if Self.standardOutputNames.contains(path) {
            descriptor = STDOUT_FILENO
            temporaryPath = nil
            return
        }
        switch try Self.kind(of: path) {
        case .special:
            let opened = open(path, O_WRONLY | O_CLOEXEC)
            guard opened >= 0 else { throw Self.failure(path, "cannot open: \(Self.errnoText())") }
            descriptor = opened
            temporaryPath = nil
        case .regular, .absent:
            let (opened, temporary) = try Self.makeTemporary(next: path)
            descriptor = opened
            temporaryPath = temporary
        }
    }

    deinit {
        guard !done else { return }
        if let temporaryPath {
            close(descriptor)
            unlink(temporaryPath)
            Interruption.finished(temporaryPath)
        } else if descriptor != STDOUT_FILENO {
            close(descriptor)
        }
    }

    public var isStandardOutput: Bool { descriptor == STDOUT_FILENO }

    /// Whether the output is a regular file (replaced whole at `commit`), not a stream.
    public var isRegularFile: Bool { temporaryPath != nil }

    public func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        if buffer.count + bytes.count > Self.bufferSize { try flush() }
        if bytes.count >= Self.bufferSize {
            try Self.writeAll(descriptor, bytes, path: path)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    public func write(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try write($0) } }

    /// Writes what is buffered now (a stream's reader sees it at once).
    package func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try Self.writeAll(descriptor, $0, path: path) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered and finishes: a regular file is renamed into place.
    public func commit() throws {
        guard !done else { return }
        do {
            try flush()
        } catch {
            discard()
            throw error
        }
        done = true
        guard let temporaryPath else {
            if descriptor != STDOUT_FILENO, close(descriptor) != 0 { throw Self.failure(path, "close failed: \(Self.errnoText())") }
            return
        }
        defer { Interruption.finished(temporaryPath) }  // renamed into place or removed below
        guard close(descriptor) == 0 else {
            let reason = Self.errnoText()
            unlink(temporaryPath)
            throw Self.failure(path, "close failed: \(reason)")
        }
        guard rename(temporaryPath, path) == 0 else {
            let reason = Self.errnoText()
            unlink(temporaryPath)
            throw Self.failure(path, "cannot rename the finished file into place: \(reason)")
        }
    }

    /// Gives up: a regular file's temporary is removed and the name keeps its old content.
    public func discard() {
        guard !done else { return }
        done = true
        if let temporaryPath {
            close(descriptor)
            unlink(temporaryPath)
            Interruption.finished(temporaryPath)
        } else if descriptor != STDOUT_FILENO {
            close(descriptor)
        }
    }

    /// Writes `text` to `path` whole (see the type's rules).
    public static func write(_ text: String, to path: String) throws {
        let file = try OutputFile(path)
        try file.write(text)
        try file.commit()
    }

    public static func write(_ bytes: [UInt8], to path: String) throws {
        let file = try OutputFile(path)
        try file.write(bytes)
        try file.commit()
    }

    // MARK: checks before a run

    package enum Kind { case absent, regular, special }

    /// What is at `path`: nothing, a regular file, or a device/FIFO/socket written in place.
    package static func kind(of path: String) throws -> Kind {
        guard !path.isEmpty else { throw failure(path, "an empty name is not a file") }
        guard !path.hasSuffix("/") else { throw failure(path, "ends with '/', so it names a folder, not a file") }
        var link = stat()
        guard lstat(path, &link) == 0 else {
            guard errno == ENOENT else { throw failure(path, "cannot inspect: \(errnoText())") }
            return .absent
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure(path, "is a symbolic link to nothing; name the file itself") }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: throw failure(path, "is a folder; name a file in it")
        case S_IFREG:
            if link.st_mode & S_IFMT == S_IFLNK {
                throw failure(path, "is a symbolic link to a regular file; it would be replaced, not followed: name the file itself")
            }
            return .regular
        default:
            return .special
        }
    }

    /// Fails before a long run when any output could not be written at its end: each must
    /// be a file name in an existing writable folder (or `-`, a device, a FIFO), and none
    /// may be an input or another output. `outputs` are (option, path) pairs; `inputName`
    /// says what an input is in an error (`bench merge`'s are not a trace).
    public static func check(
        outputs: [(option: String, path: String)], inputs: [String], inputName: (String) -> String = { _ in "the trace" }
    ) throws {
        // Two documents on one standard output would be neither CSV nor JSON.
        let toStandardOutput = outputs.filter { standardOutputNames.contains($0.path) }
        if toStandardOutput.count > 1 {
            let named = toStandardOutput.map { "\($0.option) \($0.path)" }.joined(separator: " and ")
            throw WorkbenchError("\(named) \(toStandardOutput.count == 2 ? "both" : "all") name standard output, which holds one document; write at most one of them there and the others to files")
        }
        var seen: [(option: String, identity: String)] = []
        for input in inputs { seen.append((inputName(input), identity(of: input))) }
        for (option, path) in outputs where !standardOutputNames.contains(path) {
            let kind = try kind(of: path)
            if kind != .special {
                let folder = folderOf(path)
                var info = stat()
                guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                    throw failure(path, "folder \(folder) does not exist")
                }
                guard access(folder, W_OK | X_OK) == 0 else { throw failure(path, "folder \(folder) is not writable") }
                let mine = identity(of: path)
                if let clash = seen.first(where: { $0.identity == mine }) {
                    throw WorkbenchError("\(option) \(path) is the same file as \(clash.option); name another file")
                }
                seen.append((option, mine))
            }
        }
    }

    /// A name for comparing files: device and inode when the file exists, else the real
    /// path of its folder plus its name.
    static func identity(of path: String) -> String {
        var info = stat()
        if stat(path, &info) == 0 { return "inode:\(info.st_dev):\(info.st_ino)" }
        let folder = folderOf(path)
        guard let resolved = realpath(folder, nil) else { return "path:" + path }
        defer { free(resolved) }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return "path:" + String(cString: resolved) + "/" + name
    }

    package static func folderOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func makeTemporary(next path: String) throws -> (Int32, String) {
        let folder = folderOf(path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var template = Array("\(folder)/.\(name).partial-XXXXXX".utf8CString)
        let opened = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard opened >= 0 else { throw failure(path, "cannot create a temporary file in \(folder): \(errnoText())") }
        fchmod(opened, 0o644)
        let made = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        Interruption.created(made)  // removed at a SIGINT/SIGTERM exit unless committed or discarded first
        return (opened, made)
    }

    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw failure(path, "write failed: \(errnoText())")
            }
            offset += written
        }
    }

    private static func failure(_ path: String, _ reason: String) -> WorkbenchError {
        WorkbenchError("cannot write \(path == "-" ? "standard output" : ErrorText.name(path)): \(reason)")
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// Standard output with every write checked (`bench run > /dev/full` is an error, not a
/// silently truncated table).
public enum StandardOutput {
    public static func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try OutputFile.writeAll(STDOUT_FILENO, UnsafeRawBufferPointer($0), path: "-") }
    }

    /// Whether an output option's value names standard output (`-`, `/dev/stdout`, …).
    public static func isNamed(by path: String?) -> Bool {
        path.map { OutputFile.standardOutputNames.contains($0) } ?? false
    }

    /// The human-readable table: on standard output, unless a machine-readable output
    /// (`--csv -`, `--json -`, `--timeline -`) goes there, in which case on standard error,
    /// so that a program reading standard output gets pure CSV or JSON.
    /// Its control characters are escaped line by line (input names may hold any byte).
    public static func writeTable(_ table: String, besides machineOutputs: [String?]) throws {
        let table = ErrorText.escapingControls(lines: table)
        if machineOutputs.contains(where: isNamed(by:)) {
            FileDescriptorOutput.write(table, to: STDERR_FILENO)
        } else {
            try write(table)
        }
    }
}
