import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A script of `scripts/` run with the virtual environment `scripts/bootstrap` makes
/// (`.venv/`, matplotlib and pandas): what `bench plot` and `bench report` draw with. The
/// workbench's other commands never need Python.
enum PythonScript {
    struct Output {
        var printed: [String]
        var complaints: [String]
    }

    /// The script's input arguments (`--timeline T` first, then the CSVs), each checked readable.
    static func inputArguments(_ inputs: [String], timeline: String?) throws -> [String] {
        let arguments = (timeline.map { ["--timeline", $0] } ?? []) + inputs
        for input in inputs + (timeline.map { [$0] } ?? []) where !FileManager.default.isReadableFile(atPath: input) {
            throw WorkbenchError("\(input): cannot read it")
        }
        return arguments
    }

    /// Runs `body` with a new folder made inside `parent` (the script draws there), removed
    /// afterwards: a folder this call made, never one it found.
    static func withStagingFolder<T>(in parent: String, _ body: (String) throws -> T) throws -> T {
        var template = Array((parent + "/.cwb-staging-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw WorkbenchError("\(parent): cannot make a temporary folder in it: \(String(cString: strerror(errno)))")
        }
        let staging = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: staging) }
        return try body(staging)
    }

    /// Runs `scripts/<name>` with `arguments`; a failure is its `<prefix>: error: …` line
    /// as a `WorkbenchError`, or the exit status when it printed none.
    static func run(_ name: String, _ arguments: [String], errorPrefix: String) throws -> Output {
        let root = SourceCheckout.root.path
        let python = root + "/.venv/bin/python"
        let script = root + "/scripts/" + name
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw WorkbenchError("this command needs matplotlib and pandas in \(root)/.venv: run scripts/bootstrap (it makes the virtual environment)")
        }
        guard FileManager.default.isReadableFile(atPath: script) else { throw WorkbenchError("\(script): missing from the checkout") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Standard error is read on another thread: a script that fills one pipe while the
        // other is being read would otherwise block.
        let errorData = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errorData.data = errors.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        group.wait()
        process.waitUntilExit()
        let complaints = String(decoding: errorData.data, as: UTF8.self).split(separator: "\n").map(String.init)
        guard process.terminationStatus == 0 else {
            let marker = errorPrefix + ": error: "
            let reason = complaints.first { $0.hasPrefix(marker) }.map { String($0.dropFirst(marker.count)) }
                ?? "scripts/\(name) failed (exit \(process.terminationStatus)): \(complaints.last ?? "no message")"
            throw WorkbenchError(reason)
        }
        return Output(printed: printed.split(separator: "\n").map(String.init), complaints: complaints)
    }
}

/// Bytes one thread reads and another uses after the group is done.
private final class DataBox: @unchecked Sendable {
    var data = Data()
}
