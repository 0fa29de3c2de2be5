/// A problem with the input or the environment, told to the user in one line. The CLI
/// prints `description` and exits with status 2.
public struct WorkbenchError: Error, CustomStringConvertible, Equatable, Sendable {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// A problem in a trace file, located at a line (or a byte offset for binary formats).
public struct TraceError: Error, CustomStringConvertible, Equatable, Sendable {
    public var path: String
    /// 1-based line number; nil when the problem is with the file as a whole.
    public var line: Int?
    public var reason: String

    public init(path: String, line: Int?, reason: String) {
        self.path = path
        self.line = line
        self.reason = reason
    }

    public var description: String {
        if let line { return "\(path):\(line): \(reason)" }
        return "\(path): \(reason)"
    }
}

/// A disk backend's I/O failed (unwritable folder, full disk, locked or corrupt database).
/// It ends that run only: the results row is marked failed with this text, and the other
/// runs go on.
public struct DiskError: Error, CustomStringConvertible, Equatable, Sendable {
    public var backend: String
    public var path: String
    public var reason: String

    public init(backend: String, path: String, reason: String) {
        self.backend = backend
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(backend): \(path): \(reason)" }
}
