import Foundation

/// The virtual environment `.venv/` of the checkout this binary was built from, which
/// `scripts/bootstrap --python` makes (scripts/requirements.txt: matplotlib, pandas,
/// nbconvert, libcachesim). Only `bench plot` and `bench report` need it; the first of them
/// to run without it makes it, saying so on stderr, so the main job never waits on PyPI.
package enum PythonEnvironment {
    /// The command that makes `.venv/`, as the messages name it.
    static let makeCommand = "scripts/bootstrap --python"

    static var interpreter: String { SourceCheckout.root.path + "/.venv/bin/python" }

    /// Ready when the interpreter is there and `.venv/.requirements` equals
    /// scripts/requirements.txt: the stamp the bootstrap writes only after pip succeeded, so
    /// an install that failed half-way (PyPI unreachable) is not taken for a ready one.
    static var isReady: Bool {
        let root = SourceCheckout.root.path
        guard FileManager.default.isExecutableFile(atPath: interpreter),
              let stamp = FileManager.default.contents(atPath: root + "/.venv/.requirements"),
              let wanted = FileManager.default.contents(atPath: root + "/scripts/requirements.txt") else { return false }
        return stamp == wanted
    }

    /// The interpreter, after making `.venv/` with `scripts/bootstrap --python` when it is
    /// missing or incomplete (one line on stderr before it starts: it downloads from PyPI,
    /// which takes a while). A failure is one error naming the command to run by hand.
    package static func ensure(purpose: String) throws -> String {
        let python = interpreter
        if isReady { return python }
        let root = SourceCheckout.root.path
        let bootstrap = root + "/scripts/bootstrap"
        guard FileManager.default.isExecutableFile(atPath: bootstrap) else {
            throw WorkbenchError("\(purpose) needs Python packages in \(root)/.venv, and \(bootstrap) is missing: run \(makeCommand) in the workbench's checkout")
        }
        FileDescriptorOutput.write("bench: \(root)/.venv is missing or incomplete; making it with \(makeCommand) (once; it downloads matplotlib and pandas from PyPI)\n", to: 2)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bootstrap)
        process.arguments = ["--python"]
        process.currentDirectoryURL = URL(fileURLWithPath: root)
        // Its own messages go to our stderr: what it installs, or the command it needs run as root.
        process.standardOutput = FileHandle.standardError
        process.standardError = FileHandle.standardError
        do {
            try process.run()
            process.waitUntilExit()
        } catch {
            throw WorkbenchError("\(purpose) needs \(root)/.venv; starting \(makeCommand) failed (\(error)): run it by hand in \(root)")
        }
        guard process.terminationStatus == 0, isReady else {
            throw WorkbenchError("\(purpose) needs \(root)/.venv, and \(makeCommand) failed (exit \(process.terminationStatus), its messages above): fix what it says and run it in \(root)")
        }
        return python
    }
}
