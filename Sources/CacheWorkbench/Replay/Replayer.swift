import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Replays a request stream against one backend in demand-fill mode (DESIGN.md):
/// 1. every request is a read: a hit, or a miss followed by inserting the object;
/// 2. a hit does not change the stored size;
/// 3. an object whose cost exceeds the capacity is a miss and is not inserted (too_large),
///    unless the backend has a rule of its own (`CacheBackend.admits`: a tier keeps an
///    object too large for memory on disk only, and it is too large only for both tiers);
/// 4. size-0 requests are dropped and counted (in `--mode http` a HEAD, which has no body,
///    is answered: it may hit or go to the origin);
/// 5. the backend evicts until used + cost <= capacity;
/// 6. (capacities are resolved before the replay: see `Capacity`).
///
/// The replayer owns the clock, the histograms, the counters, payload creation and the
/// memory-warning schedule; backends only do cache work.
public struct Replayer {
    public let source: any RequestSource
    public let capacity: Int
    public let options: ReplayOptions
    /// Set when the replay is to be driven from outside (`fedReplay`): `replay` then hands
    /// over a fed replay of the backend, made in the same specialized code, instead of
    /// reading `source`.
    let handOff: FedReplayHandOff?

    public init(source: any RequestSource, capacity: Int, options: ReplayOptions) {
        self.source = source
        self.capacity = capacity
        self.options = options
        handOff = nil
    }

    init(handingOff handOff: FedReplayHandOff, capacity: Int, options: ReplayOptions) throws {
        source = try InMemoryTrace(label: "fed", requests: []).open(keepKeyNames: false)
        self.capacity = capacity
        self.options = options
        self.handOff = handOff
    }

    /// Generic so each backend gets its own specialized loop (called through
    /// `CacheBackend.replay(with:)`). Trace errors propagate; backend errors end the run
    /// and are recorded in `failure`.
    public func replay<Backend: CacheBackend>(_ backend: Backend) throws -> ReplayTally {
        try run(ReplaySession(backend: backend, capacity: capacity, options: options))
    }

    /// A backend that reads nothing of a request but its id gets, where the replay is plain,
    /// the loop that reads ids and sizes in place (`ReplayLoop.handleKeys`).
    func replay<Backend: KeyOnlyBackend>(_ backend: Backend) throws -> ReplayTally {
        var session = ReplaySession(backend: backend, capacity: capacity, options: options)
        session.keysInPlace = { loop, requests in loop.handleKeys(requests) }
        session.keyRecordsInPlace = { loop, records in loop.handleKeys(records) }
        return try run(session)
    }

    private func run<Backend: CacheBackend>(_ made: ReplaySession<Backend>) throws -> ReplayTally {
        var session = made
        if let handOff {
            handOff.replay = FedReplayHandle(session)
            return ReplayTally()
        }
        var nextProgress = session.started + 250_000_000
        // A backend that reads only ids gets a preloaded trace's key records where they lie
        // whenever the replay is plain (after any warm-up).
        let keyRecords = session.keyRecordsInPlace == nil ? nil : source as? any KeyRecordSource
        while true {
            do {
                if let keyRecords, session.loop.isPlain {
                    guard let records = try keyRecords.nextKeyRecords() else { break }
                    session.feedKeys(records)
                } else {
                    guard let chunk = try source.nextChunk() else { break }
                    // `feed` keeps a backend's errors in `failure`: only trace errors leave it.
                    try chunk.withUnsafeBufferPointer { try session.feed($0) }
                }
            } catch let error as TraceError {
                throw error
            } catch {
                session.loop.tally.failure = String(describing: error)
                break
            }
            if session.loop.tally.failure != nil { break }
            try Interruption.check()  // a safe point: between chunks (one atomic load per chunk)
            if let progress = options.progress {
                let now = MonotonicClock.now()
                if now >= nextProgress {
                    nextProgress = now + 250_000_000
                    progress(ReplayProgress(
                        fraction: source.progress, requests: session.loop.tally.requests,
                        elapsedSeconds: Double(now - session.started) / 1e9))
                }
            }
        }
        return session.finish(skippedRows: source.skippedRows)
    }
}

