import WorkbenchCore
import WorkbenchTraces
/// A memory cache in front of a disk cache, as the image libraries build one: any memory
/// backend over any disk backend (`tier:MEM+DISK`, e.g. `tier:autopurge+files`), or a
/// library's preset (`TierPreset`: afnetworking, sdwebimage, kingfisher, nuke, pincache).
///
/// - get: the memory tier, then the disk tier. A disk hit is copied into memory when
///   `promote` is on, priced as the replay prices the request (`BackendConfig.memoryCost`)
///   and given a fresh payload when payloads are materialized: a promotion pays the
///   "decode" inside the timed get, as the libraries pay it on a disk hit.
/// - set: memory (unless the cost is over `memory-entry-limit` of the memory capacity,
///   Nuke's 10%, or over the memory capacity: counted in `memoryRefused`), and the disk with
///   `write=through`. The too-large rule is per tier (`admits`): an object too large for
///   memory is stored on disk only; only one too large for both tiers is too_large; one that
///   fits memory but not the disk stays in memory alone (`diskRefused`). With `write=back`
///   the disk is written only by a memory warning's `flush-to-disk`, so what memory evicts
///   first is lost (a RAM layer flushed on memory warnings). The disk body is the encoded
///   size (`BackendConfig.diskCost`), whatever the memory cost model.
/// - memory warning (`on-warning`): `clear` empties memory (every library's response);
///   `trim:F` evicts in the memory backend's own order down to F of its capacity;
///   `flush-to-disk` writes the memory entries the disk lacks (those over `disk-capacity`
///   are refused, not flushed), then clears; `none` ignores it.
/// - `memory-ttl`: an entry unread for that many seconds of trace time is a memory miss
///   and goes; each read extends it; every `memory-sweep` seconds the expired ones are
///   removed (Kingfisher: 300 s, extended by reads, swept every 120 s).
/// - `weak-cache=on` (SDWebImage's `shouldUseWeakMemoryCache`, `WeakMemoryCache`): a
///   memory miss on an image still on screen — one of the `on-screen` most recently looked
///   up distinct images, stored in memory when last shown — is a memory hit, put back into
///   memory (a warning or an eviction does not take an image a view still holds).
/// - `session=ephemeral`: no disk tier (NSURLSession's ephemeral configuration); `default`
///   has one.
///
/// The memory tier's capacity is the run's capacity (what a sweep varies); the disk tier's
/// is `disk-capacity`. The backend's facts are the memory tier's (memory warnings and
/// memory figures are about it); `details.tiers` carries the per-tier counts.
///
/// Complexity: get = the memory backend's get, then on a miss the disk backend's get, plus
/// on a promotion the memory backend's set; set = the memory backend's set + the disk
/// backend's set; `clear` / `trim:F` = the memory backend's trim; `flush-to-disk`
/// O(entries written since the last flush) gets and disk sets; a TTL sweep O(entries read
/// or written in memory); with `weak-cache=on`, O(on-screen) more per lookup, store and removal.
public final class TieredCache: CacheBackend, LayeredCache {
    public static let needsKeyNames = true
    public static let holdsPayloads = true
    public static let storesBytes = true
    public static let receivesBodies = false

