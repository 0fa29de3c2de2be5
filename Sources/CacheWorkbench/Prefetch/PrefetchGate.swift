import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Any policy with a prefetcher in front (`lru[prefetch=obl]`), in libCacheSim's order
/// (`cache_get_base`, cache/cache.c at aa0fc40): the lookup, which tells the prefetcher of
/// the request (`handle_find`); on a miss the store; then, after every request (a hit, a
/// stored miss or one not stored), the prefetcher's candidates are inserted, each one not
/// cached already, after evicting while it does not fit, with no admission question
/// (`cache->insert`). A prefetched object is no request: it counts in no figure but the
/// prefetch columns (`PrefetchCounts`). The replayer stores a miss after `get` returns, so a
/// miss's prefetch runs at its `set`, or at the next call when no `set` came.
///
/// Complexity: the inner backend's, plus the prefetcher's per request and, per candidate,
/// one lookup and the policy's evictions and admission; O(prefetched, unrequested objects)
/// memory for the counts.
final class PrefetchGate<Inner: CacheBackend & PrefetchTarget>: GateForwarding {
    let inner: Inner
    private var prefetcher: any Prefetcher
    private let capacity: Int
    /// Under `--ignore-obj-size` the prefetcher sees every request's size as 1, as
    /// libCacheSim's reader gives it.
    private let countsObjects: Bool
    /// The last missed request, until its prefetch runs (at its `set` or the next call).
    private var pendingMiss: UInt64?
    /// Prefetched objects not requested since: a demand request finds each a hit (used) or
    /// a miss (wasted: evicted unused).
    private var unrequested = Set<UInt64>()
    private var counts = PrefetchCounts()

    init(_ inner: Inner, prefetcher: any Prefetcher, capacity: Int, countsObjects: Bool = false) {
        self.inner = inner
        self.prefetcher = prefetcher
        self.capacity = capacity
        self.countsObjects = countsObjects
    }

    var settings: String { inner.settings.isEmpty ? prefetcher.settings : inner.settings + ";" + prefetcher.settings }

    func get(_ request: Request) throws -> Bool {
        flushPrefetch()
        let hit = try inner.get(request)
        prefetcher.found(request.id, size: countsObjects ? 1 : request.size, hit: hit)
        if unrequested.remove(request.id) != nil {
            if hit { counts.hits += 1 } else { counts.wasted += 1 }
        }
        if hit { prefetch(after: request.id) } else { pendingMiss = request.id }
        return hit
    }

    func admits(_ request: Request, cost: Int) -> Bool? { inner.admits(request, cost: cost) }

    func set(_ request: Request, cost: Int, payload: Payload?) throws {
        try inner.set(request, cost: cost, payload: payload)
        if pendingMiss == request.id { flushPrefetch() }
    }

    /// The pending miss's prefetch, if one is due.
    private func flushPrefetch() {
        guard let id = pendingMiss else { return }
        pendingMiss = nil
        prefetch(after: id)
    }

    private func prefetch(after id: UInt64) {
        for candidate in prefetcher.candidates(after: id) where !inner.isCachedUntouched(candidate.id) {
            guard candidate.size > 0, candidate.size <= capacity else {
                counts.tooLarge += 1
                continue
            }
            // Prefetched before and not cached now: that one was evicted unused.
            if !unrequested.insert(candidate.id).inserted { counts.wasted += 1 }
            inner.insertPrefetched(candidate.id, cost: candidate.size)
            counts.issued += 1
        }
    }


    var facts: BackendFacts {
        var facts = inner.facts
        if counts.tooLarge > 0 {
            facts.fallbacks += counts.tooLarge
            facts.fallbackRule = (facts.fallbackRule.map { $0 + "; " } ?? "")
                + "prefetches not made: the object is larger than the cache (libCacheSim's prefetch evicts from an empty cache there and crashes)"
        }
        return facts
    }

    /// Read at the warm-up's end and at the run's: the last miss's prefetch is made first,
    /// and the prefetched objects never requested are split into evicted and still cached.
    var details: BackendDetails {
        flushPrefetch()
        var details = inner.details
        var final = counts
        final.unused = unrequested.count(where: inner.isCachedUntouched)
        final.wasted += unrequested.count - final.unused
        details.prefetch = final
        return details
    }
}

/// An admission gate passes a prefetcher's insertions to its policy unasked, as
/// libCacheSim's prefetchers call `cache->insert` directly.
extension AdmissionGate: PrefetchTarget where Inner: PrefetchTarget {
    func isCachedUntouched(_ id: UInt64) -> Bool { inner.isCachedUntouched(id) }
    func insertPrefetched(_ id: UInt64, cost: Int) { inner.insertPrefetched(id, cost: cost) }
    var keepsGhosts: Bool { inner.keepsGhosts }
}