/// One replay fed a chunk at a time: what `Replayer.replay` does between opening and
/// closing, also driven from outside so that one read of a trace feeds many backends
/// (`FedReplay`: MiniSim's mini caches, a fanned-out sweep's points), each with exactly the
/// counts its own `Replayer.replay` would give.
struct ReplaySession<Backend: CacheBackend> {
    var loop: ReplayLoop<Backend>
    let started: UInt64
    /// The in-place loop of a backend that reads only ids (`KeyOnlyBackend`), used for the
    /// chunks where the replay is plain (`ReplayLoop.isPlain`); nil for other backends.
    var keysInPlace: ((inout ReplayLoop<Backend>, UnsafeBufferPointer<Request>) -> Void)?
    /// The same loop over key records (`feedKeys`); nil for other backends.
    var keyRecordsInPlace: ((inout ReplayLoop<Backend>, UnsafeBufferPointer<KeyRecord>) -> Void)?
    let keepsLatencyRecorders: Bool

    init(backend: Backend, capacity: Int, options: ReplayOptions) {
        loop = ReplayLoop(backend: backend, capacity: capacity, options: options)
        keepsLatencyRecorders = options.keepsLatencyRecorders
        let opening = backend.facts
        loop.tally.openingEntries = opening.entries
        loop.tally.openingBytes = opening.accountedBytes
        loop.tally.memory.sample(accounted: opening.accountedBytes)
        started = MonotonicClock.now()
    }

    /// Replays `requests` in order. Trace errors propagate; a backend error ends the replay
    /// (recorded in `failure`; later chunks are ignored).
    mutating func feed(_ requests: UnsafeBufferPointer<Request>) throws {
        guard loop.tally.failure == nil, let first = requests.baseAddress else { return }
        loop.limitOutcomes()
        loop.tally.traceRequests += requests.count
        if let keysInPlace, loop.isPlain {
            keysInPlace(&loop, requests)
            return
        }
        let backend = loop.backend
        do {
            // A recording's events to deliver or outcomes to compare: one branch per chunk, so
            // the loop below (every other trace's) stays as it was.
            if loop.agreement != nil || loop.nextLifecycle < loop.lifecycle.count {
                for position in requests.indices { try loop.handleRecorded((first + position).pointee) }
                return
            }
            for position in requests.indices {
                // The trace is known ahead: a request's index bucket starts loading 8
                // requests before it, its record (found through that bucket) 4 before.
                if position + 8 < requests.endIndex { backend.prefetch(id: requests[position + 8].id) }
                if position + 4 < requests.endIndex { backend.prefetchEntry(id: requests[position + 4].id) }
                // Borrowed from the chunk's storage (`pointee` is addressed, not copied): a
                // `for in` loop would copy each request, retaining and releasing its key text.
                try loop.handle((first + position).pointee)
            }
        } catch let error as TraceError {
            throw error
        } catch {
            loop.tally.failure = String(describing: error)
        }
    }

    /// `feed` for a plain replay (`ReplayLoop.isPlain`) of a backend with `keyRecordsInPlace`.
    mutating func feedKeys(_ records: UnsafeBufferPointer<KeyRecord>) {
        guard loop.tally.failure == nil, let keyRecordsInPlace else { return }
        loop.limitOutcomes()
        loop.tally.traceRequests += records.count
        keyRecordsInPlace(&loop, records)
    }

