import ArgumentParser
import CacheWorkbench

struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "What libCacheSim's traceAnalyzer computes: compulsory misses, X-hit, Zipf α, reuse, sizes, rates, scans.",
        discussion: """
            Figures follow traceAnalyzer's rules (docs/analyze.md). Examples:
              bench analyze Traces/default.csv
              bench analyze Traces/default.csv --csv /tmp/a --json /tmp/a.json
              bench plot /tmp/a --out /tmp/charts
            """)

    @Argument(help: ArgumentHelp("Trace to analyze (compressed is fine).", valueName: "file"))
    var file: String

    @OptionGroup var reading: TraceReadingOptions

    @Option(name: .long, help: "Time window in seconds for rates over time.")
    var window = 300

    @Option(name: .long, help: "Seconds from the first request before popularity decay follows new objects (traceAnalyzer's --warmup-sec; a multiple of --window).")
    var decayWarmup = PopularityDecay.defaultWarmup

    @Option(name: .long, help: "Shortest run of requests to new objects counted as a scan.")
    var scanLength = ScanSummary.defaultLength

    @Option(name: .long, help: ArgumentHelp("Write every table as CSV files into this folder.", valueName: "dir"))
    var csv: String?

    @Option(name: .long, help: ArgumentHelp("Write every figure and table as one JSON file.", valueName: "file"))
    var json: String?

    func run() throws {
        try reportingErrors {
            guard window >= 1 else { throw WorkbenchError("--window must be at least 1 second (got \(window))") }
            guard scanLength >= 1 else { throw WorkbenchError("--scan-length must be at least 1 (got \(scanLength))") }
            try PopularityDecay.check(warmup: decayWarmup, window: window)
            let trace = try TraceFile(path: file, format: reading.format.map(TraceFormat.named), skipBadRows: reading.skipBad,
                                      formatOptions: reading.formatOptions)
            // Outputs are checked before the trace is read (a FIFO in DIR would block the write).
            if let csv { try OutputFolder.check(csv, option: "--csv", names: TraceAnalysis.csvFileNames) }
            if let json { try OutputFile.check(outputs: [("--json", json)], inputs: [file]) }
            try reading.writeReadingNotes(path: file, runs: .asVisits(how: "bench analyze takes them"))
            let analysis = try TraceAnalysis.compute(trace, window: window, scanLength: scanLength, decayWarmup: decayWarmup)
            if let csv { try analysis.writeCSV(folder: csv, trace: file) }
            if let json { try OutputFile.write(analysis.json(trace: file), to: json) }
            // With --json -, standard output holds the JSON alone; the summary goes to stderr.
            try StandardOutput.writeTable(analysis.text(label: "\(file) (\(trace.format.name))"), besides: [json])
        }
    }
}
