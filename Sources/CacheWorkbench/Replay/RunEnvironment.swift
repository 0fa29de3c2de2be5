import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// Where and with what a command ran, stamped on every results row so it can be reproduced.
public struct RunEnvironment: Sendable {
    public var gitRevision: String
    public var swiftVersion: String
    public var allocator: String
    public var clockOverheadNanoseconds: UInt64
    /// UTC start time, compact (20261122T021500Z); the prefix of every run id.
    public var startedAt: String
    public var processID: Int32

    public init(
        gitRevision: String, swiftVersion: String, allocator: String, clockOverheadNanoseconds: UInt64,
        startedAt: String, processID: Int32
    ) {
        self.gitRevision = gitRevision
        self.swiftVersion = swiftVersion
        self.allocator = allocator
        self.clockOverheadNanoseconds = clockOverheadNanoseconds
        self.startedAt = startedAt
        self.processID = processID
    }

    public static func current() -> RunEnvironment {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return RunEnvironment(
            gitRevision: gitDescribe(), swiftVersion: compilerVersion, allocator: MemoryProbe.allocatorName,
            clockOverheadNanoseconds: MonotonicClock.measureOverhead(), startedAt: formatter.string(from: Date()),
            processID: ProcessInfo.processInfo.processIdentifier)
    }

    public func runID(index: Int) -> String { "\(startedAt)-\(processID)-\(index + 1)" }

    /// The Swift compiler that built this binary.
    public static var compilerVersion: String {
        #if compiler(>=6.4)
        return "6.4+"
        #elseif compiler(>=6.3.2)
        return "6.3.2+"
        #elseif compiler(>=6.3.1)
        return "6.3.1"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #else
        return "6.1"
        #endif
    }

    /// `git describe --always` of the checkout this binary was built from, found next to
    /// its sources, with `-dirty` when tracked files changed; "unknown" when the sources or
    /// git are not there. `git describe --dirty` itself always takes `.git/index.lock` to
    /// refresh the index (a `git commit` in that checkout at the same moment then fails),
    /// so dirtiness comes from `git status` with `GIT_OPTIONAL_LOCKS=0`, which writes nothing.
    package static func gitDescribe() -> String {
        let sourceRoot = SourceCheckout.root
        guard FileManager.default.fileExists(atPath: sourceRoot.appendingPathComponent(".git").path),
              let revision = git(["describe", "--always", "--abbrev=12"], in: sourceRoot.path), !revision.isEmpty,
              let changes = git(["status", "--porcelain", "--untracked-files=no"], in: sourceRoot.path)
        else { return "unknown" }
        return changes.isEmpty ? revision : revision + "-dirty"
    }

    /// A git command's trimmed output, or nil when it fails.
    private static func git(_ arguments: [String], in folder: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", folder] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["GIT_OPTIONAL_LOCKS"] = "0"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { return nil }
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            return nil
        }
    }
}
