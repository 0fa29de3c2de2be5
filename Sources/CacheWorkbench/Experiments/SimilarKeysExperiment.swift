import WorkbenchReports
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import WorkbenchSimulation
import Histogram

/// The similar-key degradation of NSCache: long URL keys (over 96 UTF-16 units) that differ
/// only outside CFStringHash's three 32-unit windows all share one hash, so a lookup scans
/// every colliding key with a full string compare. A control set of the same shape differs
/// inside a window. For each N the experiment fills each variant with N keys, then times a
/// seeded sample of lookups (all hits).
public struct SimilarKeysExperiment {
    public enum KeySet: String, Sendable, CaseIterable { case similar, control }

    /// A variant under test: a backend with its options.
    public struct Variant: Sendable {
        public var label: String
        public var backend: String
        public var keyHash: StringKeyHash?
    }

    public static let variants = [
        Variant(label: "nscache --key-hash cf", backend: "nscache", keyHash: .cf),
        Variant(label: "nscache --key-hash full", backend: "nscache", keyHash: .full),
        Variant(label: "nscache --key-hash digest", backend: "nscache", keyHash: .digest),
        Variant(label: "foundation-nscache", backend: "foundation-nscache", keyHash: nil),
    ]

    public struct Row: Sendable {
        public var n: Int
        public var keySet: KeySet
        public var variant: Variant
        public var keyLength: Int
        public var distinctCFHashes: Int
        public var lookups: Int
        public var get: LatencySummary
        public var insertSeconds: Double
    }

    public var sizes: [Int]
    /// Lookups timed per (N, key set, variant); fewer when N is smaller.
    public var lookups: Int
    public var seed: UInt64

    public init(sizes: [Int], lookups: Int = 2_000, seed: UInt64 = 1) {
        self.sizes = sizes
        self.lookups = lookups
        self.seed = seed
    }

    /// Key `index` of a set: 173 characters, so CFStringHash reads units 0..<32, 70..<102
    /// and 141..<173. `similar` keys carry their counter at 41..<57, between the first two
    /// windows; `control` keys at 157..<173, inside the last.
    public static func key(_ index: Int, in set: KeySet) -> String {
        let counter = String(index)
        let digits = String(repeating: "0", count: 16 - counter.count) + counter
        let fixed = String(repeating: "0", count: 16)
        let (gap, tail) = set == .similar ? (digits, fixed) : (fixed, digits)
        return "https://images.example-cdn.com/v2/photos/" + gap
            + "/feed__/1170x1463.jpg?q=80&fmt=jpeg&w=1170&h=1463&cache=immutable&v=2026&sig=abcdef0123456789abc&id="
            + tail
    }

    public func run(progress: (String) -> Void = { _ in }) throws -> [Row] {
        var rows: [Row] = []
        for n in sizes {
            for keySet in KeySet.allCases {
                let keys = (0..<n).map { Self.key($0, in: keySet) }
                let requests = keys.map { Request(time: 0, key: $0, size: 1) }
                let distinct = Set(keys.map(CFStringHash.hash)).count
                var random = SeededRandom(seed: seed ^ UInt64(n))
                let sample = (0..<min(lookups, n)).map { _ in requests[Int(random.next() % UInt64(n))] }
                for variant in Self.variants {
                    progress("n=\(n) \(keySet.rawValue) \(variant.label)")
                    var options: [String: String] = [:]
                    if let hash = variant.keyHash { options["key-hash"] = hash.rawValue }
                    let backend = try BackendRegistry.named(variant.backend).make(
                        BackendConfig(capacityBytes: 1 << 40, options: options))
                    let started = MonotonicClock.now()
                    for request in requests { try backend.set(request, cost: 1, payload: nil) }
                    let insertSeconds = Double(MonotonicClock.now() - started) / 1e9
                    var latency = LatencyRecorder()
                    for request in sample {
                        let before = MonotonicClock.now()
                        let hit = try backend.get(request)
                        latency.record(MonotonicClock.now() &- before)
                        guard hit else { throw WorkbenchError("similar-keys: \(variant.label) lost a key it was given") }
                    }
                    rows.append(Row(
                        n: n, keySet: keySet, variant: variant, keyLength: keys[0].utf16.count,
                        distinctCFHashes: distinct, lookups: sample.count, get: latency.summary!,
                        insertSeconds: insertSeconds))
                }
            }
        }
        return rows
    }

    public static let columnNames = [
        "n", "key_set", "variant", "backend", "key_hash", "key_length", "distinct_cf_hashes", "lookups",
        "get_p50_ns", "get_p90_ns", "get_p99_ns", "get_max_ns", "insert_s", "git_rev", "swift_version",
    ]

    public static func csv(_ rows: [Row], environment: RunEnvironment) -> String {
        var text = columnNames.joined(separator: ",") + "\n"
        for row in rows {
            let cells: [Cell] = [
                .int(row.n), .text(row.keySet.rawValue), .text(row.variant.label), .text(row.variant.backend),
                .from(row.variant.keyHash?.rawValue ?? "cf (NSString.hash)"), .int(row.keyLength), .int(row.distinctCFHashes),
                .int(row.lookups), .from(row.get.p50), .from(row.get.p90), .from(row.get.p99), .from(row.get.max),
                .double(row.insertSeconds), .text(environment.gitRevision), .text(environment.swiftVersion),
            ]
            text += cells.map(CSVReport.field).joined(separator: ",") + "\n"
        }
        return text
    }

    /// The table, then per N how much slower the similar keys are than `full` hashing.
    public static func table(_ rows: [Row]) -> String {
        var text = "n       keys     variant                      get p50     get p99   fill (s)  distinct CF hashes\n"
        for row in rows {
            text += String(row.n).padding(8) + row.keySet.rawValue.padding(9) + row.variant.label.padding(27)
            text += TableReport.nanoseconds(row.get.p50).padding(10, left: true) + TableReport.nanoseconds(row.get.p99).padding(12, left: true)
            text += String(format2: row.insertSeconds).padding(11, left: true) + String(row.distinctCFHashes).padding(20, left: true) + "\n"
        }
        text += "\nSlowdown on similar keys, get p50 relative to nscache --key-hash full:\n"
        for n in Array(Set(rows.map(\.n))).sorted() {
            let similar = rows.filter { $0.n == n && $0.keySet == .similar }
            guard let full = similar.first(where: { $0.variant.keyHash == .full }) else { continue }
            let ratios = similar.filter { $0.variant.keyHash != .full }.map { row in
                "\(row.variant.label) \(String(format2: Double(row.get.p50) / Double(max(full.get.p50, 1))))×"
            }
            text += "  n=\(n): " + ratios.joined(separator: ", ") + "\n"
        }
        return text
    }
}
