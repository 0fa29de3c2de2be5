import WorkbenchCore
import WorkbenchTraces
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real `URLCache` of swift-corelibs-foundation (FoundationNetworking), measured as it
/// is (docs/http-caching-facts.md §1a). On Linux URLSession never stores a response
/// by itself, so this backend stores: get is `cachedResponse(for:)`, set is
/// `storeCachedResponse(_:for:)` of a 200 response carrying the body, remove is
/// `removeCachedResponse(for:)`.
///
/// What it does, as corelibs does it:
/// - its key is host + port + path: the scheme and the query string are not part of it,
///   so `?w=100` and `?w=200` are one entry, and a hit may return another URL's body.
///   Every hit's body is checked against the one stored for the request's own key and
///   the others are counted (`wrong_body_hits`). `urlcache-key=url` hands URLCache the
///   whole URL, percent-encoded, as the path: a correct key to compare with.
/// - FIFO eviction in memory and on disk (by the wall-clock second in each file's name),
///   an entry stored only if its archived size is below each tier's capacity, no
///   promotion of a disk hit to memory, and a folder scan on every memory miss and every
///   store (its disk eviction): get and set are O(files).
/// - Bug 1 of the facts: storing a key that is already stored and later evicting past it
///   traps (SIGILL). Every set therefore removes the key first (its cost is in the set's
///   time); the replay never stores twice without it.
/// - Bug 2: a key whose base64 form has a `/` (non-ASCII paths) silently fails to reach
///   the disk; it stays a memory-only entry, as it would in an app.
///
/// Its folder is claimed (`CacheFolder`) and, since Foundation opens whatever has its name
/// shape, every entry is checked once before it starts (O(files)): a regular file of that
/// shape with one link, or the run fails naming it.
///
/// Its eviction order follows the wall clock (the second each file was written), so unlike
/// every model here its hits may differ between runs of the same trace.
///
/// The run's capacity is its disk capacity; `memory-capacity` its memory (default 4 MiB,
/// as `URLCache.shared` on Linux). Accounted bytes are its `currentDiskUsage`, read after
/// each store or removal (a folder scan, outside the timed call). Keys that are not http(s)
/// URLs are stored under `https://trace.invalid/` + the percent-encoded key (counted).
///
/// Foundation swallows its write errors (`catch { /* Best effort -- do not store on error. */ }`),
/// so on a full disk it keeps nothing and the replay would count evictions. After each store
/// the backend checks, with the folder scan it makes anyway (`facts`, outside the timed
/// call), that the entry's file is there and holds at least the body it was handed; a store
/// that should have reached the disk and did not fails the run, naming the file system's
/// free space (`URLCacheStoreCheck`).
public final class FoundationURLCache: CacheBackend {
    public static let needsKeyNames = true
    public static let holdsPayloads = false
    public static let storesBytes = true
    public static let probesIO = false
    static let name = "foundation-urlcache"
    static let fallbackRule = "requests had a key that is not an http(s) URL, stored as https://trace.invalid/ + the percent-encoded key"

    private let cache: URLCache
    private let folder: CacheFolder
    private let directory: String
    private let verify: Bool
    /// Hits whose body `verify` checked and found to be the key's own (BackendDetails.verifiedHits).
    private var verifiedHits = 0
    public let diskCapacity: Int
    public let memoryCapacity: Int
    /// Whether the query stays in the key (`urlcache-key=url`).
    public let keepsQuery: Bool
    private var stores = 0
    private var removed = 0
    private var wrongBodies = 0
    private var nonURLKeys = 0
    /// Stores whose identifier has a "/" (bug 2): they never reach the disk.
    private var diskless = 0
    /// Stores whose file name (`SECONDS.IDENTIFIER.storedcachedurlresponse`) is longer than
    /// the folder's file system takes (a long URL): they never reach the disk either.
    private var longNames = 0
    /// The longest file name the folder takes (`pathconf`, 255 on Linux file systems).
    private let nameLimit: Int
    private var usage: (entries: Int, diskBytes: Int)?
    /// The last store, until the folder scan after it has checked that it reached the disk.
    private var unchecked: URLCacheStoreCheck.Store?
    /// Why the run must fail: a store Foundation dropped (thrown at the next call).
    private var lostStore: DiskError?

    public init(_ config: BackendConfig) throws {
        let disk = try config.diskContext(for: Self.name)
        diskCapacity = config.capacityBytes
        memoryCapacity = try config.integer("memory-capacity", default: 4 << 20, range: 0...SizeLimits.largestCapacity)
        keepsQuery = try config.choice("urlcache-key", ["host-port-path", "url"]) == "url"
        directory = disk.directory
        verify = disk.verify
        folder = try CacheFolder.claim(directory, backend: Self.name)
        // Foundation opens any file of its name shape it finds in the folder: before it
        // starts, every entry must be a regular file of that shape (no link, FIFO, device).
        try folder.requireOnlyOwnFiles(CacheFileName.isURLCacheEntry)
        let limit = pathconf(directory, Int32(_PC_NAME_MAX))
        nameLimit = limit > 0 ? limit : 255
        cache = URLCache(memoryCapacity: memoryCapacity, diskCapacity: diskCapacity, diskPath: directory)
    }

    public var settings: String {
        "memory-capacity=\(memoryCapacity);urlcache-key=\(keepsQuery ? "url" : "host-port-path");store=remove-then-store"
    }

