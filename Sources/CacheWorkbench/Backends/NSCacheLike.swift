import WorkbenchCore
import WorkbenchTraces
#if canImport(Glibc)
import Glibc
#endif

/// An NSCache-like memory cache with Apple's surface: `totalCostLimit`, `countLimit`, a
/// cost per object, thread-safe (one mutex, as NSCache's lock), and a memory warning
/// removes everything (what AFImageCache, SDWebImage and Kingfisher do on
/// UIApplicationDidReceiveMemoryWarning).
///
/// Options: `key-hash` (`cf` default, as NSCache hashes NSString keys; `full`; `digest`),
/// `eviction` (`lru` default; `lowest-cost`, what Foundation on Linux does), `count-limit`
/// (0 = none). Evicts after each store until within both limits, like NSCache.
///
/// Complexity: get O(1 + colliding keys); set the same plus O(1) (lru) or O(log n)
/// (lowest-cost) per eviction; memory warning O(n).
public final class NSCacheLike: CacheBackend, @unchecked Sendable {  // every access holds `lock`
    public static let needsKeyNames = true
    public static let holdsPayloads = true

    public struct Options: Sendable, Equatable {
        public enum Eviction: String, Sendable, CaseIterable { case lru, lowestCost = "lowest-cost" }

        public var totalCostLimit: Int
        public var countLimit = 0
        public var keyHash = StringKeyHash.cf
        public var eviction = Eviction.lru
        /// `on-background=clear`: empty on entering the background. Apple's NSCache
        /// documentation says nothing of the background, so the default models nothing;
        /// this assumes what Nuke's and Kingfisher's comments say NSCache does (docs/tiers.md).
        public var clearsOnBackground = false

        public init(totalCostLimit: Int) { self.totalCostLimit = totalCostLimit }

        public init(_ config: BackendConfig) throws {
            totalCostLimit = config.capacityBytes
            if let value = config.options["key-hash"] {
                guard let hash = StringKeyHash(rawValue: value) else {
                    throw WorkbenchError("nscache: key-hash must be cf, full or digest, not '\(value)'")
                }
                keyHash = hash
            }
            if let value = config.options["eviction"] {
                guard let order = Eviction(rawValue: value) else {
                    throw WorkbenchError("nscache: eviction must be lru or lowest-cost, not '\(value)'")
                }
                eviction = order
            }
            if let value = config.options["count-limit"] {
                guard let limit = Int(value), limit >= 0 else {
                    throw WorkbenchError("nscache: count-limit must be a whole number (0 = none), not '\(value)'")
                }
                countLimit = limit
            }
            if let value = config.options["on-background"] {
                guard ["none", "clear"].contains(value) else {
                    throw WorkbenchError("nscache: on-background must be none or clear, not '\(value)'")
                }
                clearsOnBackground = value == "clear"
            }
        }

        public var description: String {
            "key-hash=\(keyHash.rawValue);eviction=\(eviction.rawValue);count-limit=\(countLimit)" + (clearsOnBackground ? ";on-background=clear" : "")
        }
    }

    public let options: Options
    private let state: UnsafeMutablePointer<State>
    private let lock: UnsafeMutablePointer<pthread_mutex_t>

    struct State {
        var entries = StringKeyedEntries()
        var costOrder = CostOrder()
        var evictions = 0
    }

    public init(_ options: Options) {
        self.options = options
        state = .allocate(capacity: 1)
        state.initialize(to: State())
        lock = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    @inline(__always)
    private func locked<T>(_ body: (inout State) throws -> T) rethrows -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&state.pointee)
    }

    public var settings: String { options.description }

    public var facts: BackendFacts {
        locked { BackendFacts(entries: $0.entries.count, accountedBytes: $0.entries.totalCost, evictions: $0.evictions) }
    }

    public func get(_ request: Request) -> Bool {
        let key = HashedKey(request, scheme: options.keyHash)
        return locked { state in
            guard let slot = state.entries.find(key) else { return false }
            if options.eviction == .lru { state.entries.touch(slot) }
            return true
        }
    }

    public func set(_ request: Request, cost: Int, payload: Payload?) throws {
        let key = HashedKey(request, scheme: options.keyHash)
        let cost = max(cost, 0)
        try locked { state in
            if let slot = state.entries.find(key) {
                state.entries.replace(slot, cost: cost, payload: payload)
                if options.eviction == .lowestCost {
                    state.costOrder.remove(slot: slot)
                    state.costOrder.push(slot: slot, cost: cost, sequence: state.entries.sequence(slot))
                }
            } else {
                let slot = try state.entries.insert(key, cost: cost, payload: payload)
                if options.eviction == .lowestCost {
                    state.costOrder.push(slot: slot, cost: cost, sequence: state.entries.sequence(slot))
                }
            }
            // Like NSCache: evict after the store until within the limits (the new entry
            // itself may go, if it is the next victim).
            while options.totalCostLimit > 0 && state.entries.totalCost > options.totalCostLimit { evictOne(&state) }
            while options.countLimit > 0 && state.entries.count > options.countLimit { evictOne(&state) }
        }
    }

    private func evictOne(_ state: inout State) {
        let victim: Int32?
        switch options.eviction {
        case .lru: victim = state.entries.oldest >= 0 ? state.entries.oldest : nil
        case .lowestCost: victim = state.costOrder.first
        }
        guard let victim else { return }
        state.costOrder.remove(slot: victim)
        state.entries.remove(victim)
        state.evictions += 1
    }

    public func remove(_ request: Request) {
        let key = HashedKey(request, scheme: options.keyHash)
        locked { state in
            guard let slot = state.entries.find(key) else { return }
            state.costOrder.remove(slot: slot)
            state.entries.remove(slot)
        }
    }

    /// Removes everything, as the image caches built on NSCache do on a memory warning.
    public func didReceiveMemoryWarning() -> Int {
        locked { state in
            state.costOrder.removeAll()
            return state.entries.removeAll()
        }
    }

    /// `on-background=clear` empties the cache, as a memory warning does; by default nothing
    /// (Apple documents no background behaviour of NSCache). O(n) when it clears.
    public func didEnterBackground() -> Int {
        options.clearsOnBackground ? didReceiveMemoryWarning() : 0
    }

    public var backgroundResponse: String {
        options.clearsOnBackground ? "clears itself (on-background=clear, an assumption)" : "does nothing (Apple documents no background behaviour of NSCache)"
    }

    /// Evicts in the cache's eviction order until at most `target` remains. O(victims).
    public func trim(toCost target: Int) -> Int? {
        locked { state in
            let before = state.entries.totalCost
            while state.entries.totalCost > target && state.entries.count > 0 { evictOne(&state) }
            return before - state.entries.totalCost
        }
    }

    /// Keys from most to least recently used (tests; O(n)).
    var keysByRecency: [String] {
        locked { state in
            var keys: [String] = []
            var slot = state.entries.newest
            while slot >= 0 {
                keys.append(state.entries.key(slot))
                slot = state.entries.older(slot)
            }
            return keys
        }
    }
}