    /// The tier's own options (the memory and disk backends' options pass through to them).
    package static let options: [(name: String, help: String)] = [
        ("promote", "tier: copy a disk hit into memory, on (default, as SDWebImage, Kingfisher, PINCache, Nuke) or off"),
        ("write", "tier: through (a store goes to memory and disk; default) or back (the disk is written by flush-to-disk only)"),
        ("on-warning", "tier: a memory warning clears memory (clear, default), trims it (trim:F), flush-to-disk then clears, or none"),
        ("on-background", "tier: what a recorded background event does to the memory tier, none (default), clear or trim:F (keep F of its capacity); the presets set their library's"),
        ("session", "tier: default (memory and disk) or ephemeral (no disk tier: NSURLSession's ephemeral configuration)"),
        ("disk-capacity", "tier: the disk tier's capacity, e.g. 150MB, or unlimited (default 150MB, as URLCache under AFNetworking and Nuke)"),
        ("memory-ttl", "tier: seconds of trace time an unread memory entry lives, each read extends it (Kingfisher 300; default none)"),
        ("memory-sweep", "tier: seconds between sweeps of expired memory entries (Kingfisher 120; default 120 with memory-ttl)"),
        ("weak-cache", "tier: on = SDWebImage's weak memory cache (shouldUseWeakMemoryCache): a memory miss on an image still on screen is found again and put back; off (default, as SDWebImage since 5.12.0 and every other library)"),
        ("on-screen", "tier, weak-cache=on: how many of the most recently looked-up distinct images are on screen, still referenced by a view (default 20)"),
        ("memory-entry-limit", "tier: entries costlier than this share of the memory capacity stay out of memory (Nuke 0.1; default none)"),
        ("memory-rules", "tier, --mode http: the memory layer's rules, none (an image cache: serves what it holds, headers unread; default) or http (the run's --http-profile)"),
        ("disk-rules", "tier, --mode http: the disk layer's rules, http (a URLCache: default over sqlite and foundation-urlcache) or none (a library's file cache: default over files)"),
    ]

    /// The options a tier takes: its own, then its memory and disk backends' (each gets its own).
    static func options(memory: BackendKind, disk: BackendKind) -> [(name: String, help: String)] {
        var all = options
        for option in memory.options + disk.options where !all.contains(where: { $0.name == option.name }) { all.append(option) }
        return all
    }

    /// `tier:MEM+DISK` as a registry kind.
    package static func kind(memory: BackendKind, disk: BackendKind) -> BackendKind {
        BackendKind(
            name: "tier:\(memory.name)+\(disk.name)", summary: "\(memory.name) in memory over \(disk.name) on disk",
            options: options(memory: memory, disk: disk), microsecondsPerRequest: memory.microsecondsPerRequest + disk.microsecondsPerRequest
        ) { try TieredCache($0, memory: memory, disk: disk) }
    }

    public let memoryCapacity: Int
    public let diskCapacity: Int
    public let promote: Bool
    public let writeBack: Bool
    public let onWarning: TierWarningResponse
    /// What a recorded background event does to the memory tier (`on-background`): clear,
    /// trim:F or none (flush-to-disk is a warning response only).
    public let onBackground: TierWarningResponse
    public let memoryTTL: Double?
    public let memorySweep: Double
    public let memoryEntryLimit: Int
    /// `weak-cache=on`: the images a view still holds (nil when off).
    private var weakCache: WeakMemoryCache?
    /// `--mode http`: which layer reads response headers (`HTTPLayers`).
    public let httpLayers: HTTPLayers
    private let memory: any CacheBackend
    private let disk: (any CacheBackend)?
    private let memoryName: String
    private let diskName: String
    private let memoryCost: @Sendable (Request) -> Int
    private let diskCost: @Sendable (Request) -> Int
    private let materialize: Bool
    private var counts = TierCounts()
    /// `write=back`: entries stored in memory since the last flush, by key.
    private var unflushed: [String: Request] = [:]
    /// `memory-ttl`: when each memory entry was last read or written, by key.
    private var touched: [String: (request: Request, at: Double)] = [:]
    private var nextSweep = -Double.infinity
    /// The latest trace time seen: a flush writes at it.
    private var lastTime = -Double.infinity

