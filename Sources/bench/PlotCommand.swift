import ArgumentParser
import CacheWorkbench

struct PlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "PNG charts from results CSVs (matplotlib in .venv: scripts/bootstrap --python, run on first use).",
        discussion: """
            Reads `bench run`/`bench sweep` results, `bench mrc` curves and the similar-keys and \
            blob-size experiments' CSVs, and draws every chart they allow: mrc.png (miss-ratio \
            curves, object and byte, log capacity), hit_ratio.png, latency.png, disk.png, \
            memory.png (from --timeline, warnings marked), similar_keys.png, blob_size.png.

            Examples:
              bench plot sweep.csv --out charts
              bench plot results.csv --timeline timeline.csv --out charts
              bench plot mrc.csv sweep.csv --out charts
            """)

    @Argument(help: ArgumentHelp("CSV files written by bench (results, mrc, experiments).", valueName: "csv"))
    var inputs: [String] = []

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("A `bench run --timeline` CSV: memory over time.", valueName: "file"))
    var timeline: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Folder for the PNGs (made if missing).", valueName: "folder"))
    var out: String

    func run() throws {
        try reportingErrors {
            let outcome = try PlotCharts.draw(inputs: inputs, timeline: timeline, out: out)
            for reason in outcome.skipped { FileDescriptorOutput.write("bench: note: skipped \(reason)\n", to: 2) }
            try StandardOutput.write(outcome.written.map { $0 + "\n" }.joined())
        }
    }
}
