/// The HTTP mode's turn of the replay loop: the model decides, the backend is asked for
/// what the decision needs (a get when the cache is consulted, a remove of an older body,
/// a set of a stored response), and the backend calls are timed as in demand-fill.
extension ReplayLoop {
    /// Answers one request; returns whether it was served with the cached body.
    @inline(never)
    mutating func answerHTTP(_ request: Request, cost: Int) throws -> Bool {
        guard let keyed = http!.cacheRequest(request) else {
            // corelibs has no key for this URL: straight to the origin, never stored.
            _ = http!.answerWithoutKey(request)
            return false
        }
        let lookedUp = http!.looksUp(request)
        let found = lookedUp ? try timedGet(keyed) : false
        let step = http!.answer(request, key: keyed.id, found: found, lookedUp: lookedUp, cost: cost)
        if step.remove { try backend.remove(keyed) }
        if step.store { try timedSet(keyed, cost: cost) }
        if step.tooLarge { tally.tooLarge += 1 }
        return step.outcome.servedFromCache
    }
}
