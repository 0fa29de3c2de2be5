import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A script of `scripts/` run with the virtual environment `scripts/bootstrap --python`
/// makes (`.venv/`, matplotlib and pandas; `PythonEnvironment` makes it on first use): what `bench plot` and `bench report` draw with. The
/// workbench's other commands never need Python.
enum PythonScript {
    struct Output {
        var printed: [String]
        var complaints: [String]
    }

    /// Checks every input (the CSVs and the timeline) readable before Python starts.
    /// Each must be a regular file (a link to one is fine): a FIFO or a device would block
    /// the script's read forever, or never end.
    static func checkReadable(_ inputs: [String], timeline: String?) throws {
        for input in inputs + (timeline.map { [$0] } ?? []) {
            var info = stat()
            guard stat(input, &info) == 0 else { throw WorkbenchError("\(ErrorText.name(input)): cannot read it (\(String(cString: strerror(errno))))") }
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw WorkbenchError("\(ErrorText.name(input)): not a regular file (a FIFO, a device or a folder); give a results CSV file")
            }
            guard FileManager.default.isReadableFile(atPath: input) else { throw WorkbenchError("\(ErrorText.name(input)): cannot read it") }
        }
    }

    /// An input as the script gets it: absolute, so no name (`--out=x.html`) can be taken
    /// for an option even before the `--` that precedes the inputs.
    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// The script's arguments: `--out=OUT`, `--timeline=T`, the `options` (each `--name=value`),
    /// then `--` and the CSVs.
    static func arguments(out: String, inputs: [String], timeline: String?, options: [String] = []) -> [String] {
        ["--out=" + out] + (timeline.map { ["--timeline=" + absolute($0)] } ?? []) + options + ["--"] + inputs.map(absolute)
    }

    /// Runs `body` with a new folder made inside `parent` (the script draws there), removed
    /// afterwards: a folder this call made, never one it found.
    static func withStagingFolder<T>(in parent: String, _ body: (String) throws -> T) throws -> T {
        // Absolute: the scripts take only an absolute staging folder (CWB_STAGING).
        var template = Array((absolute(parent) + "/.cwb-staging-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw WorkbenchError("\(parent): cannot make a temporary folder in it: \(String(cString: strerror(errno)))")
        }
        let staging = String(cString: made)
        Interruption.created(staging, folder: true)  // removed at a SIGINT/SIGTERM exit too
        defer {
            try? FileManager.default.removeItem(atPath: staging)
            Interruption.finished(staging)
        }
        return try body(staging)
    }

    /// The environment variable naming the staging folder: the scripts refuse an `--out`
    /// outside it, so they write nowhere but into the folder this run made.
    static let stagingVariable = "CWB_STAGING"

    /// Runs `scripts/<name>` writing to `out` inside `staging`, reading `inputs` (and
    /// `timeline`); a failure is its `<prefix>: error: …` line as a `WorkbenchError`, naming
    /// the inputs as given, or the exit status when it printed none.
    static func run(_ name: String, out: String, staging: String, inputs: [String], timeline: String?, options: [String] = [],
                    errorPrefix: String) throws -> Output {
        let root = SourceCheckout.root.path
        let script = root + "/scripts/" + name
        let python = try PythonEnvironment.ensure(purpose: "scripts/\(name)")
        guard FileManager.default.isReadableFile(atPath: script) else { throw WorkbenchError("\(script): missing from the checkout") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script] + arguments(out: out, inputs: inputs, timeline: timeline, options: options)
        process.environment = ProcessInfo.processInfo.environment.merging([stagingVariable: staging]) { _, staging in staging }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Both pipes are read on other threads (a script that fills one pipe while the other
        // is being read would otherwise block), while this one watches for SIGINT/SIGTERM:
        // the script is stopped too (a SIGTERM sent to bench alone never reaches it), then
        // the staging folder goes with the unwinding.
        let errorData = DataBox()
        let outputData = DataBox()
        let group = DispatchGroup()
        for (pipe, box) in [(errors, errorData), (output, outputData)] {
            group.enter()
            DispatchQueue.global().async {
                box.data = pipe.fileHandleForReading.readDataToEndOfFile()
                group.leave()
            }
        }
        while group.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            if Interruption.signal != nil, process.isRunning { process.terminate() }
        }
        process.waitUntilExit()
        try Interruption.check()
        let printed = String(decoding: outputData.data, as: UTF8.self)
        let complaints = String(decoding: errorData.data, as: UTF8.self).split(separator: "\n").map(String.init)
        guard process.terminationStatus == 0 else {
            let marker = errorPrefix + ": error: "
            var reason = complaints.first { $0.hasPrefix(marker) }.map { String($0.dropFirst(marker.count)) }
                ?? "scripts/\(name) failed (exit \(process.terminationStatus)): \(complaints.last ?? "no message")"
            for given in inputs + (timeline.map { [$0] } ?? []) where absolute(given) != given {
                reason = reason.replacingOccurrences(of: absolute(given), with: given)
            }
            throw WorkbenchError(reason)
        }
        return Output(printed: printed.split(separator: "\n").map(String.init), complaints: complaints)
    }
}

/// Bytes one thread reads and another uses after the group is done.
private final class DataBox: @unchecked Sendable {
    var data = Data()
}