    /// The final counts, after the last chunk.
    mutating func finish(skippedRows: Int) -> ReplayTally {
        let backend = loop.backend
        if loop.tally.failure == nil {  // recorded events after the last request: delivered too
            do { try loop.deliverLifecycle(upTo: Int.max) } catch { loop.tally.failure = String(describing: error) }
        }
        if loop.http != nil {  // downloads still in flight land; the HTTP counts are final
            do {
                loop.tally.http = try loop.finishHTTP()
            } catch {
                loop.tally.failure = loop.tally.failure ?? String(describing: error)
                loop.tally.http = loop.http?.counts
            }
            let profile = loop.httpProfile
            loop.tally.httpRules = loop.layered?.httpLayers.description(profile: profile) ?? HTTPLayers.whole(profile: profile)
        }
        let wall = Double(MonotonicClock.now() - started) / 1e9
        if loop.lastSampleAt != loop.tally.requests { loop.sampleMemory(warningReleased: nil) }  // the end, once
        var tally = loop.tally
        tally.agreement = loop.agreement
        tally.wallSeconds = wall
        tally.memory.accounted = loop.accountedPeak
        var allGets = loop.getHitLatency
        allGets.add(loop.getMissLatency)
        tally.get = allGets.summary
        tally.getHit = loop.getHitLatency.summary
        tally.getMiss = loop.getMissLatency.summary
        tally.set = loop.setLatency.summary
        if loop.timing && keepsLatencyRecorders { tally.latencyRecorders = .init(getHit: loop.getHitLatency, getMiss: loop.getMissLatency, set: loop.setLatency) }
        tally.finalFacts = backend.facts
        tally.finalDetails = backend.details
        if let tiers = tally.finalDetails.tiers {
            // A tier writes the encoded body to disk, whatever the memory cost it was handed.
            tally.tiers = tiers.since(loop.countsStart.tiers ?? TierCounts())
            tally.logicalWriteBytes = tally.tiers!.diskWriteBytes
        }
        if let admission = tally.finalDetails.admission { tally.admission = admission.since(loop.countsStart.admission) }
        if let prefetch = tally.finalDetails.prefetch { tally.prefetch = prefetch.since(loop.countsStart.prefetch) }
        if let wrong = tally.finalDetails.wrongBodyHits { tally.wrongBodyHits = wrong - (loop.countsStart.wrongBodyHits ?? 0) }
        if let verified = tally.finalDetails.verifiedHits { tally.verifiedHits = verified - (loop.countsStart.verifiedHits ?? 0) }
        tally.skippedRows = skippedRows
        return tally
    }
}

/// The per-request work of one replay and the counters it keeps.
struct ReplayLoop<Backend: CacheBackend> {
    let backend: Backend
    let capacity: Int
    let timing: Bool
    let pricesPixels: Bool
    /// `ReplayOptions.considersObjectMetadata`: not plain (the fit is the backend's).
    let considersObjectMetadata: Bool
    /// `ReplayOptions.usesTTL`: not plain (the TTL rides on whole requests).
    let usesTTL: Bool
    let ignoreObjectSize: Bool
    var warmupLeft: Int
    let pixelRules: PixelCostRules
    let bitmap: BitmapPricing?
    let materialize: Bool
    let schedule: MemoryWarningSchedule?
    let window: Int
    let keepTimeline: Bool
    var recordsOutcomes: Bool
    /// `ReplayOptions.outcomesUpTo`.
    let outcomesUpTo: Int?
    /// `--mode ops`: sets and deletes are applied, and a get miss does not insert.
    let honoursOperations: Bool
    var tally = ReplayTally()
    var getHitLatency = LatencyRecorder()
    var getMissLatency = LatencyRecorder()
    var setLatency = LatencyRecorder()
    var accountedPeak: Int
    var lastTime = 0.0
    /// The first request's time: `at:` warning times count from it.
    var firstTime: Double?
    let sampleInterval: Int
    var nextSampleAt: Int
    var lastSampleAt = 0

    // Memory-warning state.
    var heap: HeapTracker?
    var nextAt = 0
    var aboveArmed = true
    /// `tally.requests` at the last warning, so `every:N` fires once per N.
    var lastWarnedAt = -1
    /// The last `window` outcomes (1 = hit) and their sum, for the before-warning ratio.
    var recent: [UInt8] = []
    var recentHits = 0
    /// Warnings whose after-window is still filling: (event index, requests, hits) at the warning.
    var pending: [(event: Int, requests: Int, hits: Int)] = []
    var timelineMark = (requests: 0, hits: 0)
    /// `--mode http`: the HTTP cache's decisions (`HTTPReplay.swift`); nil in demand-fill.
    var http: HTTPCacheModel?
    /// `--mode http` over a backend whose layers keep their own rules (`HTTPLayers`: an image
    /// library's memory cache over a URLCache or its own files); nil when the whole backend
    /// is one HTTP cache.
    var layered: (any LayeredCache)?
    /// `--coalesce` / `--max-active-downloads` / `--origin-latency`: downloads take time.
    var downloads: DownloadScheduler?
    /// The backend's details when counting started (after the warm-up): a tier's counts and
    /// wrong-body hits are reported from there.
    var countsStart: BackendDetails
    /// The backend checks the body of every hit (`BackendDetails.wrongBodyHits`).
    let checksBodies: Bool
    /// A recording's events to deliver (`ReplayOptions.lifecycle`; empty when none applies)
    /// and the next one.
    let lifecycle: [RecordedLifecycleEvent]
    var nextLifecycle = 0
    let deliversRecordedWarnings: Bool
    let replaysBackgrounds: Bool
    /// The comparison with the app's recorded outcomes (`AppAgreement`); nil when not made.
    var agreement: AppAgreement?
    /// The backend as a two-tier cache, to tell its memory hits from its disk hits.
    let tier: TieredCache?

