import ArgumentParser
import CacheWorkbench

struct SweepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Every backend at every capacity of a list or a range, points run in parallel.",
        discussion: """
            Takes `bench run`'s options. --capacity also takes a range A..B (both sizes or \
            both shares of the working set), split into --points capacities, log-spaced by \
            default. Points run --jobs at a time (default: one per core), each a replay of \
            its own, so hit ratios equal a serial `bench run` of the same points; timing and \
            memory columns are shared with the points in flight (use --jobs 1 for them). \
            With --csv FILE, finished rows go to FILE.partial as they finish; an interrupted \
            sweep continues with --resume, and FILE is written whole at the end.

            Examples:
              bench sweep --trace zipf.oracleGeneral.bin --backend policies --capacity 1%..50% --points 12 --no-timing --csv sweep.csv
              bench sweep --trace zipf.oracleGeneral.bin --backend policies --capacity 1%..50% --points 12 --no-timing --csv sweep.csv --resume
              bench sweep --backend default --capacity 16MiB..1GiB --points 8 --csv memory.csv
              bench sweep --trace OLTP.lis --ignore-obj-size --backend arc,lru --capacity 1000..100000 --points 10
            """)

    @OptionGroup var replay: ReplayArguments

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Capacities in a range A..B (2–10,000).", valueName: "n"))
    var points = 12

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Spacing of a range's capacities: log or linear.", valueName: "log|linear"))
    var spacing = "log"

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Points replayed at once (default: one per core).", valueName: "n"))
    var jobs: Int?

    @Flag(name: .long, help: "Continue an interrupted sweep from --csv FILE's FILE.partial: only the points it lacks are run.")
    var resume = false

    func run() throws {
        try reportingErrors {
            var arguments = SweepRun.Arguments()
            arguments.run = replay.setupArguments()
            arguments.points = points
            arguments.spacing = spacing
            arguments.jobs = jobs
            arguments.resume = resume
            let outcome = try SweepRun(arguments).execute(progress: ProgressLine())
            for note in outcome.notes { FileDescriptorOutput.write("bench: note: \(note)\n", to: 2) }
            try StandardOutput.write(outcome.table)
            if outcome.anyFailed { throw ExitCode(1) }
        }
    }
}
