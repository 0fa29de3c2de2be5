import ArgumentParser
import CacheWorkbench

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the backends, trace formats and device classes.",
        discussion: "Examples:\n  bench list\n  bench list --devices")

    @Flag(name: .long, help: "Only the device classes (--device): RAM, screen scale and their sources.")
    var devices = false

    func run() throws {
        try reportingErrors { try StandardOutput.write(devices ? DeviceClass.catalogText() : Catalog.text() + "\n" + DeviceClass.catalogText()) }
    }
}
