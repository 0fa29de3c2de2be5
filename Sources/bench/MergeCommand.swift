import ArgumentParser
import CacheWorkbench
import Foundation

struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge a plan's shard results into one results CSV, checking every planned point is there once.",
        discussion: """
            Every row must be a point of the plan, made by a run of this plan (its plan_id), \
            with the plan's trace checksum, workbench revision, backend and capacity; a missing or duplicated point is named, with the \
            shard that should have run it (when the files are named <plan>.shard-I-of-N.csv). \
            Failed points are merged as they are, named, and the exit status is 1. \
            --against FILE compares the merged rows with another results file of the same plan \
            (a local bench sweep --plan FILE --csv X), every column but the measured ones \
            (times, throughput, heap and RSS, run ids, folders).

            Examples:
              bench merge --plan plan.json plan.shard-*-of-8.csv --csv sweep.csv
              bench merge --plan plan.json plan.shard-*-of-8.csv --csv sweep.csv \\
                  --against local.csv
            """)

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The plan the shards ran.", valueName: "file"))
    var plan: String

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Write the merged CSV here (default: standard output).", valueName: "file"))
    var csv: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Compare the merged rows with this results file of the same plan; exit 1 when they differ.", valueName: "file"))
    var against: String?

    @Argument(help: ArgumentHelp("The shards' results files.", valueName: "results"))
    var results: [String] = []

    func run() throws {
        try reportingErrors {
            let planned = try SweepPlan.read(path: plan)
            try ShardMerge.checkOutput(csv, plan: planned, planPath: plan, results: results, against: against)
            let merge = try ShardMerge(plan: planned, planPath: plan, inputs: results)
            // --against is read (and a bad one refused) before anything is written.
            let differences = try against.map { try merge.differences(from: $0) }
            if let csv { try OutputFile.write(merge.merged, to: csv) } else { try StandardOutput.write(merge.merged) }
            FileDescriptorOutput.write("bench: merged \(merge.rows) points from \(results.count) files\n", to: 2)
            // A failed row is a failed point, never a finished sweep.
            if !merge.failed.isEmpty {
                FileDescriptorOutput.write("bench: failed: \(merge.failed.count) of \(merge.rows) points failed: \(merge.failed.prefix(8).joined(separator: "; "))\(merge.failed.count > 8 ? "; …" : ""); run their shards again (a shard runs its failed points again, keeping the rest), then merge\n", to: 2)
            }
            if let against, let differences {
                guard differences.isEmpty else {
                    for line in differences { FileDescriptorOutput.write("bench: differs: \(line)\n", to: 2) }
                    throw ExitCode(1)
                }
                FileDescriptorOutput.write("bench: the merged rows equal \(against)'s, measured columns aside\n", to: 2)
            }
            if !merge.failed.isEmpty { throw ExitCode(1) }
        }
    }
}