    /// `memory` and `disk` are registry kinds (`BackendRegistry.tier` checks that they are a
    /// memory and a disk backend); the config's options reach each of them (each takes its
    /// own), and `presetOptions` are defaults under the user's options.
    init(_ config: BackendConfig, memory memoryKind: BackendKind, disk diskKind: BackendKind, presetOptions: [String: String] = [:]) throws {
        var config = config
        config.options = presetOptions.merging(config.options) { _, user in user }
        memoryCapacity = config.capacityBytes
        promote = try config.flag("promote", default: true)
        writeBack = try config.choice("write", ["through", "back"]) == "back"
        onWarning = try TierWarningResponse(parsing: config.options["on-warning"] ?? "clear")
        onBackground = try Self.backgroundResponse(config.options["on-background"] ?? "none")
        let ephemeral = try config.choice("session", ["default", "ephemeral"]) == "ephemeral"
        diskCapacity = try TierOptionText.diskCapacity(config.options["disk-capacity"] ?? "150MB")
        memoryTTL = try config.options["memory-ttl"].map { try Self.seconds("memory-ttl", $0) }
        memorySweep = try config.options["memory-sweep"].map { try Self.seconds("memory-sweep", $0) } ?? 120
        memoryEntryLimit = config.options["memory-entry-limit"] == nil ? Int.max
            : Int((Double(config.capacityBytes) * (try config.fraction("memory-entry-limit", default: 1))).rounded(.down))
        if try config.flag("weak-cache", default: false) {
            weakCache = WeakMemoryCache(onScreen: try Self.onScreen(config.options["on-screen"]))
        } else if config.options["on-screen"] != nil {
            throw WorkbenchError("on-screen applies to weak-cache=on (the images a view still holds)")
        }
        if writeBack && ephemeral { throw WorkbenchError("write=back needs a disk tier; session=ephemeral has none") }
        httpLayers = try Self.layers(config, diskKind: diskKind.name, ephemeral: ephemeral, writeBack: writeBack)
        memoryCost = config.memoryCost
        diskCost = config.diskCost
        materialize = config.materialize
        memoryName = memoryKind.name
        diskName = diskKind.name

        var memoryConfig = config
        memoryConfig.disk = nil
        memory = try memoryKind.make(memoryConfig)
        // Every response but `none` needs the memory tier to drop entries in its own order.
        for (option, response) in [("on-warning", onWarning), ("on-background", onBackground)] where response != .none {
            if try memory.trim(toCost: Self.isPartial(response) ? Int.max : 0) == nil {
                throw WorkbenchError("tier:\(memoryKind.name)+\(diskKind.name): \(memoryKind.name) cannot \(Self.isPartial(response) ? "evict part of itself in its own order" : "drop its entries"), so \(option)=\(response) cannot be modeled over it")
            }
        }
        if ephemeral {
            disk = nil
        } else {
            var diskConfig = config
            diskConfig.capacityBytes = diskCapacity
            disk = try diskKind.make(diskConfig)
        }
    }

    /// `memory-rules` and `disk-rules`: the disk layer is a URLCache when its backend models
    /// one (sqlite is Cache.db, foundation-urlcache the corelibs URLCache), unless write=back
    /// (no URLCache writes only on warnings); the memory layer is an image cache.
    private static func layers(_ config: BackendConfig, diskKind: String, ephemeral: Bool, writeBack: Bool) throws -> HTTPLayers {
        let rules = HTTPLayers.Rules.allCases.map(\.rawValue)
        let memory = HTTPLayers.Rules(rawValue: try config.choice("memory-rules", rules.reversed()))!
        let urlCache = ["sqlite", "foundation-urlcache"].contains(diskKind) && !writeBack
        let disk = HTTPLayers.Rules(rawValue: try config.choice("disk-rules", urlCache ? rules : rules.reversed()))!
        if disk == .http && writeBack { throw WorkbenchError("disk-rules=http needs write=through: a URLCache stores each response as it arrives") }
        if memory == .http && disk == .none && !ephemeral {
            throw WorkbenchError("memory-rules=http over disk-rules=none is not modeled: no library puts a URLCache in front of its own file cache")
        }
        return HTTPLayers(memory: memory, disk: ephemeral ? nil : disk)
    }

    /// `on-background`: a warning response but flush-to-disk (no library flushes on entering
    /// the background).
    private static func backgroundResponse(_ text: String) throws -> TierWarningResponse {
        let refusal = WorkbenchError("on-background must be clear, trim:F (e.g. trim:0.1) or none, not '\(text)'")
        guard let response = try? TierWarningResponse(parsing: text), response != .flushToDisk else { throw refusal }
        return response
    }

