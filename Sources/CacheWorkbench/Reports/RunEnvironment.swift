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

    /// `git describe --always --dirty` of the checkout this binary was built from, found
    /// next to its sources; "unknown" when the sources or git are not there.
    static func gitDescribe() -> String {
        let sourceRoot = SourceCheckout.root
        guard FileManager.default.fileExists(atPath: sourceRoot.appendingPathComponent(".git").path) else {
            return "unknown"
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", sourceRoot.path, "describe", "--always", "--dirty", "--abbrev=12"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { return "unknown" }
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? "unknown" : text
        } catch {
            return "unknown"
        }
    }
}
