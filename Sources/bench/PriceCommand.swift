import ArgumentParser
import CacheWorkbench

struct PriceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "price",
        abstract: "List each unique object's pixel price: its rule, dimensions, encoded and decoded cost.",
        discussion: """
            Prices every request as `bench run --cost pixels` does (the trace's dimensions, \
            else an image-CDN URL convention, else --decoded-ratio, else the encoded size) and \
            lists each unique key once, with any URL inference rejected because its decoded \
            bitmap would be smaller than the encoded file. The counts under the list equal a \
            replay's cost_from_* columns.

            Examples:
              bench price capture.har --images-only
              bench price capture.har --cost pixels --decoded-ratio 8 --csv prices.csv
            """)

    @OptionGroup var operand: TraceOperand

    @OptionGroup var reading: TraceReadingOptions

    @OptionGroup var pricing: PricingOptions

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("As in `bench run`: whether URL sizes are pixels (default) or points (× --device's scale).", valueName: "pixels|points"))
    var urlUnits: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("As in `bench run`: the device class (bench list --devices), for --url-units points.", valueName: "name"))
    var device: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Also write the list as CSV to this file.", valueName: "file"))
    var csv: String?

    func run() throws {
        try reportingErrors {
            var arguments = PriceAudit.Arguments(trace: try operand.path())
            arguments.format = reading.format
            arguments.skipBad = reading.skipBad
            arguments.formatOptions = reading.formatOptions
            arguments.cost = pricing.cost
            arguments.inferDimensions = pricing.inferDimensions ?? "url"
            arguments.decodedRatio = pricing.decodedRatio
            arguments.estimate = pricing.estimate
            arguments.urlUnits = urlUnits
            arguments.device = device
            arguments.csv = csv
            try StandardOutput.writeTable(try PriceAudit(arguments).execute().table, besides: [csv])
        }
    }
}
