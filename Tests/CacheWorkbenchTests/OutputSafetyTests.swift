import Foundation
import Testing
@testable import CacheWorkbench
@testable import WorkbenchReports
@testable import WorkbenchCommands
@testable import WorkbenchCore
@testable import WorkbenchMetrics
@testable import WorkbenchTraces
@testable import WorkbenchHTTP
@testable import WorkbenchBackends
@testable import WorkbenchSimulation
@testable import WorkbenchExperiments

/// Runs `bench` with its standard output sent to `path` (a file, /dev/full, …).
private func benchWritingTo(_ path: String, _ arguments: [String]) throws -> (status: Int32, err: String) {
    let result = try bench(arguments, standardOutput: FileHandle(forWritingAtPath: path))
    return (result.status, result.err)
}

private func fileKind(_ path: String) -> mode_t {
    var info = stat()
    guard lstat(path, &info) == 0 else { return 0 }
    return info.st_mode & S_IFMT
}

/// Issue 9 §1.5–1.7: outputs are written where the user said, the way the thing there
/// needs, and every write error is an error.
@Suite("Output safety", .serialized, .onTestWorkers)
struct OutputSafetyTests {
    static let trace = "time,key,size\n0,a,10\n1,b,10\n2,a,10\n"

    @Test("devices and FIFOs are written in place, never replaced by a regular file")
    func devicesInPlace() throws {
        let folder = TemporaryFolder()
        let tracePath = folder.file("t.csv", Self.trace)
        // A link to a device (as /dev/stdout is) must stay a link; /dev/null a device.
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/null-link", withDestinationPath: "/dev/null")
        let result = try bench(["run", "--trace", tracePath, "--backend", "lru", "--csv", folder.path + "/null-link", "--json", "/dev/null"])
        #expect(result.status == 0, "\(result.err)")
        #expect(fileKind(folder.path + "/null-link") == S_IFLNK)
        #expect(fileKind("/dev/null") == S_IFCHR)
        // A FIFO: read what convert writes into it.
        let fifo = folder.path + "/pipe"
        #expect(mkfifo(fifo, 0o644) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/cat")
        reader.arguments = [fifo]
        let out = Pipe()
        reader.standardOutput = out
        try reader.run()
        let converted = try bench(["convert", tracePath, fifo])
        let data = out.fileHandleForReading.readDataToEndOfFile()
        reader.waitUntilExit()
        #expect(converted.status == 0, "\(converted.err)")
        #expect(String(decoding: data, as: UTF8.self).hasPrefix("time,key,size,width,height,op\n0,a,10,,,get\n"))
        #expect(fileKind(fifo) == S_IFIFO)
        // /dev/stdout redirected to a regular file: written through, the link stays.
        let redirected = folder.path + "/redirected.csv"
        _ = FileManager.default.createFile(atPath: redirected, contents: nil)
        let viaLink = try bench(["convert", tracePath, "/dev/stdout"], standardOutput: FileHandle(forWritingAtPath: redirected))
        #expect(viaLink.status == 0, "\(viaLink.err)")
        #expect(try String(contentsOfFile: redirected, encoding: .utf8).hasPrefix("time,key,size,width,height,op\n"))
        #expect(fileKind("/dev/stdout") == S_IFLNK)
        // `-` is standard output; the summary then goes to stderr.
        let dash = try bench(["convert", tracePath, "-"])
        #expect(dash.status == 0 && dash.out.hasPrefix("time,key,size") && dash.err.contains("3 requests"))
    }

    /// Each with its reason (DIR the test's folder).
    @Test("outputs that clash, end in /, are folders or links to files are refused before the run", arguments: [
        (["--csv", "TRACE"], "--csv DIR/t.csv is the same file as the trace; name another file"),
        (["--csv", "DIR/a.csv", "--json", "DIR/a.csv"], "--json DIR/a.csv is the same file as --csv; name another file"),
        (["--csv", "DIR/sub/"], "cannot write DIR/sub/: ends with '/', so it names a folder, not a file"),
        (["--csv", "DIR"], "cannot write DIR: is a folder; name a file in it"),
        (["--timeline", "DIR/link.csv"], "cannot write DIR/link.csv: is a symbolic link to a regular file; it would be replaced, not followed: name the file itself"),
        (["--csv", "DIR/./t.csv"], "--csv DIR/./t.csv is the same file as the trace; name another file"),
    ])
    func refusedOutputs(arguments: [String], reason: String) throws {
        let folder = TemporaryFolder()
        let tracePath = folder.file("t.csv", Self.trace)
        folder.file("real.csv", "keep")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link.csv", withDestinationPath: folder.path + "/real.csv")
        let expanded = arguments.map { $0.replacingOccurrences(of: "TRACE", with: tracePath).replacingOccurrences(of: "DIR", with: folder.path) }
        let result = try bench(["run", "--trace", tracePath, "--backend", "lru"] + expanded)
        #expect(result.status == 2)
        #expect(result.err == "bench: error: " + reason.replacingOccurrences(of: "DIR", with: folder.path) + "\n", "\(result.err)")
        #expect(try String(contentsOfFile: tracePath, encoding: .utf8) == Self.trace)
        #expect(try String(contentsOfFile: folder.path + "/real.csv", encoding: .utf8) == "keep")
        #expect(fileKind(folder.path + "/link.csv") == S_IFLNK)
    }

    @Test("convert refuses to write over its own input")
    func convertOverInput() throws {
        let folder = TemporaryFolder()
        let tracePath = folder.file("t.csv", Self.trace)
        let result = try bench(["convert", tracePath, tracePath])
        #expect(result.status == 2 && result.err.contains("same file"))
        #expect(try String(contentsOfFile: tracePath, encoding: .utf8) == Self.trace)
    }

    @Test("a write error on standard output is an error, not exit 0 with a truncated table")
    func fullDevice() throws {
        let folder = TemporaryFolder()
        let tracePath = folder.file("t.csv", Self.trace)
        let run = try benchWritingTo("/dev/full", ["run", "--trace", tracePath, "--backend", "lru"])
        #expect(run.status == 2 && run.err.contains("No space left on device"), "\(run.err)")
        let gen = try benchWritingTo("/dev/full", ["gen", "--requests", "100000"])
        #expect(gen.status == 2 && gen.err.contains("No space left on device"), "\(gen.err)")
        let list = try benchWritingTo("/dev/full", ["list"])
        #expect(list.status == 2)
    }

    @Test("a run takes the revision without locking the checkout's index")
    func gitWithoutLocks() throws {
        // While a run asks git for the revision, .git/index.lock never appears (with
        // `git describe --dirty` it did, every time).
        let lock = SourceCheckout.root.path + "/.git/index.lock"
        let seen = Atomic(false)
        let done = Atomic(false)
        let watcher = Thread {
            while !done.load() {
                if FileManager.default.fileExists(atPath: lock) { seen.store(true) }
            }
        }
        watcher.start()
        for _ in 0..<20 { #expect(RunEnvironment.gitDescribe() != "unknown") }
        done.store(true)
        Thread.sleep(forTimeInterval: 0.05)
        #expect(!seen.load())
    }
}

/// A tiny lock-free flag for the watcher thread above.
private final class Atomic<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func load() -> Value { lock.withLock { value } }
    func store(_ newValue: Value) { lock.withLock { value = newValue } }
}
