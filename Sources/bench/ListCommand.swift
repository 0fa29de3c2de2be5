import ArgumentParser
import CacheWorkbench

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the backends and trace formats.",
        discussion: "Examples:\n  bench list\n  bench list --json")

    @Flag(name: .long, help: "Print the catalog as JSON (backends with their options, groups, tier options, trace formats, cost models).")
    var json = false

    func run() throws {
        try reportingErrors { try StandardOutput.write(json ? Catalog.json() : Catalog.text()) }
    }
}
