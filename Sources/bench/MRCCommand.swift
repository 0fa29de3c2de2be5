import ArgumentParser
import CacheWorkbench

struct MRCCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mrc",
        abstract: "LRU's miss-ratio curve in one pass: object and byte miss ratio at every capacity.",
        discussion: """
            Stack distances (Mattson 1970) with byte sizes give, in one pass, the hits LRU
            would have at each capacity — equal to `bench run --backend lru` there, the
            too-large rule included. --sampling-rate below 1 samples keys (SHARDS) for
            traces too big for an exact curve; --against-exact measures its error.

            Examples:
              bench mrc --trace zipf.oracleGeneral.bin --points 100 --csv mrc.csv
              bench mrc --trace zipf.oracleGeneral.bin --capacity 64MiB,1GiB,10%
              bench mrc --trace big.oracleGeneral.bin --sampling-rate 0.01 --against-exact
            """)

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Trace file (default: the bundled Traces/default.csv).", valueName: "file"))
    var trace: String?

    @OptionGroup var reading: TraceReadingOptions

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Policy: lru (the one with a one-pass curve).", valueName: "name"))
    var policy = "lru"

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Capacities as in `bench run` (bytes, 64MiB, 10%, ram:15% with --device); overrides --points.", valueName: "list"))
    var capacity: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("An iPhone/iPad class (bench list --devices) whose RAM ram:P% capacities are shares of.", valueName: "name"))
    var device: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Log-spaced capacities from 1/10,000 of the working set to all of it.", valueName: "n"))
    var points = 100

    @Flag(name: .long, help: "Every object counts 1: capacities are in objects.")
    var ignoreObjSize = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("SHARDS key sampling rate, e.g. 0.01 or 1% (default 1: exact).", valueName: "rate"))
    var samplingRate = "1"

    @Flag(name: .long, help: "With --sampling-rate: also compute the exact curve and report the error.")
    var againstExact = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Write the curve as CSV to this file.", valueName: "file"))
    var csv: String?

    func run() throws {
        try reportingErrors {
            var arguments = MissRatioCurveRun.Arguments()
            arguments.trace = trace
            arguments.format = reading.format
            arguments.skipBad = reading.skipBad
            arguments.formatOptions = reading.formatOptions
            arguments.policy = policy
            arguments.capacities = capacity
            arguments.device = device
            arguments.points = points
            arguments.ignoreObjectSize = ignoreObjSize
            arguments.samplingRate = samplingRate
            arguments.againstExact = againstExact
            arguments.csv = csv
            let outcome = try MissRatioCurveRun(arguments).execute(progress: ProgressLine())
            try reading.writeReadingNotes(path: trace)
            for note in outcome.notes { FileDescriptorOutput.write("bench: note: \(note)\n", to: 2) }
            try StandardOutput.writeTable(outcome.table, besides: [csv])
        }
    }
}
