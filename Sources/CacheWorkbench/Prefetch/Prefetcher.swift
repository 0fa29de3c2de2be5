import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// A prefetcher in front of a policy (`lru[prefetch=obl]`), as libCacheSim's prefetchers sit
/// in its `cache_get_base` (cache/cache.c at aa0fc40): told of every demand request in its
/// lookup (`handle_find`, hit or miss, before a miss is stored), then asked after the
/// request what to insert (`prefetch`). `PrefetchGate` does the inserting. One file per
/// prefetcher.
protocol Prefetcher {
    /// A demand request, hit or miss, as the lookup sees it (`handle_find`).
    mutating func found(_ id: UInt64, size: Int, hit: Bool)
    /// After the request was served (and a miss stored): the objects to insert, in order,
    /// each with the size to insert it at (`prefetch`).
    mutating func candidates(after id: UInt64) -> [(id: UInt64, size: Int)]
    /// `prefetch=…` as written back in `backend_options`.
    var settings: String { get }
}

/// A backend a prefetcher can insert into as libCacheSim's prefetchers do: a lookup that
/// changes nothing (`find(cache, req, false)`), and an insertion after evicting while the
/// object does not fit (`cache->insert` directly: no admission, no `can_insert`).
protocol PrefetchTarget {
    /// Whether `id` is cached, without touching it (no promotion, no count).
    func isCachedUntouched(_ id: UInt64) -> Bool
    /// Evicts the policy's victims while `cost` does not fit, then inserts `id` (not cached),
    /// as a fresh object. O(victims) plus the policy's `admit`.
    func insertPrefetched(_ id: UInt64, cost: Int)
    /// Whether the policy keeps ghost entries, whose state libCacheSim's insert reads from
    /// the last lookup (a prefetch in front of one is refused: not reproduced).
    var keepsGhosts: Bool { get }
}