    public var facts: BackendFacts {
        let usage = self.usage ?? readUsage(checking: true)
        self.usage = usage
        return BackendFacts(
            entries: usage.entries, accountedBytes: usage.diskBytes, evictions: max(0, stores - removed - usage.entries),
            fallbacks: nonURLKeys, fallbackRule: nonURLKeys > 0 ? Self.fallbackRule : nil)
    }

    public var details: BackendDetails {
        var details = BackendDetails()
        details.wrongBodyHits = wrongBodies
        details.verifiedHits = verify ? verifiedHits : nil
        // Its files are written by corelibs' own code (HTTP-CACHING-FACTS.md §1a): no
        // --durability reaches them, and the probe does not see them.
        details.durability = .uncontrolled
        details.remark(diskless, "stores had a '/' in URLCache's base64 identifier: their disk write silently failed and they lived in memory only (corelibs bug 2)")
        details.remark(longNames, "stores had a URLCache file name longer than the \(nameLimit) bytes a file name may have (a long URL): their disk write silently failed and they lived in memory only")
        return details
    }

    /// URLCache's own disk usage, and its entry files (names it made; none is opened).
    /// `checking`: the last store is checked against the names (O(files), the same scan).
    private func readUsage(checking: Bool) -> (entries: Int, diskBytes: Int) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        if checking { checkLastStore(names: names) }
        return (names.count { $0.hasSuffix(".storedcachedurlresponse") }, cache.currentDiskUsage)
    }

    /// Checks the last store against the folder's `names`; a lost one becomes `lostStore`.
    private func checkLastStore(names: [String]) {
        guard let store = unchecked else { return }
        unchecked = nil
        if lostStore == nil { lostStore = URLCacheStoreCheck.lost(store, names: names, directory: directory, backend: Self.name) }
    }

    /// Throws the lost store, once found, from every call after it.
    private func requireNothingLost() throws {
        if unchecked != nil { checkLastStore(names: (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []) }
        if let lostStore { throw lostStore }
    }

    /// The request URLCache sees for a key; `counting` (a lookup) counts a non-URL key.
    private func urlRequest(_ request: Request, counting: Bool = false) -> URLRequest {
        let key = request.keyText
        if let url = URL(string: key), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil {
            // A correct key: the whole URL, percent-encoded, as the path URLCache keys by.
            guard keepsQuery, let whole = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics),
                  let keyed = URL(string: "https://url.key/" + whole) else { return URLRequest(url: url) }
            return URLRequest(url: keyed)
        }
        if counting { nonURLKeys += 1 }
        let encoded = key.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? ""
        return URLRequest(url: URL(string: "https://trace.invalid/" + encoded)!)
    }

    public func get(_ request: Request) throws -> Bool {
        if lostStore != nil { try requireNothingLost() }
        guard let cached = cache.cachedResponse(for: urlRequest(request, counting: true)) else { return false }
        let own = cached.data.withUnsafeBytes { PayloadContent.matches($0, key: request.keyText) }
        if !own {
            if verify && keepsQuery {
                throw DiskError(backend: Self.name, path: directory, reason: "verify: the body read back is not the one stored for '\(request.keyText)'")
            }
            wrongBodies += 1
        } else if verify {
            verifiedHits += 1
        }
        return true
    }

    public func set(_ request: Request, cost: Int, payload: Payload?) throws {
        // A replay that read no facts since the last store checks it here (timed, rarely).
        if unchecked != nil || lostStore != nil { try requireNothingLost() }
        let body = try payload ?? Payload(contentFor: request.keyText, byteCount: cost)
        let urlRequest = urlRequest(request)
        guard let url = urlRequest.url,
              let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Length": String(body.byteCount)]) else {
            throw DiskError(backend: Self.name, path: directory, reason: "cannot make a response for '\(request.keyText)'")
        }
        cache.removeCachedResponse(for: urlRequest)  // never store a key twice (bug 1)
        cache.storeCachedResponse(CachedURLResponse(response: response, data: Data(body.bytes)), for: urlRequest)
        stores += 1
        let identifier = Self.identifier(url)
        if identifier.contains("/") {
            diskless += 1
        } else if URLCacheStoreCheck.fileNameBytes(identifier: identifier) > nameLimit {
            longNames += 1
        } else {
            unchecked = URLCacheStoreCheck.Store(key: request.keyText, identifier: identifier, bodyBytes: body.byteCount, diskCapacity: diskCapacity)
        }
        usage = nil
    }

    public func remove(_ request: Request) throws {
        if unchecked != nil || lostStore != nil { try requireNothingLost() }
        let urlRequest = urlRequest(request)
        if cache.cachedResponse(for: urlRequest) != nil { removed += 1 }
        cache.removeCachedResponse(for: urlRequest)
        usage = nil
    }

    /// URLCache's key and file-name part, as corelibs makes it (`identifier(for:)`, L354-371):
    /// base64 of the lowercased host, the port or -1, and the path, each followed by a NUL.
    static func identifier(_ url: URL) -> String {
        let text = "\(url.host?.lowercased() ?? "")\u{0}\(url.port ?? -1)\u{0}\(url.path)\u{0}"
        return Data(text.utf8).base64EncodedString()
    }

    /// URLCache on Linux has no memory-pressure response.
    public func didReceiveMemoryWarning() -> Int { 0 }

    public func close() throws {
        defer { folder.release() }
        try requireNothingLost()
    }
}
