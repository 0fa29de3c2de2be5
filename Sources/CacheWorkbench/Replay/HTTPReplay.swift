import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The HTTP mode's turn of the replay loop: the model decides, the backend is asked for
/// what the decision needs (a get when the cache is consulted, a remove of an older body,
/// a set of a stored response), and the backend calls are timed as in demand-fill. With
/// the download model (`DownloadScheduler`), fetched responses reach the backend when
/// their downloads finish, and requests may join a download in flight.
extension ReplayLoop {
    // Compiled once, not once per backend: specialized for ~50 backends, this and what it
    // calls were a fifth of the release build's largest object (docs/building.md). A backend
    // call in here goes through its witness table.
    /// Answers one request; returns whether it was served with the cached body.
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    mutating func answerHTTP(_ request: Request, cost: Int) throws -> Bool {
        if downloads != nil { try deliverDownloads(by: request.time) }
        if let layered { return try answerLayered(request, cost: cost, layers: layered) }
        // A HEAD brings no body: it neither joins a download nor starts one.
        let downloading = downloads != nil && request.http?.isHEAD != true
        if downloading {
            // The libraries check in-flight downloads before any cache (AFImageDownloader L221-227).
            if downloads!.joins(url: request.id, at: request.time) {
                http!.countCoalesced()
                return false
            }
        }
        guard let keyed = http!.cacheRequest(request) else {
            // corelibs has no key for this URL: straight to the origin, never stored.
            let step = http!.answerWithoutKey(request)
            if downloading, step.outcome == .fetched { _ = downloads!.start(url: request.id, at: request.time, recordedSeconds: request.http?.downloadSeconds) }
            return false
        }
        let wrongBefore = checksBodies ? backend.details.wrongBodyHits : nil
        let found = http!.looksUp(request) ? try timedGet(keyed) : false
        let step = http!.answer(request, key: keyed.id, found: found, cost: cost, admits: backend.admits(keyed, cost: cost))
        // A backend whose own key collides (foundation-urlcache) answered with another body.
        if let wrongBefore, step.outcome.servedFromCache, backend.details.wrongBodyHits ?? 0 > wrongBefore { http!.countWrongBody() }
        if step.remove { try backend.remove(keyed) }
        if downloading, step.outcome == .fetched {
            let finish = downloads!.start(url: request.id, at: request.time, recordedSeconds: request.http?.downloadSeconds)
            if step.store, let entry = step.entry {
                downloads!.deliver(at: finish, request: keyed, entry: entry, cost: cost)
            }
        } else if step.store {
            try timedSet(keyed, cost: cost)
        }
        if step.tooLarge { tally.tooLarge += 1 }
        return step.outcome.servedFromCache
    }

    /// Stores the responses whose downloads finished by `time` (all of them at the end).
    mutating func deliverDownloads(by time: Double) throws {
        for done in time.isInfinite ? downloads!.drain() : downloads!.finished(by: time) {
            if let layered {
                try deliverToLayers(done, layers: layered)
                continue
            }
            guard let entry = done.entry else { continue }
            if http!.commit(entry, key: done.request.id) { try backend.remove(done.request) }
            try timedSet(done.request, cost: done.cost)
        }
    }

    /// The replay's end: downloads still in flight land, and the counts are final.
    @_semantics("optimize.sil.specialize.generic.never")  // as `answerHTTP`
    mutating func finishHTTP() throws -> HTTPCounts? {
        guard var counts = http?.counts else { return nil }
        if downloads != nil {
            try deliverDownloads(by: .infinity)
            counts = http!.counts
            counts.downloads = Int(downloads!.queueWait.count)
            counts.queueWait = downloads!.queueWait.summary
        }
        return counts
    }
}