    /// `--mode http`: the profile's name, for the rules said in the results.
    var httpProfile = ""

    /// Requests between memory samples of an untimed policy simulator with no timeline.
    static var quietSampleInterval: Int { 1 << 20 }

    init(backend: Backend, capacity: Int, options: ReplayOptions) {
        self.backend = backend
        self.capacity = capacity
        self.timing = options.timing
        self.pricesPixels = options.costModel == .pixels
        self.considersObjectMetadata = options.considersObjectMetadata
        self.usesTTL = options.usesTTL
        self.ignoreObjectSize = options.ignoreObjectSize
        self.warmupLeft = max(0, options.warmupRequests)
        self.pixelRules = options.pixelRules
        self.bitmap = options.bitmap
        // An untimed policy simulator: nothing reads memory between the ends but the peak
        // columns, and a simulator's memory grows with what it holds, so one sample every 2^20
        // requests (each a jemalloc epoch and a /proc read, ~280k instructions) keeps the peaks
        // at under one instruction a request instead of ~69 (issue 23's profile).
        let quiet = !options.timing && !Backend.holdsPayloads && !Backend.storesBytes && !options.timeline && options.memoryWarnings == nil
        self.sampleInterval = quiet ? max(options.memorySampleInterval, Self.quietSampleInterval) : max(1, options.memorySampleInterval)
        self.nextSampleAt = sampleInterval
        self.materialize = options.materialize && Backend.holdsPayloads
        self.schedule = options.memoryWarnings
        self.window = max(1, options.warningWindow)
        self.keepTimeline = options.timeline
        self.recordsOutcomes = options.recordOutcomes
        self.outcomesUpTo = options.outcomesUpTo
        self.honoursOperations = options.operations
        self.accountedPeak = backend.facts.accountedBytes
        self.countsStart = backend.details
        self.checksBodies = countsStart.wrongBodyHits != nil
        if schedule != nil { recent = [UInt8](repeating: 0, count: window) }
        deliversRecordedWarnings = options.memoryWarnings == .recorded
        replaysBackgrounds = options.replaysBackgrounds
        lifecycle = deliversRecordedWarnings || replaysBackgrounds ? options.lifecycle : []
        if !deliversRecordedWarnings { tally.undeliveredWarnings = options.lifecycle.count(where: { $0.kind == .memoryWarning }) }
        if !replaysBackgrounds { tally.undeliveredBackgrounds = options.lifecycle.count(where: { $0.kind == .background }) }
        tier = backend as? TieredCache
        if options.comparesWithApp && options.http == nil && !options.operations { agreement = AppAgreement(twoTier: tier != nil) }
        if pricesPixels { tally.costSources = CostSourceCounts() }
        tally.bitmapPricing = options.bitmap
        tally.displayGiven = options.display != nil
        if case .above = schedule { heap = HeapTracker() }
        if let settings = options.http {
            httpProfile = settings.profile.rawValue
            if let layers = backend as? any LayeredCache, layers.httpLayers.memory == .none { layered = layers }
            // Under a URLCache disk layer the model's size rules are the disk's.
            let modelCapacity = layered.map { $0.httpLayers.disk == .http ? $0.diskCapacity : capacity } ?? capacity
            http = HTTPCacheModel(settings: settings, capacity: modelCapacity)
            downloads = settings.downloads.map { DownloadScheduler(settings: $0, seed: options.seed) }
        }
    }

