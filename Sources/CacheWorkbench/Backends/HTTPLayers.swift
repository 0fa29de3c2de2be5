import WorkbenchCore
import WorkbenchTraces
/// Whose caching rules each layer of a two-tier backend follows in `--mode http` (issue 21 §6).
///
/// Only a URLCache reads response headers. The image libraries' own caches are keyed by URL
/// and serve what they hold whatever Cache-Control or Expires said; their only expiry is
/// their own age rule (docs/http-caching-facts.md §4–5):
/// - AFNetworking: AFAutoPurgingImageCache (memory) has no header logic (AFAutoPurgingImageCache.m
///   L46-48 cost, L76 capacity, L124-140 last-access purge: facts §5); its disk layer is the downloader's NSURLCache,
///   20 MB / 150 MB, useProtocolCachePolicy (AFImageDownloader.m L111-146): HTTP rules.
/// - Nuke's default pipeline: ImageCache (memory, Cache.swift: cost, count, optional ttl) over
///   DataLoader's URLCache (0 / 150 MB, DataLoader.swift L84-90): HTTP rules on disk. With
///   `.withDataCache` the URLCache is nil (L206-224) and DataCache ignores headers: the
///   `nuke` preset models the default, `disk-rules=none` with `files` the DataCache setup.
/// - SDWebImage: SDImageCache (memory NSCache, disk files with maxDiskAge 1 week swept only on
///   background/terminate, SDImageCacheConfig.m L14, SDImageCache.m L155-160); its downloads
///   skip NSURLCache (ReloadIgnoringLocalCacheData, willCacheResponse nil: SDWebImageDownloader.m
///   L299, SDWebImageDownloaderOperation.m L589-603): no HTTP rules anywhere.
/// - Kingfisher: MemoryStorage (300 s, extended by reads, MemoryStorage.swift L164-172, L248)
///   and DiskStorage (7 days, DiskStorage.swift L530); an ephemeral session with
///   reloadIgnoringLocalCacheData (ImageDownloader.swift L247-254, L379): no HTTP rules.
/// - PINCache (PINMemoryCache, PINDiskCache 30 days) stores what PINRemoteImage hands it: none.
public struct HTTPLayers: Sendable, Equatable {
    /// A layer follows the run's HTTP profile (`http`: a URLCache) or no header at all (`none`:
    /// demand-fill within the run, only its own age-based expiry).
    public enum Rules: String, Sendable, CaseIterable {
        case http, none
    }

    public var memory: Rules
    /// nil: no disk layer (`session=ephemeral`).
    public var disk: Rules?

    public init(memory: Rules, disk: Rules?) {
        self.memory = memory
        self.disk = disk
    }

    /// No layer reads headers: the request is the library's, answered demand-fill.
    public var ignoresHeaders: Bool { memory == .none && disk != .http }

    /// `memory:none;disk:rfc9111`, naming the profile the `http` layers followed.
    public func description(profile: String) -> String {
        let name = { (rules: Rules) in rules == .http ? profile : "none" }
        return "memory:\(name(memory))" + (disk.map { ";disk:\(name($0))" } ?? "")
    }

    /// The `http_rules` cell of a backend with no layers of its own: it is one HTTP cache.
    public static func whole(profile: String) -> String { "whole:\(profile)" }
}

/// A backend whose layers the HTTP replay addresses one by one (`TieredCache`): the replay
/// asks the memory layer as the library does, then the disk layer under its own rules, and
/// fills memory with whatever body the request got. Each call costs what the tier's own
/// memory or disk backend costs for it.
public protocol LayeredCache: AnyObject {
    var httpLayers: HTTPLayers { get }
    var diskCapacity: Int { get }
    /// The memory layer alone (its TTL applies): whether it holds the key.
    func getMemory(_ request: Request) throws -> Bool
    /// The disk layer alone, without promotion: whether it holds the key.
    func getDisk(_ request: Request) throws -> Bool
    /// A body the request got (served from disk or fetched) copied into memory: a disk body
    /// is promoted (counted), a fetched one stored; nothing when memory refuses it.
    func fillMemory(_ request: Request, cost: Int, payload: Payload?, promoted: Bool) throws
    /// Writes the body to the disk layer; its bytes, or nil when the disk refused it.
    func setDisk(_ request: Request) throws -> Int?
    func removeDisk(_ request: Request) throws
    /// The disk layer's body size for the request (the encoded size).
    func diskBytes(_ request: Request) -> Int
}
