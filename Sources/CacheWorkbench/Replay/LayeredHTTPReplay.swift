import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The HTTP mode over a backend whose layers keep their own rules (`HTTPLayers`), as an
/// image library answers a request (AFImageDownloader.m, Nuke's ImagePipeline: memory cache
/// by URL, then the network through URLSession, whose URLCache applies HTTP's rules):
/// 1. a download in flight for the URL is joined (with `--coalesce`);
/// 2. the memory layer is asked by URL; a hit is served, headers unread (`library_hits`);
/// 3. memory missed:
///    - disk layer `none` (SDWebImage, Kingfisher, PINCache files): the disk is asked (a hit
///      is promoted as the tier's own get does) and a miss is downloaded and stored in both
///      layers, demand-fill whatever the headers say;
///    - disk layer `http` (a URLCache): the HTTP model decides (fresh, revalidate, fetch) on
///      the disk layer alone, with the disk's capacity; the body the request got (from disk,
///      after a 304, or fetched, stored on disk or not) then goes into memory, as the
///      library caches every image it decodes.
/// Only GET requests for a whole body are the library's (a HEAD, a Range or another method
/// skips the memory layer and meets the disk layer's rules alone).
///
/// Complexity per request: the memory layer's get, then at most the disk layer's get, a
/// remove, a disk set and a memory set, plus the model's O(1) bookkeeping.
extension ReplayLoop {
    mutating func answerLayered(_ request: Request, cost: Int, layers: any LayeredCache) throws -> Bool {
        let method = request.http?.method.uppercased() ?? "GET"
        let libraries = method == "GET" && request.http?.asksForRange != true
        let downloading = downloads != nil && request.http?.isHEAD != true
        // The libraries check in-flight downloads before any cache (AFImageDownloader L221-227).
        if downloading, downloads!.joins(url: request.id, at: request.time) {
            http!.countCoalesced()
            return false
        }
        if layers.httpLayers.disk != .http {
            return try answerDemandFill(request, cost: cost, libraries: libraries, downloading: downloading)
        }
        if libraries, try timedLayerGet({ try layers.getMemory(request) }) {
            http!.countLibraryHit()
            return true
        }
        guard let keyed = http!.cacheRequest(request) else {
            // corelibs has no key for this URL: fetched, never stored on disk; memory still takes it.
            let step = http!.answerWithoutKey(request)
            if downloading, step.outcome == .fetched {
                let finish = downloads!.start(url: request.id, at: request.time, recordedSeconds: request.http?.downloadSeconds)
                if libraries { downloads!.deliver(at: finish, request: request, entry: nil, cost: cost) }
            } else if libraries, step.outcome == .fetched {
                try timedFill(request, cost: cost, layers: layers, promoted: false)
            }
            return false
        }
        let diskCost = layers.diskBytes(keyed)
        let found = http!.looksUp(request) ? try timedLayerGet({ try layers.getDisk(keyed) }) : false
        let step = http!.answer(request, key: keyed.id, found: found, cost: diskCost, admits: diskCost <= layers.diskCapacity)
        if step.remove { try layers.removeDisk(keyed) }
        if downloading, step.outcome == .fetched {
            let finish = downloads!.start(url: request.id, at: request.time, recordedSeconds: request.http?.downloadSeconds)
            if step.store || libraries { downloads!.deliver(at: finish, request: request, entry: step.store ? step.entry : nil, cost: cost) }
        } else {
            if step.store { try timedLayerSet { _ = try layers.setDisk(keyed) } }
            if libraries, step.outcome != .offline {
                try timedFill(request, cost: cost, layers: layers, promoted: step.outcome.servedFromCache)
            }
        }
        // Too large for the disk layer is too_large only when memory cannot take it either.
        if step.tooLarge && !(libraries && fits(request, cost: cost)) { tally.tooLarge += 1 }
        return step.outcome.servedFromCache
    }

    /// No layer reads headers: the tier's own get (memory, then disk with promotion) and, on a
    /// miss, a download stored in both layers (the tier's set), as in demand-fill.
    private mutating func answerDemandFill(_ request: Request, cost: Int, libraries: Bool, downloading: Bool) throws -> Bool {
        if libraries, try timedGet(request) {
            http!.countLibraryHit()
            return true
        }
        guard libraries else {  // not the library's request: never cached
            let reason: NotStoredReason = request.http?.isHEAD == true ? .head : request.http?.asksForRange == true ? .partial : .method
            http!.countLibraryFetch(request, notStored: reason)
            return false
        }
        guard fits(request, cost: cost) else {
            http!.countLibraryFetch(request, notStored: .tooLarge)
            tally.tooLarge += 1
            return false
        }
        http!.countLibraryFetch(request, notStored: nil)
        if downloading {
            let finish = downloads!.start(url: request.id, at: request.time, recordedSeconds: request.http?.downloadSeconds)
            downloads!.deliver(at: finish, request: request, entry: nil, cost: cost)
        } else {
            try timedSet(request, cost: cost)
        }
        return false
    }

    /// A download lands: the URLCache layer takes the response the model stores (if any), the
    /// library's layers the body.
    mutating func deliverToLayers(_ done: DownloadScheduler.Completion, layers: any LayeredCache) throws {
        guard layers.httpLayers.disk == .http else {
            try timedSet(done.request, cost: done.cost)
            return
        }
        if let entry = done.entry, let keyed = http!.cacheRequest(done.request) {
            if http!.commit(entry, key: keyed.id) { try layers.removeDisk(keyed) }
            try timedLayerSet { _ = try layers.setDisk(keyed) }
        }
        if done.request.http?.method.uppercased() ?? "GET" == "GET" {
            try timedFill(done.request, cost: done.cost, layers: layers, promoted: false)
        }
    }

    /// The body into the memory layer (made outside the timed call, as `timedSet` does).
    private mutating func timedFill(_ request: Request, cost: Int, layers: any LayeredCache, promoted: Bool) throws {
        let payload = try payload(for: request, cost: cost)
        try timedLayerSet { try layers.fillMemory(request, cost: cost, payload: payload, promoted: promoted) }
    }

    /// One layer's get, timed as `timedGet` times the backend's.
    private mutating func timedLayerGet(_ get: () throws -> Bool) throws -> Bool {
        guard timing else { return try get() }
        let before = MonotonicClock.now()
        let hit = try get()
        let elapsed = MonotonicClock.now() &- before
        if hit { getHitLatency.record(elapsed) } else { getMissLatency.record(elapsed) }
        return hit
    }

    /// One layer's set, timed as `timedSet` times the backend's; the peak follows it.
    private mutating func timedLayerSet(_ set: () throws -> Void) throws {
        if timing {
            let before = MonotonicClock.now()
            try set()
            setLatency.record(MonotonicClock.now() &- before)
        } else {
            try set()
        }
        accountedPeak = max(accountedPeak, backend.facts.accountedBytes)
    }
}