    /// Stops keeping outcomes past `outcomesUpTo` (once per chunk, not per request): a
    /// row keeps them only for a replay within the limit, so those kept go too.
    mutating func limitOutcomes() {
        guard recordsOutcomes, let outcomesUpTo, tally.outcomes.count > outcomesUpTo else { return }
        recordsOutcomes = false
        tally.outcomes = OutcomeBits()
    }

    @inline(__always)
    mutating func handle(_ request: Request) throws {
        // Rule 4. Under --mode ops only a set needs a size: a get of size 0 is still a
        // look-up (CacheLib's kv traces log the get after a set with size 0), a delete too.
        if request.size == 0, !(http != nil && warmupLeft == 0 && request.http?.isHEAD == true),
           !(honoursOperations && request.operation != .set) {
            tally.droppedZeroSize += 1
            return
        }
        if firstTime == nil { firstTime = request.time }
        if warmupLeft > 0 {  // warm the cache; count nothing
            warmupLeft -= 1
            tally.warmupRequests += 1
            if honoursOperations {
                if try !applyWrite(request, counting: false) { _ = try backend.get(request) }  // lookaside: no fill
                if warmupLeft == 0 { countsStart = backend.details }
                return
            }
            if try !backend.get(request) {
                let cost = price(request).cost
                if fits(request, cost: cost) { try backend.set(request, cost: cost, payload: try payload(for: request, cost: cost)) }
            }
            if warmupLeft == 0 { countsStart = backend.details }  // a backend's own counts start now
            return
        }
        if schedule != nil { try warnIfDue(request) }
        if honoursOperations, try applyWrite(request, counting: true) { return }
        tally.requests += 1
        defer { sampleMemoryIfDue() }
        let size = ignoreObjectSize ? 1 : request.size
        tally.requestedBytes += ByteTotal(size)
        lastTime = request.time
        // Under pixel cost every request is priced (and its rule counted), hit or miss.
        let (cost, priced, shaped) = price(request)
        if let priced {
            tally.costSources!.count(priced)
            tally.bitmap.count(shaped)
        }
        if http != nil {  // the HTTP mode decides what to ask of the backend
            let hit = try answerHTTP(request, cost: cost)
            if schedule != nil { recordOutcome(hit) }
            if recordsOutcomes { tally.outcomes.append(hit) }
            if hit {
                tally.hits += 1
                tally.hitBytes += ByteTotal(size)
            }
            return
        }
        let hit = try timedGet(request)
        if schedule != nil { recordOutcome(hit) }
        if recordsOutcomes { tally.outcomes.append(hit) }
        if hit {  // rule 2: the stored size stays as it is
            tally.hits += 1
            tally.hitBytes += ByteTotal(size)
            return
        }
        if honoursOperations { return }  // lookaside: the application, not the cache, fetches
        if !fits(request, cost: cost) {  // rule 3
            tally.tooLarge += 1
            return
        }
        // The "decoded" memory, or a disk backend's body, is made outside the timed call:
        // set measures the cache.
        try timedSet(request, cost: cost)  // rule 1: a miss inserts (the backend evicts as rule 5 says)
    }

    /// `--mode ops`: applies a set (insert, or replace: CacheLib's cachebench calls
    /// `insertOrReplace`, so the stored size becomes the new one) or a delete, and returns
    /// true; returns false for a get, which the caller looks up. A set too large for the
    /// cache stores nothing and leaves any older value (cachebench's failed allocate).
    @inline(__always)
    mutating func applyWrite(_ request: Request, counting: Bool) throws -> Bool {
        switch request.operation {
        case .get: return false
        case .delete:
            if counting { tally.deletes += 1 }
            try backend.remove(request)
        case .set:
            let (cost, priced, shaped) = price(request)
            if counting {
                tally.sets += 1
                if let priced {
                    tally.costSources!.count(priced)
                    tally.bitmap.count(shaped)
                }
            }
            guard fits(request, cost: cost) else {
                if counting { tally.tooLarge += 1 }
                return true
            }
            try backend.remove(request)
            if counting {
                try timedSet(request, cost: cost)
            } else {
                try backend.set(request, cost: cost, payload: try payload(for: request, cost: cost))
            }
        }
        return true
    }

