import ArgumentParser
import CacheWorkbench
import Foundation

struct SweepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Every backend at every capacity of a list or a range, points run in parallel.",
        discussion: """
            Takes `bench run`'s options. --capacity also takes a range A..B (both sizes or \
            both shares of the working set), split into --points capacities, log-spaced by \
            default. Points run --jobs at a time (default: one at a time with timing on, one \
            per core with --no-timing), each a replay of its own, so hit ratios equal a serial \
            `bench run` of the same points; with --jobs N and timing on, timing and memory \
            columns are shared with the points in flight (points_at_once in the CSV). \
            With --csv FILE, finished rows go to FILE.partial as they finish; an interrupted \
            sweep continues with --resume, and FILE is written whole at the end.

            Examples:
              bench sweep --trace zipf.oracleGeneral.bin --backend policies \\
                  --capacity 1%..50% --points 12 --no-timing --csv sweep.csv
              bench sweep --trace zipf.oracleGeneral.bin --backend policies \\
                  --capacity 1%..50% --points 12 --no-timing --csv sweep.csv --resume
              bench sweep --backend default --capacity 16MiB..1GiB --points 8 \\
                  --csv memory.csv
              bench sweep --backend nscache,autopurge --device iphone-13 \\
                  --capacity ram:1%..ram:25% --points 6 --csv device.csv
              bench sweep --trace OLTP.lis --ignore-obj-size --backend arc,lru \\
                  --capacity 1000..100000 --points 10
              bench sweep --trace zipf.oracleGeneral.bin --backend policies \\
                  --capacity 1%..50% --points 12 --no-timing --plan plan.json
              bench sweep --plan plan.json --shard 3/8   # --shard 8 in a Slurm array
              bench merge --plan plan.json plan.shard-*-of-8.csv --csv sweep.csv

            With --plan FILE, a sweep is planned first (written to FILE, nothing run), then run \
            as N independent shards anywhere the trace and this build are (a Slurm job array: \
            scripts/slurm/submit), and merged with bench merge.
            """)

    @OptionGroup var replay: ReplayArguments

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Capacities in a range A..B (2–10,000).", valueName: "n"))
    var points = 12

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Spacing of a range's capacities: log or linear.", valueName: "log|linear"))
    var spacing = "log"

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Points replayed at once (default: 1 with timing on, one per core with --no-timing).", valueName: "n"))
    var jobs: Int?

    @Flag(name: .customLong("no-fan-out"), help: "Replay each point with its own read of the trace, instead of one read for them all (untimed points fed together from it; or, for a binary trace that fits in a quarter of the memory available, the trace read into memory once and each point replayed from it). The counts are the same.")
    var noFanOut = false

    @Flag(name: .long, help: "Continue an interrupted sweep from --csv FILE's FILE.partial: only the points it lacks are run.")
    var resume = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("A new FILE: write the sweep's plan (every point, its trace and checksum) there and run nothing. An existing FILE: run that plan (all of it, or --shard's points).", valueName: "file"))
    var plan: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("With --plan FILE: run shard I of N (from 0); `N` alone takes I from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX. Results go to FILE's folder as <plan>.shard-I-of-N.csv unless --csv; a finished shard is not run again.", valueName: "I/N"))
    var shard: String?

    /// The sweep's arguments from these options.
    func sweepArguments() -> SweepRun.Arguments {
        var arguments = SweepRun.Arguments()
        arguments.run = replay.setupArguments()
        arguments.points = points
        arguments.spacing = spacing
        arguments.jobs = jobs
        arguments.resume = resume
        arguments.fanOut = !noFanOut
        return arguments
    }

    func run() throws {
        try reportingErrors {
            var arguments = sweepArguments()
            if let plan {
                let given = Array(CommandLine.arguments.drop { $0 != "sweep" }.dropFirst())
                guard FileManager.default.fileExists(atPath: plan) else {
                    if shard != nil { throw WorkbenchError("--shard runs a plan, and \(plan) does not exist; write it first (bench sweep … --plan \(plan))") }
                    let (made, notes) = try PlannedSweep.writePlan(arguments, commandLine: given, to: plan)
                    for note in notes { FileDescriptorOutput.write("bench: note: \(note)\n", to: 2) }
                    FileDescriptorOutput.write("bench: wrote \(plan): \(made.points.count) points; run it with bench sweep --plan \(plan) --shard I/N (or --csv FILE for all of it here)\n", to: 2)
                    return
                }
                let fixed = SweepPlan.planOptions(in: given)
                guard fixed.isEmpty else {
                    throw WorkbenchError("\(plan) exists, so this runs it, and its options are fixed: drop \(fixed.joined(separator: ", ")) (only --shard, --csv and --jobs go with a plan), or name a new file to write a new plan")
                }
                let planned = try SweepPlan.read(path: plan)
                let command: SweepCommand
                do {
                    command = try SweepCommand.parse(planned.command)
                } catch {
                    throw WorkbenchError("\(plan):1: its command does not parse: \(SweepCommand.message(for: error))")
                }
                let shardSpec = try shard.map { try ShardSpec.parse($0, environment: ProcessInfo.processInfo.environment) }
                let run = try PlannedSweep(plan: planned, planPath: plan, sweep: command.sweepArguments(), shard: shardSpec, csv: replay.csv, jobs: jobs)
                guard let ready = run.arguments else {
                    FileDescriptorOutput.write("bench: note: \(run.resultsPath) already holds this shard's \(run.points.count) points; nothing to run\n", to: 2)
                    return
                }
                if !run.rerunning.isEmpty {
                    FileDescriptorOutput.write("bench: note: \(run.resultsPath) holds \(run.rerunning.count) failed points (\(run.rerunning.prefix(8).map(String.init).joined(separator: ", "))\(run.rerunning.count > 8 ? ", …" : "")); running them again, its other rows kept\n", to: 2)
                }
                arguments = ready
                arguments.run.command = ShellQuoting.line(["bench", "sweep"] + planned.command)  // the sweep's, not this shard's
            } else if shard != nil {
                throw WorkbenchError("--shard runs a shard of a plan: add --plan FILE")
            }
            let outcome = try SweepRun(arguments).execute(progress: ProgressLine())
            if plan == nil { try replay.reading.writeReadingNotes(path: replay.trace, runs: .honoured(httpMode: replay.mode.lowercased() == "http")) }  // a plan's run reads the plan's trace
            for note in outcome.notes { FileDescriptorOutput.write("bench: note: \(note)\n", to: 2) }
            try StandardOutput.writeTable(outcome.table, besides: [replay.csv, replay.json, replay.timeline])
            if outcome.anyFailed { throw ExitCode(1) }
        }
    }
}
