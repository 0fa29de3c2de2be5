import ArgumentParser
import CacheWorkbench

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Replay a trace against backends at one or more capacities.",
        discussion: """
            Every backend runs at every capacity, each replay from the start of the trace \
            (demand-fill: a miss inserts the object). Results print as a table; --csv and \
            --json write every column (see README).

            Examples:
              bench run --trace Traces/default.csv --backend lru --capacity 64MiB,256MiB,10%
              bench run --trace big.csv --preload --no-timing --capacity 1%,5%,10% --csv sweep.csv
            """)

    @Option(name: .long, help: ArgumentHelp("Trace file to replay (default: the bundled Traces/default.csv).", valueName: "file"))
    var trace: String?

    @Option(name: .long, help: ArgumentHelp("Trace format; detected from the file name when omitted. See `bench list`.", valueName: "name"))
    var format: String?

    @Option(name: .long, help: ArgumentHelp("Backends, comma-separated, or `all`. See `bench list`.", valueName: "list"))
    var backend = "all"

    @Option(name: .long, help: ArgumentHelp("Capacities, comma-separated (a sweep): bytes, 64MiB (MB = MiB = 2^20), 10% or 0.1 of the working set.", valueName: "list"))
    var capacity = "10%"

    @Option(name: .long, help: ArgumentHelp("What an object costs: `encoded` (the size column) or `pixels` (width × height × 4, else size).", valueName: "model"))
    var cost = "encoded"

    @Option(name: .long, help: ArgumentHelp("Write all results columns as CSV to this file.", valueName: "file"))
    var csv: String?

    @Option(name: .long, help: ArgumentHelp("Write the results as JSON to this file.", valueName: "file"))
    var json: String?

    @Flag(name: .long, help: "Don't time backend calls (pure hit-ratio sweeps run faster; latency columns stay empty).")
    var noTiming = false

    @Flag(name: .long, help: "Read the whole trace into memory first, so throughput measures cache work, not parsing.")
    var preload = false

    @Flag(name: .long, help: "Skip malformed trace rows and report how many, instead of stopping at the first.")
    var skipBad = false

    @Option(name: .long, help: ArgumentHelp("Seed for randomized backends and policies (recorded in the results).", valueName: "n"))
    var seed: UInt64 = 1

    @Option(name: .long, help: ArgumentHelp("Sample allocated memory and RSS every N requests.", valueName: "n"))
    var sampleEvery = 65_536

    func validate() throws {
        guard sampleEvery > 0 else { throw ValidationError("--sample-every must be at least 1") }
    }

    func run() throws {
        try reportingErrors {
            let setup = try RunSetup(
                tracePath: trace, format: format, backends: backend, capacities: capacity, cost: cost,
                timing: !noTiming, preload: preload, skipBad: skipBad, seed: seed, sampleEvery: sampleEvery,
                csv: csv, json: json)
            let progress = ProgressLine()
            let outcome = try setup.execute(progress: progress)
            print(outcome.table, terminator: "")
            if outcome.anyFailed { throw ExitCode(1) }
        }
    }
}
