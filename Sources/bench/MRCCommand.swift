import ArgumentParser
import CacheWorkbench

struct MRCCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mrc",
        abstract: "Policies' miss-ratio curves: object and byte miss ratio at every capacity.",
        discussion: """
            lru: stack distances (Mattson 1970) with byte sizes give, in one pass, the hits
            LRU would have at each capacity — equal to `bench run --backend lru` there, the
            too-large rule included; SHARDS samples keys for traces too big for that (at a
            rate, or a fixed --sample-size). Any policy: exact replays per capacity, or
            MiniSim (mini caches at capacity × R over keys sampled at rate R). The output
            says which method and rate ran; --against-exact measures a sampled curve's error.
            Several policies (--policy lru,s3fifo,arc) are computed from one read of the
            trace, their simulators spread over --jobs cores.

            Examples:
              bench mrc --trace zipf.oracleGeneral.bin --points 100 --csv mrc.csv
              bench mrc --trace zipf.oracleGeneral.bin --capacity 64MiB,1GiB,10%
              bench mrc --trace big.oracleGeneral.bin --sampling-rate 0.01 --against-exact
              bench mrc --trace big.oracleGeneral.bin --sample-size 8192
              bench mrc --trace zipf.oracleGeneral.bin --policy s3fifo \\
                  --method minisim --sampling-rate 0.01
              bench mrc --trace big.oracleGeneral.bin --policy lru,s3fifo,arc,sieve \\
                  --sampling-rate 0.01
            """)

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Trace file (default: the bundled Traces/default.csv).", valueName: "file"))
    var trace: String?

    @OptionGroup var reading: TraceReadingOptions

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Policies of `bench list --group policies`, comma-separated: all their curves from one read (variants in brackets: wtinylfu[variant=caffeine]).", valueName: "list"))
    var policy = "lru"

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("exact, shards (lru) or minisim (default: lru exact; others exact up to 1,000,000 requests, else minisim at 0.01).", valueName: "method"))
    var method: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Capacities as in `bench run` (bytes, 64MiB, 10%, ram:15% with --device); overrides --points.", valueName: "list"))
    var capacity: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("An iPhone/iPad class (bench list --devices) whose RAM ram:P% capacities are shares of.", valueName: "name"))
    var device: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Log-spaced capacities from 1/10,000 of the working set to all of it.", valueName: "n"))
    var points = 100

    @Flag(name: .long, help: "Every object counts 1: capacities are in objects.")
    var ignoreObjSize = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Key sampling rate of SHARDS or MiniSim, e.g. 0.01 or 1% (MiniSim: 1/R whole).", valueName: "rate"))
    var samplingRate: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Fixed-size SHARDS: follow at most N keys, the rate adapting (lru).", valueName: "n"))
    var sampleSize: String?

    @Flag(name: .long, help: "SHARDS without the SHARDS_adj correction (plain sampled ratios).")
    var noAdjust = false

    @Flag(name: .long, help: "With a sampled method: also compute the exact curve and report the error.")
    var againstExact = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Write the curve as CSV to this file.", valueName: "file"))
    var csv: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Cores the curves' simulators are spread over (default: every core).", valueName: "n"))
    var jobs: Int?

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
            arguments.method = method
            arguments.sampleSize = sampleSize
            arguments.adjust = !noAdjust
            arguments.againstExact = againstExact
            arguments.csv = csv
            arguments.jobs = jobs
            let outcome = try MissRatioCurveRun(arguments).execute(progress: ProgressLine())
            try reading.writeReadingNotes(path: trace, runs: .asVisits(how: "bench mrc replays them"))
            for note in outcome.notes { FileDescriptorOutput.write("bench: note: \(note)\n", to: 2) }
            try StandardOutput.writeTable(outcome.table, besides: [csv])
        }
    }
}