    private static func isPartial(_ response: TierWarningResponse) -> Bool {
        if case .trim(let share) = response { return share > 0 }
        return false
    }

    /// `on-screen`: a whole number of images from 1 to 10,000 (default 20).
    private static func onScreen(_ text: String?) throws -> Int {
        guard let text else { return WeakMemoryCache.defaultOnScreen }
        guard let count = Int(text), (1...10_000).contains(count) else {
            throw WorkbenchError("on-screen must be a whole number of images from 1 to 10000, not \(ErrorText.quote(text))")
        }
        return count
    }

    private static func seconds(_ name: String, _ text: String) throws -> Double {
        guard let value = Double(text), value.isFinite, value > 0 else {
            throw WorkbenchError("\(name) must be a number of seconds above 0, not '\(text)'")
        }
        return value
    }

    public var settings: String {
        let disk = self.disk.map { "\(diskName)[\($0.settings)]" } ?? "none"
        return "memory=\(memoryName)[\(memory.settings)];disk=\(disk);disk-capacity=\(diskCapacity == SizeLimits.largestCapacity ? "unlimited" : String(diskCapacity))"
            + ";promote=\(promote ? "on" : "off");write=\(writeBack ? "back" : "through");on-warning=\(onWarning)"
            + (onBackground == .none ? "" : ";on-background=\(onBackground)")
            + ";memory-ttl=\(memoryTTL.map { String($0) } ?? "none")"
            + (memoryEntryLimit == Int.max ? "" : ";memory-entry-limit=\(memoryEntryLimit)")
            + (weakCache.map { ";weak-cache=on;on-screen=\($0.onScreen)" } ?? "")
            + ";memory-rules=\(httpLayers.memory.rawValue)" + (httpLayers.disk.map { ";disk-rules=\($0.rawValue)" } ?? "")
    }

    public var facts: BackendFacts { memory.facts }

    /// Memory-tier hits so far: the replay tells a memory hit from a disk hit by it. O(1).
    public var memoryHitCount: Int { counts.memoryHits }
    /// Objects the memory tier did not take (over its entry limit or capacity), so far.
    public var memoryRefusedCount: Int { counts.memoryRefused }

    public var details: BackendDetails {
        var counts = self.counts
        counts.weakCacheOnScreen = weakCache?.onScreen
        if let diskFacts = disk?.facts {
            counts.diskEntries = diskFacts.entries
            counts.diskBytes = diskFacts.accountedBytes
            counts.diskEvictions = diskFacts.evictions
        }
        // The disk tier's own counts (sqlite's orphaned bodies and remarks) are the tier's.
        var details = disk?.details ?? BackendDetails()
        details.tiers = counts
        return details
    }

    public func get(_ request: Request) throws -> Bool {
        if try getMemory(request) { return true }
        guard try getDisk(request) else { return false }
        if promote { try fillMemory(request, cost: memoryCost(request), payload: nil, promoted: true) }
        return true
    }

    /// The memory tier alone (expired entries go). O(the memory backend's get).
    public func getMemory(_ request: Request) throws -> Bool {
        lastTime = max(lastTime, request.time)
        if memoryTTL != nil { try sweepExpired(at: request.time) }
        let onScreen = weakCache?.lookUp(request.keyText) ?? false
        guard try memory.get(request) else {
            // SDMemoryCache.objectForKey: the weak map still has it, so it is put back.
            guard onScreen else { return false }
            let cost = memoryCost(request)
            if cost <= memoryEntryLimit, cost <= memoryCapacity {
                try memory.set(request, cost: cost, payload: try materialize ? Payload(byteCount: cost) : nil)
                if memoryTTL != nil { touched[request.keyText] = (request, request.time) }
            }
            weakCache?.stored(request.keyText)
            counts.memoryHits += 1
            counts.weakHits += 1
            return true
        }
        if let memoryTTL, let last = touched[request.keyText] {
            guard request.time - last.at <= memoryTTL else {
                try memory.remove(request)  // expired: gone from memory, perhaps on disk
                touched[request.keyText] = nil
                counts.memoryExpired += 1
                return false
            }
            touched[request.keyText] = (request, request.time)
        }
        weakCache?.stored(request.keyText)  // the image shown is the one memory holds
        counts.memoryHits += 1
        return true
    }

