import ArgumentParser
import CacheWorkbench
import Foundation

struct ExperimentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "experiment",
        abstract: "Run a packaged experiment.",
        subcommands: [SimilarKeys.self, Purge.self])

    struct SimilarKeys: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "similar-keys",
            abstract: "NSCache's similar-key degradation: lookups of long URLs that collide under CFStringHash.",
            discussion: """
                For each N: N keys of 173 characters that differ only outside CFStringHash's \
                windows (all one hash), and a control set that differs inside one; each fills \
                nscache with --key-hash cf, full and digest, and the real Foundation NSCache; \
                then a seeded sample of lookups is timed.

                Example:
                  bench experiment similar-keys --n 1000,5000,20000 --csv similar.csv
                """)

        @Option(name: .long, help: ArgumentHelp("Key counts, comma-separated.", valueName: "list"))
        var n = "1000,5000,20000"

        @Option(name: .long, help: "Lookups timed per key count, key set and variant (all when N is smaller).")
        var lookups = 2_000

        @Option(name: .long, help: "Seed for the lookup sample.")
        var seed: UInt64 = 1

        @Option(name: .long, help: ArgumentHelp("Write the rows as CSV to this file.", valueName: "file"))
        var csv: String?

        func run() throws {
            try reportingErrors {
                let sizes = try n.split(separator: ",").map { part -> Int in
                    guard let value = Int(part.trimmingCharacters(in: .whitespaces)), value > 0 else {
                        throw ValidationError("--n takes whole numbers above 0, comma-separated")
                    }
                    return value
                }
                guard lookups > 0 else { throw ValidationError("--lookups must be at least 1") }
                try runExperiment(
                    csv: csv, run: { progress in try SimilarKeysExperiment(sizes: sizes, lookups: lookups, seed: seed).run { progress.show($0) } },
                    csvText: SimilarKeysExperiment.csv, table: SimilarKeysExperiment.table)
            }
        }
    }

    struct Purge: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "purge",
            abstract: "The cost of one AFAutoPurgingImageCache purge: autopurge (sort all) against autopurge-o1 (recency list).",
            discussion: """
                Each round fills a cache with exactly --entries objects, shuffles their recency \
                with random reads, then times the one store that triggers the purge (down to 60% \
                of capacity). Reports the median, min and max over --rounds.

                Example:
                  bench experiment purge --entries 100000 --rounds 5
                """)

        @Option(name: .long, help: "Entries in the cache when the purge happens.")
        var entries = 100_000

        @Option(name: .long, help: "Rounds per backend (a fresh cache each).")
        var rounds = 5

        @Option(name: .long, help: "Seed for the recency shuffle.")
        var seed: UInt64 = 1

        @Option(name: .long, help: ArgumentHelp("Write every round as CSV to this file.", valueName: "file"))
        var csv: String?

        func validate() throws {
            guard entries >= 10 else { throw ValidationError("--entries must be at least 10") }
            guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
        }

        func run() throws {
            try reportingErrors {
                try runExperiment(
                    csv: csv, run: { progress in try PurgeExperiment(entries: entries, rounds: rounds, seed: seed).run { progress.show($0) } },
                    csvText: PurgeExperiment.csv, table: PurgeExperiment.table)
            }
        }
    }
}

/// What every experiment subcommand does around its experiment: check the CSV path before
/// the long part, show progress, write the CSV whole or not at all, print the table.
private func runExperiment<Row>(
    csv: String?, run: (ProgressLine) throws -> [Row], csvText: ([Row], RunEnvironment) -> String,
    table: ([Row]) -> String
) throws {
    if let csv { try AtomicFile.checkWritable(csv) }
    let environment = RunEnvironment.current()
    let progress = ProgressLine()
    let rows = try run(progress)
    progress.finish()
    if let csv { try AtomicFile.write(csvText(rows, environment), to: csv) }
    print(table(rows), terminator: "")
}
