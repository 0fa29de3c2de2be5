import WorkbenchCore
import WorkbenchTraces
/// A cache under test. Backends do cache work only; the replayer owns the clock, the
/// histograms and the hit counters (DESIGN.md: backends never measure themselves).
///
/// Each call may throw (disk backends meet I/O errors); a throw ends that run and the
/// results row says it failed.
public protocol CacheBackend: AnyObject {
    /// Looks the request's key up and returns whether it was present. May update recency.
    func get(_ request: Request) throws -> Bool

    /// Stores the request's object with the given cost (bytes or pixel bytes, decided by
    /// the replayer's cost model), evicting as the backend's policy says. The replayer
    /// never offers an object whose cost exceeds the capacity, unless `admits` says yes. `payload` is the object's
    /// memory when the run materializes payloads (nil otherwise); a backend that holds
    /// payloads keeps it until the entry goes.
    func set(_ request: Request, cost: Int, payload: Payload?) throws

    /// Removes the key if present.
    func remove(_ request: Request) throws

    /// Whether the backend keeps an object of `cost` for `request` somewhere, by a size rule
    /// of its own; nil (the default) when it has none, and the replayer compares the cost
    /// with the run's capacity (too_large). A two-tier cache keeps an object too large for
    /// memory on disk only (`TieredCache`). O(1).
    func admits(_ request: Request, cost: Int) -> Bool?

    /// Responds to a simulated memory warning as the modeled cache does (most drop
    /// everything, as apps do on UIApplicationDidReceiveMemoryWarning); returns the
    /// accounted cost released.
    func didReceiveMemoryWarning() throws -> Int

    /// Responds to the app entering the background (a recording's `background` event:
    /// UIApplication.didEnterBackgroundNotification) as the modeled library does, and returns
    /// the accounted cost released. The default does nothing: a policy simulator is no
    /// library, and a library with no background handler of its own keeps everything
    /// (docs/tiers.md cites each library's source).
    func didEnterBackground() throws -> Int

    /// What `didEnterBackground` does, a verb phrase for the results' note (`does nothing`,
    /// `clears its memory tier`), the backend's name before it.
    var backgroundResponse: String { get }

    /// Evicts in the backend's own eviction order until it holds at most `target` of
    /// accounted cost, and returns the cost released; nil when it cannot (a two-tier
    /// cache's memory-warning responses `clear` and `trim:F`, `TieredCache`). Evictions
    /// made here count in `facts.evictions`. The default cannot.
    func trim(toCost target: Int) throws -> Int?

    /// Cheap facts the replayer samples; never a measurement of time or memory.
    var facts: BackendFacts { get }

    /// Counts only some backends keep, read when counting starts and at the end (not on
    /// the hot path, so `facts` stays small). The default has none.
    var details: BackendDetails { get }

    /// The backend's effective options, `name=value` joined by `;` (the CSV's
    /// `backend_options`); empty when it has none.
    var settings: String { get }

    /// True when the backend needs `Request.name` (stores by key text). Readers then keep
    /// key names; policy-only backends say false and never pay for strings.
    static var needsKeyNames: Bool { get }

    /// True when stored entries hold real payload memory (a decoded bitmap, a body), so
    /// allocated / accounted is a meaningful overhead; false for policy-only simulators.
    static var holdsPayloads: Bool { get }

    /// True for disk backends: they store real bytes (`PayloadContent`, made by the
    /// replayer outside the timed call and passed as the payload), and their writes are
    /// counted by the disk I/O probe.
    static var storesBytes: Bool { get }

    /// True for offline policies (Belady) that need each request's next access, computed in
    /// a first pass over the trace and handed over in `BackendConfig.nextAccess`.
    static var needsFuture: Bool { get }

    /// True when the backend's counts come from its own `replay(with:)` after the last
    /// request (PFOO-L computes its bound then): it cannot be fed a batch at a time
    /// (`FedReplay`), so sweeps and curves give it a replay of its own.
    static var needsWholeReplay: Bool { get }

    /// True for offline bounds (Belady, BeladySize, PFOO-L): they see the whole trace, so no
    /// online policy can match them; charts draw them apart (gray, dashed). By default the
    /// backends that need the future.
    static var isOfflineBound: Bool { get }

    /// False for a disk backend whose writes the disk I/O probe cannot see (it writes
    /// through code of its own: `foundation-urlcache`); its write columns are then empty.
    static var probesIO: Bool { get }

