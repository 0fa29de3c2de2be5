import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Any backend with an admission policy in front (`lru[admission=bloomfilter]`): the
/// shared machinery every policy gets from the registry, so an admissioner is written once.
///
/// The order is libCacheSim's `cache_get_base` (libCacheSim/cache/cache.c): the lookup,
/// then the admissioner's `update` on every request, then on a miss `can_insert`, which asks
/// the admissioner first and compares the size with the capacity after
/// (`cache_can_insert_default`) — so an object too large for the cache is asked about too,
/// and a random admissioner draws for it. Policies whose `can_insert` puts a size rule of
/// their own first (2Q, S3-FIFO, S3-FIFOd, QDLP, S3-LRU: `obj_size <= small queue && …`)
/// are not asked about objects their rule refuses (`AdmissionOrdering`). The replayer asks
/// `admits(_:cost:)` on every miss (its rule 3), which is where the question is put; `set`
/// then stores only what was admitted.
///
/// TinyLFU is asked at `set`, when the cache is full, about each victim the policy names
/// before evicting it (`VictimPeeking`), as Caffeine's simulator asks its admittor.
///
/// Complexity: the inner backend's, plus the admissioner's (O(1) per request except
/// AdaptSize's periodic reconfiguration); TinyLFU O(1) per victim named.
final class AdmissionGate<Inner: CacheBackend>: GateForwarding {
    let inner: Inner
    /// The admissioner asked on a miss (nil with TinyLFU).
    private var admissioner: (any Admissioner)?
    /// TinyLFU, asked at `set` about the victims `victims` names.
    private var tinyLFU: TinyLFUAdmission?
    private let victims: (any VictimPeeking)?
    private let capacity: Int
    private let cost: @Sendable (Request) -> Int
    /// The key of the last `get` that missed, until its question is put.
    private var missed: UInt64?
    /// The answer to that miss's question, for the `set` that follows it.
    private var pending: (key: UInt64, admitted: Bool)?
    private(set) var counts = AdmissionCounts()

    /// The libCacheSim code a random admissioner's draws follow (`reference=`), said in
    /// `settings` when the inner policy's own do not say it; nil for the others.
    private let reference: String?

    init(_ inner: Inner, choice: AdmissionChoice, capacity: Int, countsObjects: Bool, cost: @escaping @Sendable (Request) -> Int, name: String, text: String,
         reference: String = LibCacheSimReference.release, saysReference: Bool = false) throws {
        self.inner = inner
        self.capacity = capacity
        self.cost = cost
        victims = inner as? any VictimPeeking
        if case .tinyLFU(let multiplier) = choice {
            guard victims != nil else {
                let reason = AdmissionChoice.tinyLFUExclusions.first { $0.name.hasPrefix(name) }?.reason ?? "it cannot name its next victim in advance"
                throw WorkbenchError("backend \(AdmissionChoice.written(text, backend: name)): TinyLFU compares the candidate with the policy's next victim, which \(name) cannot give: \(reason)")
            }
            tinyLFU = TinyLFUAdmission(objects: countsObjects ? capacity : nil, countersMultiplier: multiplier)
        } else {
            // libCacheSim has one generator per thread: a randomized policy shares its own
            // (which follows the same reference); otherwise the reference's from its start.
            let own = reference == LibCacheSimReference.repository ? LibCacheSimRandom(.mmix) : LibCacheSimRandom()
            admissioner = choice.make(random: (inner as? any LibCacheSimRandomized)?.libCacheSimRandom ?? own)
        }
        self.reference = saysReference ? reference : nil
    }

    var settings: String {
        var own = "admission=\(tinyLFU?.settings ?? admissioner?.settings ?? "")"
        if let reference, !inner.settings.contains("reference=") { own += ";reference=\(reference)" }
        return inner.settings.isEmpty ? own : inner.settings + ";" + own
    }

    func get(_ request: Request) throws -> Bool {
        let hit = try inner.get(request)
        missed = hit ? nil : request.id
        pending = nil
        let cost = cost(request)
        if tinyLFU != nil { tinyLFU!.record(request.id, cost: cost, capacity: capacity) } else { admissioner!.record(request.id, cost: cost, capacity: capacity) }
        return hit
    }

