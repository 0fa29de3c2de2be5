import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// What one replay counted and measured. Filled by the replayer only.
public struct ReplayTally: Sendable {
    /// Rows the trace produced, dropped ones included.
    public var traceRequests = 0
    /// Requests replayed (size-0 requests are dropped, rule 4); under `--mode ops` the
    /// gets, which hits and misses count.
    public var requests = 0
    /// `--mode ops`: the sets and deletes applied (counted, after the warm-up).
    public var sets = 0
    public var deletes = 0
    public var hits = 0
    public var requestedBytes: ByteTotal = 0
    public var hitBytes: ByteTotal = 0
    public var droppedZeroSize = 0
    /// Body bytes handed to a disk backend's `set` (the logical writes).
    public var logicalWriteBytes: ByteTotal = 0
    /// Misses whose cost exceeded the whole capacity, so were not inserted (rule 3).
    public var tooLarge = 0
    /// The backend's details at the end (`CacheBackend.details`).
    public var finalDetails = BackendDetails()
    /// A two-tier backend's counts over the counted requests (`TieredCache`); nil otherwise.
    public var tiers: TierCounts?
    /// Hits with another URL's body, from a backend that checks bodies; nil otherwise.
    public var wrongBodyHits: Int?
    /// Counted hits whose body `--verify` read back and checked; nil when nothing was checked.
    public var verifiedHits: Int?
    /// Misses an admission policy admitted and rejected over the counted requests; nil
    /// without one (`AdmissionGate`).
    public var admission: AdmissionCounts?
    /// What a prefetcher inserted and how it was used over the counted requests; nil
    /// without one (`PrefetchGate`).
    public var prefetch: PrefetchCounts?
    public var skippedRows = 0
    /// What the backend held before the first request: entries a disk backend reopened from
    /// an earlier run's `--cache-dir` (a warm start); 0 for a cold one.
    public var openingEntries = 0
    public var openingBytes = 0
    /// Requests replayed before the counters started (`--warmup`).
    public var warmupRequests = 0
    public var warnings: [MemoryWarningEvent] = []
    /// A recording's background events delivered (`ReplayOptions.replaysBackgrounds`), the
    /// accounted cost they released, what the backend does on one
    /// (`CacheBackend.backgroundResponse`; nil when none was delivered), and the foreground
    /// events counted.
    public var backgrounds = 0
    public var backgroundReleasedBytes = 0
    public var backgroundResponse: String?
    public var foregrounds = 0
    /// The recording's memory warnings and background events the replay was not asked to
    /// deliver (no `--memory-warning recorded`; `--background off`): said, never dropped unsaid.
    public var undeliveredWarnings = 0
    public var undeliveredBackgrounds = 0
    /// Each counted request's outcome against the app's recorded one, when the trace carries
    /// them (`ReplayOptions.comparesWithApp`); nil otherwise.
    public var agreement: AppAgreement?
    /// Every counted request's outcome, when `ReplayOptions.recordOutcomes` asked for them
    /// (a warned run and its counterfactual, `WarningCost`); empty otherwise.
    public var outcomes = OutcomeBits()
    public var timeline: [TimelineSample] = []
    public var get: LatencySummary?
    /// Gets that hit and gets that missed, apart (a miss answered from an in-memory index
    /// is far cheaper than a hit that reads a file).
    public var getHit: LatencySummary?
    public var getMiss: LatencySummary?
    /// Pixel cost model: how many requests each pricing rule priced.
    public var costSources: CostSourceCounts?
    /// Pixel cost under a preset: priced requests its library's bitmap rule downsampled
    /// (`--display`) and padded (`DecodedBitmap`).
    public var bitmap = BitmapCounts()
    /// The bitmap rule and display the replay priced with (nil: none, width × height × 4),
    /// and whether the run had a `--display` at all, for the notes.
    public var bitmapPricing: BitmapPricing?
    public var displayGiven = false
    public var set: LatencySummary?
    public var wallSeconds = 0.0
    public var memory = MemoryPeaks()
    public var finalFacts = BackendFacts(entries: 0, accountedBytes: 0, evictions: 0)
    /// `--mode http`: how requests were answered (fresh, stale, revalidated, fetched…).
    public var http: HTTPCounts?
    /// `--mode http`: which layer followed which rules (`memory:none;disk:rfc9111`, or
    /// `whole:rfc9111` for a backend that is one HTTP cache); the `http_rules` column.
    public var httpRules: String?
    /// Set when the backend failed mid-run; the counts then cover the requests before it.
    public var failure: String?
    /// `--har-runs cold` (`ColdRuns`): each run's own counts, in run order; nil for a replay
    /// of the trace as one.
    public var runs: [RunFigures]?
    /// The latency histograms behind `get`, `getHit`, `getMiss` and `set` (timed replays), so
    /// runs replayed apart give one histogram (`ColdRuns`); dropped from a finished row.
    var latencyRecorders: LatencyRecorders?

    struct LatencyRecorders: Sendable {
        var getHit: LatencyRecorder
        var getMiss: LatencyRecorder
        var set: LatencyRecorder
    }

    public init() {}

    public var misses: Int { requests - hits }
    public var memoryWarnings: Int { warnings.count }
    public var warningReleasedBytes: Int { warnings.reduce(0) { $0 + $1.releasedBytes } }

    /// Mean over warnings whose window was complete.
    public func meanHitRatio(_ side: KeyPath<MemoryWarningEvent, Double?>) -> Double? {
        let values = warnings.compactMap { $0[keyPath: side] }
        return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }
    public var objectHitRatio: Double? { requests > 0 ? Double(hits) / Double(requests) : nil }
    public var byteHitRatio: Double? { requestedBytes > 0 ? hitBytes.asDouble / requestedBytes.asDouble : nil }
    public var throughput: Double? { wallSeconds > 0 ? Double(requests) / wallSeconds : nil }
}
