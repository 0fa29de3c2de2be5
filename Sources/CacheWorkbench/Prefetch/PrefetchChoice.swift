import WorkbenchCore
/// The text of `prefetch=…` and `prefetch-params=…` (libCacheSim cachesim's `-p` and
/// `--prefetch-params`: comma-separated `key=value`, keys as libCacheSim spells them).
enum PrefetchChoice {
    case obl(blockSize: Int, confidence: Int)
    case pg(lookahead: Int, blockSize: Int, metadataShare: Double, threshold: Double)

    static let help = "a prefetcher in front of the policy, as libCacheSim's cachesim -p: obl (One Block Lookahead) or pg (probability graph); prefetch-params=key=value,… as its --prefetch-params (obl: block-size=512, sequential-confidence-k=4; pg: lookahead-range=20, block-size=1, max-metadata-size=0.1, prefetch-threshold=0.05); see docs/prefetch.md"
    static let shortHelp = "as lru: obl, pg"
    static let paramsHelp = "the prefetcher's parameters, as libCacheSim's --prefetch-params (obl: block-size=N,sequential-confidence-k=K; pg: lookahead-range=L,block-size=N,max-metadata-size=F,prefetch-threshold=T)"

    static func written(_ backend: String, _ text: String) -> String { ErrorText.quote("\(backend)[\(text)]") }

    init(parsing name: String, params: String?, backend: String) throws {
        func bad(_ reason: String) -> WorkbenchError {
            WorkbenchError("backend \(Self.written(backend, "prefetch=\(name)" + (params.map { ";prefetch-params=\($0)" } ?? ""))): \(reason)")
        }
        var values: [String: String] = [:]
        for pair in (params ?? "").split(separator: ",", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0]).trimmingSpaces.lowercased()
            guard parts.count == 2, !key.isEmpty, values[key] == nil else { throw bad("prefetch-params takes key=value pairs separated by commas, each key once, not \(ErrorText.quote(String(pair)))") }
            values[key] = String(parts[1]).trimmingSpaces
        }
        func integer(_ key: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
            guard let text = values.removeValue(forKey: key) else { return value }
            guard let number = Int(text), range.contains(number) else { throw bad("\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(ErrorText.quote(text))") }
            return number
        }
        switch name.trimmingSpaces.lowercased() {
        case "obl":
            // OBL.c exits on k ≤ 0; the ring is k ids, so a bound keeps it small.
            self = .obl(blockSize: try integer("block-size", default: 512, range: 1...(1 << 40)), confidence: try integer("sequential-confidence-k", default: 4, range: 1...1_000))
        case "pg":
            func share(_ key: String, default value: Double, above low: Double, atMost high: Double) throws -> Double {
                guard let text = values.removeValue(forKey: key) else { return value }
                guard let number = Double(text), number > low, number <= high else { throw bad("\(key) must be a number above \(low) and at most \(high), not \(ErrorText.quote(text))") }
                return number
            }
            // PG.c's check_params (an assert, compiled out) bounds the lookahead to 1…100.
            self = .pg(lookahead: try integer("lookahead-range", default: 20, range: 1...100), blockSize: try integer("block-size", default: 1, range: 1...(1 << 31)),
                       metadataShare: try share("max-metadata-size", default: 0.1, above: 0, atMost: 1_000),
                       threshold: try share("prefetch-threshold", default: 0.05, above: -1, atMost: 1))
        default:
            throw bad("unknown prefetcher \(ErrorText.quote(name)); prefetch= takes obl or pg")
        }
        if let extra = values.keys.sorted().first { throw bad("\(name) has no parameter \(ErrorText.quote(extra))") }
    }

    /// `capacity`: the cache's, in its units (PG's metadata budget is a share of it).
    func make(capacity: Int) -> any Prefetcher {
        switch self {
        case .obl(let blockSize, let confidence): OBLPrefetcher(blockSize: blockSize, confidence: confidence)
        case .pg(let lookahead, let blockSize, let share, let threshold):
            PGPrefetcher(capacity: capacity, lookahead: lookahead, blockSize: blockSize, metadataShare: share, threshold: threshold)
        }
    }}