    /// The replayer's size question after a miss: answered by the inner backend's rule (or
    /// the capacity), after putting the admission question, whose answer `set` uses. (In
    /// `--mode http` it comes after every lookup; only one that missed puts the question.)
    func admits(_ request: Request, cost: Int) -> Bool? {
        let fits = inner.admits(request, cost: cost) ?? (cost <= capacity)
        guard tinyLFU == nil, missed == request.id else { return fits }
        missed = nil
        pending = (request.id, ask(request, cost: cost))
        return fits
    }

    /// The admissioner's answer, counted; false without a question when the policy's own
    /// size rule refuses first.
    private func ask(_ request: Request, cost: Int) -> Bool {
        if let ordering = inner as? any AdmissionOrdering, !ordering.asksAdmission(cost: cost) { return false }
        let admitted = admissioner!.admits(request.id, cost: cost)
        if admitted { counts.admitted += 1 } else { counts.rejected += 1 }
        return admitted
    }

    func set(_ request: Request, cost: Int, payload: Payload?) throws {
        if tinyLFU != nil {
            guard let victims else { return }
            tinyLFU!.ensureEntries(inner.facts.entries)
            var asked = false
            while let victim = victims.nextVictimKey(toFit: cost) {
                asked = true
                guard tinyLFU!.admits(request.id, over: victim) else {
                    // Caffeine evicts the candidate; the victims it beat are gone already.
                    counts.rejected += 1
                    return
                }
                victims.evictNext(incoming: cost)
            }
            if asked { counts.admitted += 1 }
            try inner.set(request, cost: cost, payload: payload)
            return
        }
        // A store no missed lookup asked about (`--mode http` storing without a lookup, or a
        // fresher body over a stale one) puts its question now.
        let admitted = pending?.key == request.id ? pending!.admitted : ask(request, cost: cost)
        pending = nil
        guard admitted else { return }
        try inner.set(request, cost: cost, payload: payload)
    }


    var details: BackendDetails {
        var details = inner.details
        details.admission = counts
        return details
    }

    func prefetch(id: UInt64) { inner.prefetch(id: id) }
    func prefetchEntry(id: UInt64) { inner.prefetchEntry(id: id) }
}

extension AdmissionChoice {
    /// `backend` (the policy `name` builds) behind this admission policy.
    /// `text`: the option's value as written, for the message of a refusal.
    /// `reference`: the backend's `reference=` as written (nil: the release's).
    func gate(_ backend: any CacheBackend, config: BackendConfig, name: String, text: String, reference: String? = nil) throws -> any CacheBackend {
        let followed = try referenceFollowed(reference, backend: name)
        func wrap<B: CacheBackend>(_ inner: B) throws -> any CacheBackend {
            try AdmissionGate<B>(inner, choice: self, capacity: config.capacityBytes, countsObjects: config.countsObjects, cost: config.memoryCost, name: name, text: text,
                                 reference: followed, saysReference: draws || reference != nil)
        }
        return try wrap(backend)
    }
}

/// A backend whose own size rule comes before the admission question (libCacheSim's
/// `can_insert` of 2Q, S3-FIFO, S3-FIFOd, QDLP and S3-LRU).
protocol AdmissionOrdering {
    /// Whether the admissioner is asked about a missed object of `cost`.
    func asksAdmission(cost: Int) -> Bool
}

/// A backend that can name the object it would evict next before evicting it (TinyLFU
/// compares the candidate with each victim in turn).
protocol VictimPeeking {
    /// The key of the object that goes next to make room for `cost`, still cached (the
    /// policy's search done, `VictimNamingPolicy`); nil when the object fits already or the
    /// policy would not store it.
    func nextVictimKey(toFit cost: Int) -> UInt64?
    /// Evicts that object.
    func evictNext(incoming cost: Int)
    /// Whether `key` is cached (tests: the named victim is the one that goes).
    func isCached(_ key: UInt64) -> Bool
}
