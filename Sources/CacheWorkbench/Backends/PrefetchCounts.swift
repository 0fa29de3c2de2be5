import WorkbenchCore
/// What a prefetcher in front of a policy did (the `prefetches`, `prefetch_hits` and
/// `wasted_prefetches` columns), from the moment counting starts (after a warm-up).
/// libCacheSim prints none of these; they are the workbench's own counts.
public struct PrefetchCounts: Sendable, Equatable {
    /// Objects the prefetcher inserted (one not cached when it was asked for).
    public var issued = 0
    /// Prefetched objects whose first demand request after the prefetch was a hit.
    public var hits = 0
    /// Prefetched objects evicted before any demand request for them (found missing at
    /// their next request or prefetch), and those never requested again, missing at the end.
    public var wasted = 0
    /// Prefetched objects still cached and never requested at the end (issued − hits −
    /// wasted, once the run ends).
    public var unused = 0
    /// Prefetches not made because the object is larger than the cache (libCacheSim
    /// evicts from an empty cache there and crashes).
    public var tooLarge = 0

    public init() {}

    /// The counts since `start` (the warm-up's end).
    package func since(_ start: PrefetchCounts?) -> PrefetchCounts {
        guard let start else { return self }
        var counts = PrefetchCounts()
        counts.issued = issued - start.issued
        counts.hits = hits - start.hits
        counts.wasted = wasted - start.wasted
        counts.unused = unused
        counts.tooLarge = tooLarge - start.tooLarge
        return counts
    }
}
