import WorkbenchCore
/// The text of `prefetch=…` and `prefetch-params=…` (libCacheSim cachesim's `-p` and
/// `--prefetch-params`: comma-separated `key=value`, keys as libCacheSim spells them).
enum PrefetchChoice {
    case obl(blockSize: Int, confidence: Int)

    static let help = "a prefetcher in front of the policy, as libCacheSim's cachesim -p: obl (One Block Lookahead); prefetch-params=key=value,… as its --prefetch-params (obl: block-size=512, sequential-confidence-k=4); see docs/prefetch.md"
    static let shortHelp = "as lru: obl"
    static let paramsHelp = "the prefetcher's parameters, as libCacheSim's --prefetch-params (obl: block-size=N,sequential-confidence-k=K)"

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
        default:
            throw bad("unknown prefetcher \(ErrorText.quote(name)); prefetch= takes obl")
        }
        if let extra = values.keys.sorted().first { throw bad("\(name) has no parameter \(ErrorText.quote(extra))") }
    }

    func make() -> any Prefetcher {
        switch self {
        case .obl(let blockSize, let confidence): OBLPrefetcher(blockSize: blockSize, confidence: confidence)
        }
    }}