    /// The backend's get, timed when timing is on (the clock read around the call only).
    @inline(__always)
    mutating func timedGet(_ request: Request) throws -> Bool {
        guard timing else { return try backend.get(request) }
        let before = MonotonicClock.now()
        let hit = try backend.get(request)
        let elapsed = MonotonicClock.now() &- before
        if hit { getHitLatency.record(elapsed) } else { getMissLatency.record(elapsed) }
        return hit
    }

    /// Makes the payload (outside the timed call: set measures the cache), then the
    /// backend's set, timed when timing is on; counts the logical write and the peak.
    @inline(__always)
    mutating func timedSet(_ request: Request, cost: Int) throws {
        let payload = try payload(for: request, cost: cost)
        if timing {
            let before = MonotonicClock.now()
            try backend.set(request, cost: cost, payload: payload)
            setLatency.record(MonotonicClock.now() &- before)
        } else {
            try backend.set(request, cost: cost, payload: payload)
        }
        if Backend.storesBytes { tally.logicalWriteBytes += ByteTotal(cost) }
        accountedPeak = max(accountedPeak, backend.facts.accountedBytes)
    }

    /// Rule 3: the backend's own size rule when it has one (a tier's per-tier rule), else
    /// the cost against the run's capacity.
    @inline(__always)
    func fits(_ request: Request, cost: Int) -> Bool {
        backend.admits(request, cost: cost) ?? (cost <= capacity)
    }

    /// Whether the next requests need nothing of `handle` but rules 1–5 on ids and sizes (and
    /// each outcome kept when asked): no timing, warm-up, warnings, HTTP, operations or pixels
    /// (a `KeyOnlyBackend` holds no payloads and stores no bytes, by its contract).
    var isPlain: Bool {
        !timing && warmupLeft == 0 && schedule == nil && http == nil && !honoursOperations && !pricesPixels && !considersObjectMetadata && !usesTTL
            && nextLifecycle == lifecycle.count && agreement == nil
    }

    /// What the request costs, and the pixel rule that priced it (`ReplayOptions.price`).
    @inline(__always)
    private func price(_ request: Request) -> (cost: Int, price: PixelCostRules.Price?, bitmap: BitmapPricing.Effect) {
        ReplayOptions.price(request, ignoreObjectSize: ignoreObjectSize, pricesPixels: pricesPixels, rules: pixelRules, bitmap: bitmap)
    }

    /// The object's memory (a materialized bitmap) or a disk backend's body, or nil.
    @inline(__always)
    func payload(for request: Request, cost: Int) throws -> Payload? {
        if materialize { return try Payload(byteCount: cost) }
        return Backend.receivesBodies ? try Payload(contentFor: request.keyText, byteCount: cost) : nil
    }

    private mutating func warnIfDue(_ request: Request) throws {
        let due: Bool
        switch schedule {
        case .every(let count): due = tally.requests > 0 && tally.requests % count == 0 && lastWarnedAt != tally.requests
        case .at(let times): due = nextAt < times.count && request.time - (firstTime ?? request.time) >= times[nextAt]
        case .above(let bytes):
            let live = heap?.liveBytes ?? 0
            if live <= bytes { aboveArmed = true }
            due = aboveArmed && live > bytes
        case .recorded, nil: due = false  // delivered by position (`deliverLifecycle`)
        }
        guard due else { return }
        if case .at(let times) = schedule {
            while nextAt < times.count && request.time - (firstTime ?? request.time) >= times[nextAt] { nextAt += 1 }
        }
        aboveArmed = false
        try deliverWarning(time: request.time)
    }

    /// One memory warning now, before the next counted request (`time`: the trace time it is
    /// shown at).
    private mutating func deliverWarning(time: Double) throws {
        lastWarnedAt = tally.requests
        let allocatedBefore = MemoryProbe.allocatedBytes()
        let released = try backend.didReceiveMemoryWarning()
        let allocatedAfter = MemoryProbe.allocatedBytes()
        let filled = min(tally.requests, window)
        tally.warnings.append(MemoryWarningEvent(
            requestIndex: tally.requests, traceTime: time, releasedBytes: released,
            allocatedBefore: allocatedBefore, allocatedAfter: allocatedAfter,
            hitRatioBefore: filled == window ? Double(recentHits) / Double(window) : nil, hitRatioAfter: nil))
        pending.append((tally.warnings.count - 1, tally.requests, tally.hits))
        sampleMemory(warningReleased: released)
    }