    /// True when `set` is handed the body to write (`PayloadContent`); by default the disk
    /// backends. A tier says false: it is handed the memory tier's payload (or none) and
    /// its disk tier makes the encoded body itself.
    static var receivesBodies: Bool { get }

    /// Finishes pending work (commits, a manifest) and releases files; called once after
    /// the replay, before the disk footprint is measured.
    func close() throws

    /// A hint that a request for `id` comes a few requests from now: a backend may start
    /// loading what it will look up (the replay knows the trace ahead; libCacheSim does not
    /// use that). Only the id, so the hint never copies a request's key text. The default
    /// does nothing.
    func prefetch(id: UInt64)

    /// The second stage of the hint: a request for `id` comes in a couple of requests, and
    /// `prefetch(id:)` was called for it earlier, so its bucket is likely loaded: a backend
    /// may look it up now and start loading the record the request will touch. The
    /// default does nothing.
    func prefetchEntry(id: UInt64)
}

extension CacheBackend {
    public static var storesBytes: Bool { false }
    public static var needsFuture: Bool { false }
    public static var needsWholeReplay: Bool { false }
    public static var isOfflineBound: Bool { needsFuture }
    public static var probesIO: Bool { true }
    public static var receivesBodies: Bool { storesBytes }
    public func close() throws {}
    public var details: BackendDetails { BackendDetails() }
    public func trim(toCost target: Int) throws -> Int? { nil }
    public func didEnterBackground() throws -> Int { 0 }
    public var backgroundResponse: String { "does nothing" }
    @inline(__always) public func admits(_ request: Request, cost: Int) -> Bool? { nil }
    @inline(__always) public func prefetch(id: UInt64) {}
    @inline(__always) public func prefetchEntry(id: UInt64) {}
}

/// What a backend can say about itself in O(1).
public struct BackendFacts: Sendable, Equatable {
    public var entries: Int
    /// The cost the backend believes it holds (what it compares with its capacity).
    public var accountedBytes: Int
    public var evictions: Int
    /// Decisions taken by the workbench's own rule where the modeled implementation has
    /// none (it would fail), and that rule in words; reported under the table.
    public var fallbacks = 0
    public var fallbackRule: String?

    public init(entries: Int, accountedBytes: Int, evictions: Int, fallbacks: Int = 0, fallbackRule: String? = nil) {
        self.entries = entries
        self.accountedBytes = accountedBytes
        self.evictions = evictions
        self.fallbacks = fallbacks
        self.fallbackRule = fallbackRule
    }
}

/// What some backends count besides `BackendFacts` (`CacheBackend.details`).
public struct BackendDetails: Sendable, Equatable {
    /// A two-tier cache's counts (`TieredCache`); nil for every other backend.
    public var tiers: TierCounts?
    /// Hits served with a body stored for another URL, for a backend that checks every hit's
    /// body (`foundation-urlcache`, whose key drops the query); nil when not checked.
    public var wrongBodyHits: Int?
    /// Hits whose body was read back and matched, byte for byte, what was stored for the key
    /// (`--verify`); nil for a backend that did not check. A mismatch fails the run instead.
    public var verifiedHits: Int?
    /// Things the modeled implementation did that the figures rest on, each with how many
    /// times (`foundation-urlcache`: stores that never reached its disk); said under the table.
    public var remarks: [Remark] = []
    /// Body files a disk backend found in its reopened folder that no entry named (written
    /// before a crash), and removed (`sqlite`); nil for a backend that does not look.
    public var orphansRemoved: Int?
    /// A disk backend's durability (`Durability`: `uncontrolled` for one the workbench
    /// cannot sync); nil for memory and policy backends.
    public var durability: Durability?
    /// What an admission policy in front of the backend let through and turned away
    /// (`AdmissionGate`); nil without one.
    public var admission: AdmissionCounts?
    /// What a prefetcher in front of the backend inserted and how it was used
    /// (`PrefetchGate`); nil without one.
    public var prefetch: PrefetchCounts?

    public struct Remark: Sendable, Equatable {
        public var count: Int
        public var text: String
    }

    public init() {}

    /// Adds a remark when `count` is above 0 (nothing done is nothing said).
    package mutating func remark(_ count: Int, _ text: String) {
        if count > 0 { remarks.append(Remark(count: count, text: text)) }
    }
}
