import ArgumentParser
import CacheWorkbench

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Replay a trace against backends at one or more capacities.",
        discussion: """
            Every backend runs at every capacity, each replay from the start of the trace \
            (demand-fill: a miss inserts the object). Results print as a table; --csv and \
            --json write every column (docs/columns.md). Backend options (--key-hash, --eviction, \
            --count-limit, --purge-target, --inline-limit, --sqlite-evict, --journal-mode, \
            --durability, --synchronous, --batch, --page-size, --mmap-size, --fsync, --sweep-target, --max-age) \
            go to the backends that take them (`bench list`). Disk backends work in a fresh \
            temporary folder per replay unless --cache-dir. Every disk backend runs at one \
            --durability (default none: no fsync), so their latencies compare designs.

            Examples:
              bench run --trace Traces/default.csv --backend lru \\
                  --capacity 64MiB,256MiB,10%
              bench run --backend nscache,autopurge,autopurge-o1 --capacity 100MB \\
                  --memory-warning every:10000
              bench run --trace big.csv --preload --no-timing --capacity 1%,5%,10% \\
                  --csv sweep.csv
              bench run --backend sqlite,files --capacity 20MB --verify
              bench run --trace session.har --images-only --backend nscache,autopurge
              bench run --trace session.har --cost pixels --decoded-ratio 8 \\
                  --backend nscache
              bench run --trace session.har --cost pixels \\
                  --decoded-ratio jpeg=8,png=4,gif=12,other=6 --backend nscache
              bench run --backend kingfisher,nuke,sdwebimage,pincache,afnetworking \\
                  --device iphone-13
              bench run --backend lru,nscache --device iphone-se-2 \\
                  --capacity ram:5%,ram:15%
            """)

    @OptionGroup var replay: ReplayArguments

    func run() throws {
        try reportingErrors {
            let outcome = try RunSetup(replay.setupArguments()).execute(progress: ProgressLine())
            try replay.reading.writeReadingNotes(path: replay.trace, runs: .honoured(httpMode: replay.mode.lowercased() == "http"))
            for note in outcome.factsNotes + outcome.fallbackNotes { FileDescriptorOutput.write("bench: note: \(note)\n", to: 2) }
            try StandardOutput.writeTable(outcome.table, besides: [replay.csv, replay.json, replay.timeline, replay.disagreements])
            if outcome.anyFailed { throw ExitCode(1) }
        }
    }
}
