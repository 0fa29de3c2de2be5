import ArgumentParser
import CacheWorkbench

struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a trace from any readable format to native CSV, libCacheSim's oracleGeneral or lcs binary, or an app recording.",
        discussion: """
            The output format follows OUT's name (.csv: native CSV with an op column; \
            .oracleGeneral or .bin: oracleGeneral, with each request's next access computed; \
            .lcs: lcs version 3 (--lcs-version 1 to 8 for the others), with the op and the trace's \
            statistics in its header, in the 8 KiB layout of libCacheSim's PyPI release 0.3.5 (--to lcs-aa0fc40: the repository's \
            1 KiB layout at commit aa0fc40, format <IQIQ, as its traceConv writes it); \
            .jsonl: an app recording, e.g. from a HAR, saying what the HAR lacks) \
            unless --to says. The output appears whole or not at all.

            Examples:
              bench convert kvcache.csv kvcache.oracleGeneral.bin
              bench convert kvcache.csv kvcache.lcs
              bench convert kvcache.csv kvcache.lcs --to lcs-aa0fc40
              bench convert kvcache.csv kvcache-v1.lcs --lcs-version 1
              bench convert upload.tsv.zst upload.oracleGeneral.bin
              bench convert cluster52 c52.csv --format twitter
              bench convert session.har session.jsonl
            """)

    @Argument(help: ArgumentHelp("Trace to read (compressed is fine).", valueName: "in"))
    var input: String

    @Argument(help: ArgumentHelp("File to write.", valueName: "out"))
    var output: String

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Output format: csv, oracle-general, lcs, lcs-aa0fc40 or app-recording (default: from OUT's name).", valueName: "format"))
    var to: String?

    @Option(name: .customLong("lcs-version"), help: ArgumentHelp("lcs record version, 1 to 8 (libCacheSim 0.3.5's lcs.h; default 3: 64-bit sizes and the op; 1 has no op, 1 and 2 32-bit sizes, 4–8 add 1–16 feature words, written 0).", valueName: "n"))
    var lcsVersion: Int?

    @OptionGroup var reading: TraceReadingOptions

    func run() throws {
        try reportingErrors {
            let trace = try TraceFile(path: input, format: reading.format.map(TraceFormat.named), skipBadRows: reading.skipBad,
                                      formatOptions: reading.formatOptions)
            let target = try TraceConversion.Target(named: to, path: output)
            try OutputFile.check(outputs: [("output", output)], inputs: [input])
            let lock = try OutputLock.claim([output])  // a second writer of the same file is refused
            defer { withExtendedLifetime(lock) {} }
            try reading.writeReadingNotes(path: input, runs: .asVisits(how: "bench convert writes them as one stream, and a replay of it takes them"))
            let written = try TraceConversion.convert(trace, to: output, as: target, lcsVersion: lcsVersion)
            let summary = "\(input) → \(output) (\(target.rawValue)): \(written.requests) requests" + (written.skipped > 0 ? ", \(written.skipped) malformed rows skipped" : "")
                + written.losses.phrases.map { ", " + $0 }.joined() + "\n"
            // The trace itself may be on standard output: the summary then goes to stderr.
            if written.toFile { try StandardOutput.write(summary) } else { FileDescriptorOutput.write(summary, to: 2) }
        }
    }
}

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Describe a trace: requests, unique keys, working set, sizes, one-hit wonders, reuse distances, image dimensions.",
        discussion: """
            Examples:
              bench stats Traces/default.csv
              bench stats Traces/http-session.har.gz --json
              bench stats --trace Traces/app-lru.jsonl
            """)

    @OptionGroup var operand: TraceOperand

    @OptionGroup var reading: TraceReadingOptions

    @Flag(name: .long, help: "Print the figures as JSON (shares as fractions, sizes in bytes).")
    var json = false

    func run() throws {
        try reportingErrors {
            let file = try operand.path()
            let trace = try TraceFile(path: file, format: reading.format.map(TraceFormat.named), skipBadRows: reading.skipBad,
                                      formatOptions: reading.formatOptions)
            try reading.writeReadingNotes(path: file)
            let statistics = try TraceStatistics.compute(trace)
            if json {
                try StandardOutput.write(statistics.json(trace: file, format: trace.format.name))
                return
            }
            try StandardOutput.writeTable(statistics.text(label: "\(file) (\(trace.format.name))"), besides: [])
        }
    }
}
