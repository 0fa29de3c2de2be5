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

/// Issue 11 §6: the notebook runs headless against results `bench` makes on the bundled
/// trace (`scripts/check-notebooks`, with this build's `bench`).
@Suite("notebooks", .onTestWorkers)
struct NotebookTests {
    @Test("scripts/check-notebooks executes every notebook without an error")
    func notebooksRun() throws {
        try #require(FileManager.default.isExecutableFile(atPath: SourceCheckout.root.path + "/.venv/bin/python"), "run scripts/bootstrap --python: it makes .venv with jupyter")
        let bench = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .deletingLastPathComponent().appendingPathComponent("bench").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: SourceCheckout.root.path + "/scripts/check-notebooks")
        process.environment = ProcessInfo.processInfo.environment.merging(["BENCH": bench]) { $1 }
        let errors = Pipe()
        let output = Pipe()
        process.standardError = errors
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaints = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(complaints)")
        #expect(printed.contains("workbench.ipynb ran"))
    }
}