    /// The position in the trace of the request `handle` is given next: every request
    /// before it was dropped (size 0), warmed, applied as a write, or counted. O(1).
    var traceIndex: Int { tally.requests + tally.droppedZeroSize + tally.warmupRequests + tally.sets + tally.deletes }

    /// Delivers the recording's events placed at or before position `index`, in recorded
    /// order: memory warnings (`--memory-warning recorded`), background events (`--background
    /// on`), foreground events counted. O(events delivered).
    mutating func deliverLifecycle(upTo index: Int, time: Double? = nil) throws {
        while nextLifecycle < lifecycle.count, lifecycle[nextLifecycle].requestsBefore <= index {
            let event = lifecycle[nextLifecycle]
            nextLifecycle += 1
            switch event.kind {
            case .memoryWarning:
                guard deliversRecordedWarnings else { continue }
                try deliverWarning(time: time ?? lastTime)
                agreement?.delivered("memory warning", before: event.requestsBefore, emptied: backend.facts.accountedBytes == 0)
            case .background:
                guard replaysBackgrounds else { continue }
                tally.backgrounds += 1
                tally.backgroundReleasedBytes += try backend.didEnterBackground()
                tally.backgroundResponse = backend.backgroundResponse
                agreement?.delivered("background event", before: event.requestsBefore, emptied: backend.facts.accountedBytes == 0)
            case .foreground:
                if replaysBackgrounds { tally.foregrounds += 1 }
            }
        }
    }

    // Compiled once, not once per backend, as `answerHTTP`: a recording is thousands of
    // requests, and this path was a tenth of the replay loop's specialized code.
    /// `handle` for a recording: first the recording's events placed before this request
    /// (warm-up included: they are the app's history), then `handle`, then the request's
    /// outcome compared with the app's (`AppAgreement`), read from how the counts moved: the
    /// backend's calls are exactly those of `handle`.
    @_semantics("optimize.sil.specialize.generic.never")
    mutating func handleRecorded(_ request: Request) throws {
        let index = traceIndex
        if nextLifecycle < lifecycle.count { try deliverLifecycle(upTo: index, time: request.time) }
        guard agreement != nil else { return try handle(request) }
        let before = (
            requests: tally.requests, hits: tally.hits, tooLarge: tally.tooLarge, warmed: tally.warmupRequests,
            memoryHits: tier?.memoryHitCount ?? 0, memoryRefused: tier?.memoryRefusedCount ?? 0)
        try handle(request)
        if tally.warmupRequests > before.warmed {
            agreement!.warmed(request, at: index)
            return
        }
        guard tally.requests > before.requests else { return }  // dropped (size 0)
        let model: AppAgreement.ModelOutcome
        if tally.hits > before.hits {
            model = tier.map { $0.memoryHitCount > before.memoryHits ? .memory : .disk } ?? .memory
        } else {
            model = .miss
        }
        agreement!.counted(
            request, at: index, model: model, tooLarge: tally.tooLarge > before.tooLarge,
            memoryRefused: (tier?.memoryRefusedCount ?? 0) > before.memoryRefused)
    }

    @inline(__always)
    private mutating func recordOutcome(_ hit: Bool) {
        let slot = (tally.requests - 1) % window
        recentHits += Int(hit ? 1 : 0) - Int(recent[slot])
        recent[slot] = hit ? 1 : 0
        // `tally.hits` is updated after this call; count this request's hit explicitly.
        while let first = pending.first, tally.requests - first.requests >= window {
            let hits = tally.hits + (hit ? 1 : 0) - first.hits
            tally.warnings[first.event].hitRatioAfter = Double(hits) / Double(window)
            pending.removeFirst()
        }
    }

    /// Exactly every `sampleInterval` counted requests, whatever the reader's chunk size.
    @inline(__always)
    mutating func sampleMemoryIfDue() {
        if tally.requests == nextSampleAt {
            sampleMemory(warningReleased: nil)
            nextSampleAt += sampleInterval
        }
    }

