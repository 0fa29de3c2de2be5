import WorkbenchReports
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import WorkbenchSimulation
/// The cost of one AFAutoPurgingImageCache purge: `autopurge` sorts every entry by last
/// access, `autopurge-o1` pops its recency list. Each round fills a cache with exactly
/// `entries` objects, shuffles their recency with seeded random reads (so the oldest
/// entries are not laid out in order in memory), then times the one store that takes
/// usage over capacity and triggers the purge down to the preferred usage.
public struct PurgeExperiment {
    public struct Row: Sendable {
        public var backend: String
        public var entries: Int
        public var removed: Int
        /// One value per round, nanoseconds.
        public var purgeNanoseconds: [UInt64]

        public var median: UInt64 { purgeNanoseconds.sorted()[purgeNanoseconds.count / 2] }
    }

    public var entries: Int
    public var rounds: Int
    public var seed: UInt64
    public static let backends = ["autopurge", "autopurge-o1"]

    public init(entries: Int = 100_000, rounds: Int = 5, seed: UInt64 = 1) {
        self.entries = entries
        self.rounds = rounds
        self.seed = seed
    }

    static func key(_ index: Int) -> String {
        "https://images.example-cdn.com/v2/photos/\(index)/feed.jpg?w=1170&h=1463&q=80"
    }

    public func run(progress: (String) -> Void = { _ in }) throws -> [Row] {
        let cost = 1_000
        let requests = (0...entries).map { Request(time: 0, key: Self.key($0), size: cost) }
        var rows: [Row] = []
        for name in Self.backends {
            var row = Row(backend: name, entries: entries, removed: 0, purgeNanoseconds: [])
            for round in 0..<rounds {
                progress("\(name): round \(round + 1) of \(rounds)")
                let backend = try BackendRegistry.named(name).make(BackendConfig(capacityBytes: entries * cost))
                for request in requests.dropLast() { try backend.set(request, cost: cost, payload: nil) }
                var random = SeededRandom(seed: seed &+ UInt64(round))
                for _ in 0..<entries { _ = try backend.get(requests[Int(random.next() % UInt64(entries))]) }
                let before = backend.facts.entries
                let started = MonotonicClock.now()
                try backend.set(requests[entries], cost: cost, payload: nil)
                row.purgeNanoseconds.append(MonotonicClock.now() - started)
                row.removed = before + 1 - backend.facts.entries
            }
            rows.append(row)
        }
        return rows
    }

    public static func table(_ rows: [Row]) -> String {
        var text = "backend        entries  removed  purge median  min        max\n"
        for row in rows {
            let sorted = row.purgeNanoseconds.sorted()
            let cells = [row.backend.padding(13), String(row.entries).padding(8, left: true), String(row.removed).padding(8, left: true),
                         TableReport.nanoseconds(row.median).padding(13, left: true), TableReport.nanoseconds(sorted.first!).padding(10, left: true),
                         TableReport.nanoseconds(sorted.last!).padding(10, left: true)]
            text += cells.joined(separator: " ") + "\n"
        }
        if rows.count == 2 {
            text += "\nautopurge-o1 purges \(String(format2: Double(rows[0].median) / Double(max(rows[1].median, 1))))× cheaper (medians)\n"
        }
        return text
    }

    public static func csv(_ rows: [Row], environment: RunEnvironment) -> String {
        var text = "backend,entries,removed,round,purge_ns,git_rev,swift_version\n"
        for row in rows {
            for (round, value) in row.purgeNanoseconds.enumerated() {
                text += "\(CSVReport.escape(row.backend)),\(row.entries),\(row.removed),\(round + 1),\(value),\(CSVReport.escape(environment.gitRevision)),\(CSVReport.escape(environment.swiftVersion))\n"
            }
        }
        return text
    }
}