    /// The disk tier alone, no promotion. O(the disk backend's get).
    public func getDisk(_ request: Request) throws -> Bool {
        guard let disk, try disk.get(request) else { return false }
        counts.diskHits += 1
        return true
    }

    /// A body the request got into memory: counted as a promotion when it came from disk.
    /// O(the memory backend's set).
    public func fillMemory(_ request: Request, cost: Int, payload: Payload?, promoted: Bool) throws {
        if try storeInMemory(request, cost: cost, payload: payload), promoted { counts.promotions += 1 }
    }

    public func setDisk(_ request: Request) throws -> Int? {
        try storeOnDisk(request) ? diskCost(request) : nil
    }

    public func removeDisk(_ request: Request) throws {
        try disk?.remove(request)
    }

    public func diskBytes(_ request: Request) -> Int { diskCost(request) }

    /// Too large for memory goes to the disk alone (with `write=through`: `write=back` reaches
    /// the disk only through memory); too large for both is refused. O(1).
    public func admits(_ request: Request, cost: Int) -> Bool? {
        if cost <= memoryCapacity { return true }
        guard disk != nil, !writeBack else { return false }
        return diskCost(request) <= diskCapacity
    }

    public func set(_ request: Request, cost: Int, payload: Payload?) throws {
        lastTime = max(lastTime, request.time)
        if memoryTTL != nil { try sweepExpired(at: request.time) }
        if try storeInMemory(request, cost: cost, payload: payload), writeBack { unflushed[request.keyText] = request }
        if !writeBack { try storeOnDisk(request) }
    }

    /// Stores in memory unless over the entry limit or the capacity; whether it did.
    private func storeInMemory(_ request: Request, cost: Int, payload: Payload?) throws -> Bool {
        // SDMemoryCache.setObject: the weak map takes it even when NSCache drops it at once.
        weakCache?.stored(request.keyText)
        guard cost <= memoryEntryLimit, cost <= memoryCapacity else {
            counts.memoryRefused += 1
            return false
        }
        let payload = try payload ?? (materialize ? Payload(byteCount: cost) : nil)
        try memory.set(request, cost: cost, payload: payload)
        if memoryTTL != nil { touched[request.keyText] = (request, request.time) }
        return true
    }

    /// Writes the body to the disk tier; whether it did. A body over `disk-capacity` (one
    /// that fit memory, or a flushed one) is counted in `diskRefused`, never skipped unsaid.
    @discardableResult
    private func storeOnDisk(_ request: Request) throws -> Bool {
        guard let disk else { return false }
        let bytes = diskCost(request)
        guard bytes <= diskCapacity else {
            counts.diskRefused += 1
            return false
        }
        try disk.set(request, cost: bytes, payload: nil)
        counts.diskWrites += 1
        counts.diskWriteBytes += ByteTotal(bytes)
        return true
    }

    public func remove(_ request: Request) throws {
        weakCache?.removed(request.keyText)  // SDMemoryCache.removeObjectForKey: the weak map too
        try memory.remove(request)
        try disk?.remove(request)
        unflushed[request.keyText] = nil
        touched[request.keyText] = nil
    }

    public func didReceiveMemoryWarning() throws -> Int {
        switch onWarning {
        case .none:
            return 0
        case .trim(let share):
            return try memory.trim(toCost: Int((Double(memoryCapacity) * share).rounded(.down))) ?? 0
        case .clear:
            break
        case .flushToDisk:
            // Only what memory still holds, oldest first, written now: an entry memory
            // evicted since is lost.
            let pending = unflushed.values.sorted { ($0.time, $0.keyText) < ($1.time, $1.keyText) }
            for var request in pending where try memory.get(request) {
                request.time = max(request.time, lastTime)
                if try storeOnDisk(request) { counts.flushed += 1 }  // a refused one is not flushed
            }
            unflushed.removeAll()
        }
        touched.removeAll()
        return try memory.trim(toCost: 0) ?? 0
    }