    mutating func sampleMemory(warningReleased: Int?) {
        if warningReleased == nil { lastSampleAt = tally.requests }
        tally.memory.sample(accounted: backend.facts.accountedBytes)
        guard keepTimeline else { return }
        let requests = tally.requests - timelineMark.requests
        tally.timeline.append(TimelineSample(
            requestIndex: tally.requests, traceTime: lastTime, accountedBytes: backend.facts.accountedBytes,
            allocatedBytes: MemoryProbe.allocatedBytes(), residentBytes: MemoryProbe.residentBytes(),
            windowHitRatio: requests > 0 ? Double(tally.hits - timelineMark.hits) / Double(requests) : nil,
            warningReleasedBytes: warningReleased))
        timelineMark = (tally.requests, tally.hits)
    }
}

/// A backend whose `get` and `set` read nothing of a request but its id (a policy
/// simulator), which has no size rule of its own (`admits` is nil), holds no payloads and
/// stores no bytes: a plain replay
/// feeds it ids and sizes read in place from the trace's storage.
protocol KeyOnlyBackend: CacheBackend {
    /// `get` of a request with this id.
    func getKey(_ id: UInt64) -> Bool
    /// `set` of a request with this id at `cost`.
    func setKey(_ id: UInt64, cost: Int)
    /// `setKey` right after `getKey(id)` missed, with `cost` at most the capacity: the same
    /// effect without looking for an older object of that id (there is none).
    func fillKey(_ id: UInt64, cost: Int)
    /// `facts.accountedBytes`, without building the facts.
    var usedBytes: Int { get }
}

extension ReplayLoop where Backend: KeyOnlyBackend {
    /// `handle` for a plain replay (`isPlain`), the same counts: each request's id, size and
    /// time are read where the trace stores them (`Request`s, or a preloaded trace's
    /// `KeyRecord`s), so no `Request` is built or copied (a copy retains and releases its key
    /// text and HTTP metadata: ~120 instructions a request). The counts are kept in locals
    /// over each run of requests that cannot reach the next memory sample, and stored once
    /// per run: in `self` they were loaded and stored around every call into the backend.
    @inline(__always)
    mutating func handleKeys<Record: KeyFields>(_ records: UnsafeBufferPointer<Record>) {
        guard let first = records.baseAddress else { return }
        let end = records.endIndex
        let (ignoreObjectSize, capacity) = (self.ignoreObjectSize, self.capacity)
        var runStart = 0
        while runStart < end {
            // Each request counted below adds one to `tally.requests`, which stays below
            // `nextSampleAt` between samples (`sampleMemoryIfDue`): the run ends by it.
            let runEnd = runStart + min(end - runStart, nextSampleAt - tally.requests)
            var requests = 0, hits = 0, tooLarge = 0, dropped = 0
            var requestedBytes: ByteTotal = 0, hitBytes: ByteTotal = 0
            var peak = accountedPeak
            var time = (first: firstTime, last: lastTime)
            for position in runStart..<runEnd {
                // `&+`: a position is below a buffer's count, far from `Int.max`.
                if position &+ 8 < end { backend.prefetch(id: records[position &+ 8].keyID) }
                if position &+ 4 < end { backend.prefetchEntry(id: records[position &+ 4].keyID) }
                let record = first + position
                let size = record.pointee.keySize
                if size == 0 {  // rule 4
                    dropped &+= 1  // at most the run's length
                    continue
                }
                if time.first == nil { time.first = record.pointee.keyTime }
                requests &+= 1
                time.last = record.pointee.keyTime
                let cost = ignoreObjectSize ? 1 : size
                requestedBytes += ByteTotal(cost)
                let id = record.pointee.keyID
                let hit = backend.getKey(id)
                if recordsOutcomes { tally.outcomes.append(hit) }  // the report's paired test
                if hit {
                    hits &+= 1
                    hitBytes += ByteTotal(cost)
                } else if cost > capacity {  // rule 3 (the backend has no rule of its own)
                    tooLarge &+= 1
                } else {
                    backend.fillKey(id, cost: cost)
                    peak = max(peak, backend.usedBytes)
                }
            }
            tally.requests += requests
            tally.hits += hits
            tally.tooLarge += tooLarge
            tally.droppedZeroSize += dropped
            tally.requestedBytes += requestedBytes
            tally.hitBytes += hitBytes
            accountedPeak = peak
            (firstTime, lastTime) = time
            runStart = runEnd
            sampleMemoryIfDue()
        }
    }
}
