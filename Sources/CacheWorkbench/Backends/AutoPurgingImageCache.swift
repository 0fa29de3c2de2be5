import WorkbenchCore
import WorkbenchTraces
/// A faithful AFAutoPurgingImageCache (AFNetworking): a dictionary from identifier to
/// cached image, `memoryCapacity` (default 100 MB) and `preferredMemoryUsageAfterPurge`
/// (default 60 MB, i.e. 60% of capacity). After an add that leaves usage above capacity,
/// it sorts *all* entries by last access and removes the oldest until the bytes purged
/// reach usage − preferred. A hit refreshes the entry's last access. A memory warning
/// removes all images.
///
/// Complexity: get O(1); set O(1), but a purge is O(n log n) over every entry — the cost
/// `autopurge-o1` removes. Last access is a counter rather than a date, so ties cannot
/// happen and both variants evict in exactly the same order.
public final class AutoPurgingImageCache: CacheBackend {
    public static let needsKeyNames = true
    public static let holdsPayloads = true

    /// AFCachedImage: an object per image, as in AF (its dictionary holds references and
    /// `allValues` is an array of them, so the purge's sort reads each entry through a
    /// pointer, as AF's does).
    final class CachedImage {
        let identifier: String
        let totalBytes: Int
        let payload: Payload?
        var lastAccess: UInt64

        init(identifier: String, totalBytes: Int, payload: Payload?, lastAccess: UInt64) {
            self.identifier = identifier
            self.totalBytes = totalBytes
            self.payload = payload
            self.lastAccess = lastAccess
        }
    }

    public let memoryCapacity: Int
    public let preferredMemoryUsageAfterPurge: Int
    private var images: [String: CachedImage] = [:]
    private var memoryUsage = 0
    private var clock: UInt64 = 0
    private var evictions = 0

    public init(memoryCapacity: Int, preferredMemoryUsageAfterPurge: Int) {
        self.memoryCapacity = memoryCapacity
        self.preferredMemoryUsageAfterPurge = preferredMemoryUsageAfterPurge
    }

    public var settings: String { "preferred-after-purge=\(preferredMemoryUsageAfterPurge)" }

    public var facts: BackendFacts {
        BackendFacts(entries: images.count, accountedBytes: memoryUsage, evictions: evictions)
    }

    public func get(_ request: Request) -> Bool {
        guard let image = images[request.keyText] else { return false }
        clock += 1
        image.lastAccess = clock
        return true
    }

    public func set(_ request: Request, cost: Int, payload: Payload?) {
        let key = request.keyText
        clock += 1
        if let previous = images.updateValue(CachedImage(identifier: key, totalBytes: cost, payload: payload, lastAccess: clock), forKey: key) {
            memoryUsage -= previous.totalBytes
        }
        memoryUsage += cost
        guard memoryUsage > memoryCapacity else { return }
        // AF: sort all cached images by last access date, remove the oldest until the
        // bytes purged reach usage − preferred.
        let bytesToPurge = memoryUsage - preferredMemoryUsageAfterPurge
        let sortedImages = images.values.sorted { $0.lastAccess < $1.lastAccess }
        var purged = 0
        for image in sortedImages {
            images.removeValue(forKey: image.identifier)
            purged += image.totalBytes
            evictions += 1
            if purged >= bytesToPurge { break }
        }
        memoryUsage -= purged
    }

    public func remove(_ request: Request) {
        if let image = images.removeValue(forKey: request.keyText) { memoryUsage -= image.totalBytes }
    }

    /// AF observes UIApplicationDidReceiveMemoryWarningNotification only
    /// (AFAutoPurgingImageCache.m L88-91 @d9f589cc): entering the background changes nothing.
    public var backgroundResponse: String { AutoPurgingImageCache.backgroundText }
    static let backgroundText = "does nothing (AFAutoPurgingImageCache observes memory warnings only)"

    public func didReceiveMemoryWarning() -> Int {
        let released = memoryUsage
        images.removeAll()
        memoryUsage = 0
        return released
    }

    /// AF's purge (sort all by last access, remove the oldest) down to `target`. O(n log n).
    public func trim(toCost target: Int) -> Int? {
        guard memoryUsage > target else { return 0 }
        var purged = 0
        for image in images.values.sorted(by: { $0.lastAccess < $1.lastAccess }) {
            if memoryUsage - purged <= target { break }
            images.removeValue(forKey: image.identifier)
            purged += image.totalBytes
            evictions += 1
        }
        memoryUsage -= purged
        return purged
    }
}

/// AFAutoPurgingImageCache's policy with an intrusive recency list: the oldest entry is
/// always at the tail, so a purge costs O(entries removed) instead of a sort of all.
/// Hits and evictions are identical to `AutoPurgingImageCache` on every trace.
public final class AutoPurgingImageCacheO1: CacheBackend {
    public static let needsKeyNames = true
    public static let holdsPayloads = true

    public let memoryCapacity: Int
    public let preferredMemoryUsageAfterPurge: Int
    private let state: UnsafeMutablePointer<(entries: StringKeyedEntries, evictions: Int)>

    public init(memoryCapacity: Int, preferredMemoryUsageAfterPurge: Int) {
        self.memoryCapacity = memoryCapacity
        self.preferredMemoryUsageAfterPurge = preferredMemoryUsageAfterPurge
        state = .allocate(capacity: 1)
        state.initialize(to: (StringKeyedEntries(), 0))
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    public var settings: String { "preferred-after-purge=\(preferredMemoryUsageAfterPurge)" }

    public var facts: BackendFacts {
        BackendFacts(entries: state.pointee.entries.count, accountedBytes: state.pointee.entries.totalCost, evictions: state.pointee.evictions)
    }

    public func get(_ request: Request) -> Bool {
        guard let slot = state.pointee.entries.find(HashedKey(request, scheme: .full)) else { return false }
        state.pointee.entries.touch(slot)
        return true
    }

    public func set(_ request: Request, cost: Int, payload: Payload?) throws {
        let key = HashedKey(request, scheme: .full)
        if let slot = state.pointee.entries.find(key) {
            state.pointee.entries.replace(slot, cost: cost, payload: payload)
        } else {
            try state.pointee.entries.insert(key, cost: cost, payload: payload)
        }
        guard state.pointee.entries.totalCost > memoryCapacity else { return }
        let bytesToPurge = state.pointee.entries.totalCost - preferredMemoryUsageAfterPurge
        var purged = 0
        while purged < bytesToPurge, state.pointee.entries.oldest >= 0 {
            purged += state.pointee.entries.removeOldest()
            state.pointee.evictions += 1
        }
    }

    public func remove(_ request: Request) {
        guard let slot = state.pointee.entries.find(HashedKey(request, scheme: .full)) else { return }
        state.pointee.entries.remove(slot)
    }

    public func didReceiveMemoryWarning() -> Int { state.pointee.entries.removeAll() }
    public var backgroundResponse: String { AutoPurgingImageCache.backgroundText }

    /// Removes the least recently used until at most `target` remains. O(victims).
    public func trim(toCost target: Int) -> Int? {
        var purged = 0
        while state.pointee.entries.totalCost > target, state.pointee.entries.oldest >= 0 {
            purged += state.pointee.entries.removeOldest()
            state.pointee.evictions += 1
        }
        return purged
    }
}
