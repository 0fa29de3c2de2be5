import ArgumentParser
import CacheWorkbench

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the backends and trace formats.",
        discussion: "Example:\n  bench list")

    func run() throws {
        try reportingErrors { try StandardOutput.write(Catalog.text()) }
    }
}
