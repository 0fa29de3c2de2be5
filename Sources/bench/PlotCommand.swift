import ArgumentParser
import CacheWorkbench

struct PlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Charts (PNG, PDF or SVG) from results CSVs (matplotlib in .venv: scripts/bootstrap --python, run on first use).",
        discussion: """
            Reads `bench run`/`bench sweep` results, `bench mrc` curves and the similar-keys and \
            blob-size experiments' CSVs, and draws every chart they allow: mrc.png (miss-ratio \
            curves, object and byte, log capacity), hit_ratio.png, latency.png, disk.png, \
            memory.png and miss_ratio_time.png (from --timeline), similar_keys.png, blob_size.png, \
            and plot_colors.json (each series' colour, the same in every chart). Offline bounds \
            (belady, beladysize, pfoo-l) are drawn gray and dashed.

            Examples:
              bench plot sweep.csv --out charts
              bench plot results.csv --timeline timeline.csv --out charts
              bench plot mrc.csv sweep.csv --out charts
              bench plot sweep.csv --format pdf --style paper \\
                  --only lru,sieve,belady --ylim 0.5:0.9 --out charts
              bench plot sweep.csv --format pdf --style paper --columns 2 --out charts
            """)

    @Argument(help: ArgumentHelp("CSV files written by bench (results, mrc, experiments).", valueName: "csv"))
    var inputs: [String] = []

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("A `bench run --timeline` CSV: memory over time.", valueName: "file"))
    var timeline: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Folder for the PNGs (made if missing).", valueName: "folder"))
    var out: String

    @Option(name: .long, help: ArgumentHelp("png (default), pdf or svg.", valueName: "format"))
    var format: String = "png"

    @Option(name: .long, help: ArgumentHelp("Resolution of PNGs (and images inside PDFs), 50…600; default 110, 300 with --style paper.", valueName: "n"))
    var dpi: Int?

    @Option(name: .long, help: ArgumentHelp("default, or paper: one column wide, serif fonts embedded (Type 42), markers and line styles that survive grayscale.", valueName: "style"))
    var style: String = "default"

    @Option(name: .long, help: ArgumentHelp("With --style paper: 1, a column wide (3.5 in, the default), or 2, across both columns of the page (7.16 in).", valueName: "n"))
    var columns: Int?

    @Option(name: .long, help: ArgumentHelp("Only these series: backends, policies or labels, comma-separated (an unknown one lists those the inputs have).", valueName: "names"))
    var only: String?

    @Option(name: .long, help: ArgumentHelp("The ratio charts' y-limits (mrc, hit_ratio, miss_ratio_time), e.g. 0.5:0.9; default fitted to the data with --style paper, else 0:1.", valueName: "low:high"))
    var ylim: String?

    func run() throws {
        try reportingErrors {
            let look = PlotCharts.Look(format: format, dpi: dpi, style: style, columns: columns, only: only.map { [$0] }, ylim: ylim)
            let outcome = try PlotCharts.draw(inputs: inputs, timeline: timeline, out: out, look: look)
            for reason in outcome.skipped { FileDescriptorOutput.write("bench: note: skipped \(reason)\n", to: 2) }
            for note in outcome.notes { FileDescriptorOutput.write("bench: note: \(note)\n", to: 2) }
            try StandardOutput.write(outcome.written.map { $0 + "\n" }.joined())
        }
    }
}
