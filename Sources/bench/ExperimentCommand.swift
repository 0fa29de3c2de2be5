import ArgumentParser
import CacheWorkbench
import Foundation

struct ExperimentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "experiment",
        abstract: "Run a packaged experiment.",
        subcommands: [SimilarKeys.self, Purge.self, BlobSize.self])

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

        @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Key counts, comma-separated.", valueName: "list"))
        var n = "1000,5000,20000"

        @Option(name: .long, parsing: .unconditional, help: "Lookups timed per key count, key set and variant (all when N is smaller).")
        var lookups = 2_000

        @Option(name: .long, parsing: .unconditional, help: "Seed for the lookup sample.")
        var seed: UInt64 = 1

        @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Write the rows as CSV to this file.", valueName: "file"))
        var csv: String?

        func run() throws {
            try reportingErrors {
                let sizes = try n.split(separator: ",").map { part -> Int in
                    guard let value = Int(part.trimmingCharacters(in: .whitespaces)), (1...1_000_000).contains(value) else {
                        throw ValidationError("--n takes whole numbers from 1 to 1000000, comma-separated")
                    }
                    return value
                }
                guard (1...100_000_000).contains(lookups) else { throw ValidationError("--lookups must be from 1 to 100000000") }
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

        @Option(name: .long, parsing: .unconditional, help: "Entries in the cache when the purge happens.")
        var entries = 100_000

        @Option(name: .long, parsing: .unconditional, help: "Rounds per backend (a fresh cache each).")
        var rounds = 5

        @Option(name: .long, parsing: .unconditional, help: "Seed for the recency shuffle.")
        var seed: UInt64 = 1

        @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Write every round as CSV to this file.", valueName: "file"))
        var csv: String?

        func validate() throws {
            guard (10...10_000_000).contains(entries) else { throw ValidationError("--entries must be from 10 to 10000000") }
            guard (1...1_000).contains(rounds) else { throw ValidationError("--rounds must be from 1 to 1000") }
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

extension ExperimentCommand {
    struct BlobSize: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "blob-size",
            abstract: "SQLite blobs (all inline) against one file per blob, by blob size: µs per write and read, write amplification, footprint, crossover.",
            discussion: """
                For each size, writes --count blobs (at most --max-bytes worth) through the sqlite backend with every body inline and through the files backend, each in a fresh temporary folder, then reads --reads of them at random. Neither syncs unless --sync.

                Example:
                  bench experiment blob-size --sizes 1KiB,4KiB,10KiB,20KiB,50KiB,100KiB,1MiB \\
                      --count 2000
                """)

        @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Blob sizes, comma-separated (1KiB … 1MiB by default).", valueName: "list"))
        var sizes = "1KiB,4KiB,10KiB,20KiB,50KiB,100KiB,1MiB"

        @Option(name: .long, parsing: .unconditional, help: "Blobs written per size.")
        var count = 2_000

        @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("At most this many bytes written per size (fewer blobs for large sizes).", valueName: "size"))
        var maxBytes = "256MiB"

        @Option(name: .long, parsing: .unconditional, help: "Random reads per size and backend.")
        var reads = 4_000

        @Flag(name: .long, help: "Make writes durable: both stores at --durability full (each blob on storage when its write returns).")
        var sync = false

        @Option(name: .long, parsing: .unconditional, help: "Seed for the read order.")
        var seed: UInt64 = 1

        @Option(name: .long, parsing: .unconditional, help: "sqlite's PRAGMA page_size.")
        var pageSize = 4096

        @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("sqlite's PRAGMA mmap_size (e.g. 1GiB; default 0, no memory map).", valueName: "size"))
        var mmapSize = "0"

        @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Write the rows as CSV to this file.", valueName: "file"))
        var csv: String?


        func run() throws {
            try reportingErrors {
                let experiment = try BlobSizeExperiment(
                    sizes: sizes, count: count, maxBytes: maxBytes, reads: reads, sync: sync, seed: seed, pageSize: pageSize, mmapSize: mmapSize)
                try runExperiment(csv: csv, run: { progress in try experiment.run { progress.show($0) } },
                                  csvText: BlobSizeExperiment.csv, table: BlobSizeExperiment.table)
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
    if let csv { try OutputFile.check(outputs: [("--csv", csv)], inputs: []) }
    let environment = RunEnvironment.current()
    let progress = ProgressLine()
    let rows = try run(progress)
    progress.finish()
    if let csv { try OutputFile.write(csvText(rows, environment), to: csv) }
    try StandardOutput.writeTable(table(rows), besides: [csv])
}
