import ArgumentParser
import CacheWorkbench

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "One self-contained HTML report of a run or sweep: facts, table, charts, and a reading.",
        discussion: """
            The reading is computed from the numbers: the best backend by hit and byte hit \
            ratio at each capacity, the knee of each curve (the smallest capacity within 1 \
            point of its plateau), each policy's distance from the offline bounds (belady, \
            pfoo-l), how many times its payload each disk backend writes, and what each memory \
            warning cost (with --timeline). Runs Python in .venv (matplotlib, pandas), made by scripts/bootstrap --python on first use.

            Examples:
              bench report sweep.csv --out report.html
              bench report results.csv --timeline timeline.csv --out report.html
            """)

    @Argument(help: ArgumentHelp("Results CSVs from bench run or bench sweep.", valueName: "csv"))
    var inputs: [String] = []

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("A `bench run --timeline` CSV: memory over time and what warnings cost.", valueName: "file"))
    var timeline: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The HTML file to write (or - for standard output).", valueName: "file"))
    var out: String

    func run() throws {
        try reportingErrors {
            if let written = try HTMLReport.write(inputs: inputs, timeline: timeline, out: out) {
                try StandardOutput.write(written + "\n")
            }
        }
    }
}