    /// A recorded background event: the memory tier cleared or trimmed in its own order
    /// (`on-background`; the presets' values and their sources in docs/tiers.md). O(the
    /// memory backend's trim).
    public func didEnterBackground() throws -> Int {
        switch onBackground {
        case .none, .flushToDisk: return 0
        case .trim(let share): return try memory.trim(toCost: Int((Double(memoryCapacity) * share).rounded(.down))) ?? 0
        case .clear:
            touched.removeAll()
            return try memory.trim(toCost: 0) ?? 0
        }
    }

    public var backgroundResponse: String {
        switch onBackground {
        case .none, .flushToDisk: "does nothing to its memory tier (on-background=none)"
        case .clear: "clears its memory tier (on-background=clear)"
        case .trim(let share): "trims its memory tier to \(share) of its capacity (on-background=trim:\(share))"
        }
    }

    /// Kingfisher's cleanup timer: removes the memory entries unread for `memory-ttl`.
    private func sweepExpired(at time: Double) throws {
        guard time >= nextSweep, let memoryTTL else { return }
        if nextSweep.isFinite {
            // In a fixed order (a dictionary's is not), so runs repeat exactly.
            let expired = touched.values.filter { time - $0.at > memoryTTL }
                .sorted { ($0.at, $0.request.keyText) < ($1.at, $1.request.keyText) }
            for entry in expired {
                try memory.remove(entry.request)
                touched[entry.request.keyText] = nil
                counts.memoryExpired += 1
            }
        }
        nextSweep = (nextSweep.isFinite ? nextSweep : time) + memorySweep
        if nextSweep <= time { nextSweep = time + memorySweep }  // a gap in the trace
    }

    public func close() throws {
        var failure: (any Error)?
        do { try memory.close() } catch { failure = error }
        do { try disk?.close() } catch { failure = failure ?? error }
        if let failure { throw failure }
    }
}

/// A tier's counts, in `BackendFacts.tiers`: where hits came from and what moved between
/// the tiers. The replay reports the change over the counted requests.
public struct TierCounts: Sendable, Equatable {
    public var memoryHits = 0
    public var diskHits = 0
    /// Disk hits copied into memory.
    public var promotions = 0
    /// Bodies written to the disk tier (stores, and flushes with `write=back`).
    public var diskWrites = 0
    public var diskWriteBytes: ByteTotal = 0
    /// Entries written to disk by `flush-to-disk`.
    public var flushed = 0
    /// Stores and flushes the disk tier did not take: the body is over `disk-capacity`
    /// (it stays in memory alone).
    public var diskRefused = 0
    /// Memory entries that outlived `memory-ttl` (on a read or a sweep).
    public var memoryExpired = 0
    /// Stores and promotions kept out of memory (over `memory-entry-limit` or the memory
    /// capacity): a store goes to the disk alone.
    public var memoryRefused = 0
    /// `weak-cache=on`: memory misses found again because the image was still on screen
    /// (counted in `memoryHits` too).
    public var weakHits = 0
    /// `weak-cache=on`: its `on-screen` count (nil when off), for the notes.
    public var weakCacheOnScreen: Int?
    public var diskEntries = 0
    public var diskBytes = 0
    public var diskEvictions = 0

    public init() {}

    /// The change from `start` to `self` (the gauges `diskEntries`, `diskBytes` stay).
    package func since(_ start: TierCounts) -> TierCounts {
        var change = self
        change.memoryHits -= start.memoryHits
        change.diskHits -= start.diskHits
        change.promotions -= start.promotions
        change.diskWrites -= start.diskWrites
        change.diskWriteBytes -= start.diskWriteBytes
        change.flushed -= start.flushed
        change.diskRefused -= start.diskRefused
        change.memoryExpired -= start.memoryExpired
        change.memoryRefused -= start.memoryRefused
        change.weakHits -= start.weakHits
        change.diskEvictions -= start.diskEvictions
        return change
    }
}
