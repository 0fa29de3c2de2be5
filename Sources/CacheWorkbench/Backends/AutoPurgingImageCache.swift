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

    struct CachedImage {
        var cost: Int
        var payload: Payload?
        var lastAccess: UInt64
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
        let key = request.keyText
        guard images[key] != nil else { return false }
        clock += 1
        images[key]!.lastAccess = clock
        return true
    }

    public func set(_ request: Request, cost: Int, payload: Payload?) {
        let key = request.keyText
        clock += 1
        if let previous = images.updateValue(CachedImage(cost: cost, payload: payload, lastAccess: clock), forKey: key) {
            memoryUsage -= previous.cost
        }
        memoryUsage += cost
        guard memoryUsage > memoryCapacity else { return }
        let bytesToPurge = memoryUsage - preferredMemoryUsageAfterPurge
        let byAge = images.sorted { $0.value.lastAccess < $1.value.lastAccess }
        var purged = 0
        for (identifier, image) in byAge {
            images.removeValue(forKey: identifier)
            purged += image.cost
            evictions += 1
            if purged >= bytesToPurge { break }
        }
        memoryUsage -= purged
    }

    public func remove(_ request: Request) {
        if let image = images.removeValue(forKey: request.keyText) { memoryUsage -= image.cost }
    }

    public func didReceiveMemoryWarning() -> Int {
        let released = memoryUsage
        images.removeAll()
        memoryUsage = 0
        return released
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

    public func set(_ request: Request, cost: Int, payload: Payload?) {
        let key = HashedKey(request, scheme: .full)
        if let slot = state.pointee.entries.find(key) {
            state.pointee.entries.replace(slot, cost: cost, payload: payload)
        } else {
            state.pointee.entries.insert(key, cost: cost, payload: payload)
        }
        guard state.pointee.entries.totalCost > memoryCapacity else { return }
        let bytesToPurge = state.pointee.entries.totalCost - preferredMemoryUsageAfterPurge
        var purged = 0
        while purged < bytesToPurge, state.pointee.entries.oldest >= 0 {
            purged += state.pointee.entries.remove(state.pointee.entries.oldest)
            state.pointee.evictions += 1
        }
    }

    public func remove(_ request: Request) {
        guard let slot = state.pointee.entries.find(HashedKey(request, scheme: .full)) else { return }
        state.pointee.entries.remove(slot)
    }

    public func didReceiveMemoryWarning() -> Int { state.pointee.entries.removeAll() }
}
