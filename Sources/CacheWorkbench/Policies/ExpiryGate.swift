import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// `--use-ttl`: objects expire as libCacheSim's code expires them when built with TTLs
/// (`SUPPORT_TTL`, cache/cache.c at aa0fc40): a stored object lives until the request's
/// time plus its TTL (`copy_request_to_cache_obj`), a TTL of 0 meaning libCacheSim's default
/// of 300 days (`cache_insert_base`, `DEFAULT_TTL`); a lookup at a later time (strictly:
/// `exp_time < clock_time`, `cache_find_base`) finds it expired: it is removed and the
/// request is a miss, stored again with its own TTL. A hit does not refresh the expiry.
/// Times count from the trace's first request, as cachesim's do. libCacheSim's own build
/// has TTLs compiled out (its cachesim reads `--use-ttl` and ignores it), and compiled in it
/// dereferences NULL at the first expired object (cache.c:197–199): the figures compared
/// are those of that code with the one-line guard (docs/policies-cachesim-rest.md).
///
/// Complexity: O(1) per request; O(objects ever stored) memory (an expiry per id, kept
/// after an eviction until the id is stored again).
final class ExpiryGate<Inner: CacheBackend & PrefetchTarget>: GateForwarding {
    /// libCacheSim's `DEFAULT_TTL` (86400 × 300 s, bin/cachesim/cache_init.h:19).
    static var defaultTTL: Double { 86_400 * 300 }

    let inner: Inner
    private var expiry: [UInt64: Double] = [:]
    private var start: Double?
    private var expired = 0
    private var carried = 0
    private var seen = 0

    init(_ inner: Inner) { self.inner = inner }

    var settings: String { inner.settings.isEmpty ? "ttl=on" : inner.settings + ";ttl=on" }

    func get(_ request: Request) throws -> Bool {
        if start == nil { start = request.time }
        seen += 1
        if request.ttl > 0 { carried += 1 }
        if let until = expiry[request.id], until < request.time - start!, inner.isCachedUntouched(request.id) {
            expired += 1
            expiry[request.id] = nil
            try inner.remove(request)
        }
        return try inner.get(request)
    }

    func admits(_ request: Request, cost: Int) -> Bool? { inner.admits(request, cost: cost) }

    func set(_ request: Request, cost: Int, payload: Payload?) throws {
        if start == nil { start = request.time }
        try inner.set(request, cost: cost, payload: payload)
        expiry[request.id] = request.time - start! + (request.ttl > 0 ? Double(request.ttl) : Self.defaultTTL)
    }

    func remove(_ request: Request) throws {
        expiry[request.id] = nil
        try inner.remove(request)
    }


    var details: BackendDetails {
        var details = inner.details
        details.remark(expired, "requests found their object expired (--use-ttl): removed, a miss, stored again with the request's TTL")
        if carried == 0 {
            details.remark(seen, "requests, none with a TTL (a ttl column, Twitter's and CacheLib's traces, lcs version 3 and later): under --use-ttl each object lives libCacheSim's default 300 days")
        }
        return details
    }
}

/// A prefetcher in front inserts through the gate: its objects get libCacheSim's default
/// expiry (a prefetched request's TTL is 0 there too).
extension ExpiryGate: PrefetchTarget {
    func isCachedUntouched(_ id: UInt64) -> Bool { inner.isCachedUntouched(id) }
    func insertPrefetched(_ id: UInt64, cost: Int) { inner.insertPrefetched(id, cost: cost) }
    var keepsGhosts: Bool { inner.keepsGhosts }
}

/// Which policies `--use-ttl` applies to: those whose libCacheSim lookup goes through
/// `cache_find_base`, where expiry is checked (LRU.c:133, FIFO.c:124, Clock.c:148,
/// Sieve.c:127, ARC.c:223, LFU.c:169); the others are refused, saying why.
package enum ExpiryRules {
    static let checkedPolicies: Set<String> = ["lru", "fifo", "clock", "sieve", "arc", "lfu"]

    static let otherwise: [String: String] = [
        "s3fifo": "in its two FIFOs, but an object promoted to its main FIFO is rebuilt from a blank request (ttl 0, time 0: S3FIFO.c:332, 343), so it never expires",
        "slru": "nowhere: SLRU_find looks up its hash table directly (SLRU.c:245)",
    ]

    /// The refusal for `policy`, nil when it takes `--use-ttl`.
    package static func refusal(for policy: String) -> WorkbenchError? {
        guard !checkedPolicies.contains(policy) else { return nil }
        let why = otherwise[policy] ?? "nowhere the workbench follows (only lru, fifo, clock, sieve, arc and lfu look objects up through cache_find_base, which expires them)"
        return WorkbenchError("--use-ttl: \(policy) is not offered with it: its libCacheSim code checks expiry \(why)")
    }
}
