import ArgumentParser
import CacheWorkbench

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the backends, trace formats and device classes.",
        discussion: "Examples:\n  bench list\n  bench list --devices\n  bench list --json")

    @Flag(name: .long, help: "Only the device classes (--device): RAM, screen scale and their sources.")
    var devices = false

    @Flag(name: .long, help: "Print the catalog as JSON (backends with their options, groups, tier options, trace formats, cost models).")
    var json = false

    func run() throws {
        try reportingErrors {
            if json { return try StandardOutput.write(Catalog.json()) }
            try StandardOutput.write(devices ? DeviceClass.catalogText() : Catalog.text() + "\n" + DeviceClass.catalogText())
        }
    }
}
