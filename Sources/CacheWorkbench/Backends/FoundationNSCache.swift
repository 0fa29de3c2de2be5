import WorkbenchCore
import WorkbenchTraces
import Foundation

/// The real `Foundation.NSCache<NSString, …>` of swift-corelibs-foundation, measured as it
/// is: NSString keys hashed with CFStringHash inside a Swift Dictionary (colliding long
/// URLs probe linearly, comparing strings), eviction of the lowest cost first (newest
/// first among equal costs), reads that do not reorder, and an O(n) sorted insert.
///
/// It has no memory-pressure hook on Linux, and nothing in corelibs calls one: a memory
/// warning releases nothing here, and the results show that (`warning_released_bytes` 0).
/// Entry count and accounted cost come from our own bookkeeping, kept exact through
/// NSCacheDelegate's willEvictObject.
public final class FoundationNSCache: CacheBackend {
    public static let needsKeyNames = true
    public static let holdsPayloads = true

    /// What the cache stores: the payload and its cost (so evictions can be accounted).
    final class Entry {
        let cost: Int
        let payload: Payload?
        init(cost: Int, payload: Payload?) {
            self.cost = cost
            self.payload = payload
        }
    }

    final class EvictionCounter: NSObject, NSCacheDelegate {
        var evictions = 0
        var evictedCost = 0
        func cache(_ cache: NSCache<AnyObject, AnyObject>, willEvictObject obj: Any) {
            evictions += 1
            evictedCost += (obj as? Entry)?.cost ?? 0
        }
    }

    private let cache = NSCache<NSString, Entry>()
    private let counter = EvictionCounter()
    private var storedCost = 0
    private var stored = 0

    public init(totalCostLimit: Int) {
        cache.totalCostLimit = totalCostLimit
        cache.delegate = counter
    }

    /// corelibs' cost-ordered entry list links `prevByCost` and `nextByCost` strongly both
    /// ways, so a deallocated NSCache leaks every entry in retain cycles (measured: ~110 MB
    /// still allocated after a 100 MB run); `removeAllObjects` breaks the links.
    deinit { cache.removeAllObjects() }

    public var settings: String { "memory-warning=ignored" }

    public var facts: BackendFacts {
        BackendFacts(entries: stored - counter.evictions, accountedBytes: storedCost - counter.evictedCost, evictions: counter.evictions)
    }

    public func get(_ request: Request) -> Bool {
        cache.object(forKey: request.keyText as NSString) != nil
    }

    public func set(_ request: Request, cost: Int, payload: Payload?) {
        // The replayer only sets after a miss, so this never replaces a present entry.
        cache.setObject(Entry(cost: cost, payload: payload), forKey: request.keyText as NSString, cost: cost)
        storedCost += cost
        stored += 1
    }

    /// corelibs calls no delegate for a removal, so the entry's cost is read first.
    public func remove(_ request: Request) {
        let key = request.keyText as NSString
        guard let entry = cache.object(forKey: key) else { return }
        cache.removeObject(forKey: key)
        storedCost -= entry.cost
        stored -= 1
    }

    /// corelibs NSCache does not respond to memory pressure.
    public func didReceiveMemoryWarning() -> Int { 0 }

    /// Only `removeAllObjects` (a two-tier cache's `clear`): NSCache has no way to evict
    /// part of itself in its own order, so any other target is refused (nil). O(n).
    public func trim(toCost target: Int) -> Int? {
        guard target == 0 else { return nil }
        let released = facts.accountedBytes
        cache.removeAllObjects()  // calls no delegate either
        storedCost = counter.evictedCost
        stored = counter.evictions
        return released
    }
}
