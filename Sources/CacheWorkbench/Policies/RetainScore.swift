import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// What libCacheSim's batch-examining FIFOs (`FIFO_Merge.c`, `FIFO_Reinsertion.c`) keep per
/// object and how they score it (`retain_metric`): a request clock (`n_req`), each object's
/// hits and last access, and the score `retain-policy` names —
/// - freq: 10^6 × (hits + r) / size, r = (next_rand() mod 1000) / 10^4 drawn per scored object
///   with libCacheSim's generator (`LibCacheSimRandom`, options `generator` and `seed`);
/// - recency: 10^12 / (requests since the last access) / size.
/// All O(1).
struct RetainScore {
    struct Meta {
        var hits: Int32
        var lastAccess: Int
    }

    enum Retain: String { case freq, recency }

    let retain: Retain
    private var random: LibCacheSimRandom
    /// libCacheSim's `n_req`: requests seen so far, this one included.
    private(set) var requests = 0

    /// `fallback`: the policy's default score (FIFO-Merge's freq, FIFO-Reinsertion's recency).
    init(options: PolicyOptions, default fallback: Retain) throws {
        let name = options.values["retain-policy"]?.trimmingSpaces.lowercased() ?? fallback.rawValue
        guard let retain = Retain(rawValue: name == "frequency" ? "freq" : name) else {
            throw WorkbenchError("--retain-policy must be freq or recency, not \(ErrorText.quote(name))")
        }
        self.retain = retain
        random = try LibCacheSimRandom(options: options)
    }

    var newMeta: Meta { Meta(hits: 0, lastAccess: requests) }
    var settings: String { "retain-policy=\(retain.rawValue);\(random.settings)" }

    /// The generator its freq scores draw from.
    var libCacheSimRandom: LibCacheSimRandom { random }

    /// A hit counts one (saturating) and stamps the object.
    @inline(__always) mutating func hit(_ meta: inout Meta) {
        requests += 1
        if meta.hits < .max { meta.hits += 1 }
        meta.lastAccess = requests
    }

    @inline(__always) mutating func miss() { requests += 1 }

    mutating func score(_ meta: Meta, cost: Int) -> Double {
        switch retain {
        case .freq:
            let r = Double(random.next() % 1000) / 10000.0
            return 1.0e6 * (Double(meta.hits) + r) / Double(cost)
        case .recency:
            return 1.0e12 / Double(requests - meta.lastAccess) / Double(cost)
        }
    }
}
