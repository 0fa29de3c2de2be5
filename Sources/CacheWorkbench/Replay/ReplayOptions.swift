import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// How a replay runs. Defaults are what DESIGN.md's demand-fill, libCacheSim-comparable
/// mode needs.
public struct ReplayOptions: Sendable {
    /// Time every backend call (clock read around the call only). Off for hit-ratio sweeps.
    public var timing = true
    public var costModel: CostModel = .encoded
    /// Every object counts 1 (libCacheSim's --ignore-obj-size): capacities are in objects,
    /// and byte figures count objects.
    public var ignoreObjectSize = false
    /// Requests replayed before the counters start (the cache warms, nothing is counted).
    public var warmupRequests = 0
    /// `--consider-obj-metadata`: policies add libCacheSim's per-object metadata bytes to
    /// each object's cost (`ObjectMetadataBytes`); the replay then takes the general loop,
    /// whose fit is the backend's own.
    public var considersObjectMetadata = false
    /// `--use-ttl`: objects expire by their requests' TTLs (`ExpiryGate`); the replay takes
    /// the general loop on whole requests (a key record has no TTL), never a packed preload.
    public var usesTTL = false
    /// How pixel costs are found for requests without dimensions (pixel cost model only).
    public var pixelRules = PixelCostRules()
    /// `--display`: the size the app downsampled to, for the presets whose library
    /// downsamples when configured (`DecodedBitmap`); nil: full size.
    public var display: DisplayOption?
    /// The backend's library bitmap rule with `display` (pixel cost, presets only; set per
    /// backend by `RunPlan`): downsampling and row padding on priced dimensions.
    public var bitmap: BitmapPricing?
    /// Sample jemalloc and RSS every this many requests (exactly).
    public var memorySampleInterval = 4_096
    /// Give each stored object a real heap block of its cost (`Payload`), for backends that
    /// hold payloads, so the allocator and RSS see what an app would hold.
    public var materialize = false
    public var memoryWarnings: MemoryWarningSchedule?
    /// A recording's lifecycle events, in recorded order (`RecordedLifecycleEvent`), each
    /// delivered before the request at its `requestsBefore` position of the trace (warm-up
    /// included): the memory warnings when `memoryWarnings` is `.recorded`, the background
    /// events when `replaysBackgrounds` (`CacheBackend.didEnterBackground`); foreground
    /// events are counted. Empty for any other trace.
    public var lifecycle: [RecordedLifecycleEvent] = []
    /// Deliver the recording's background events (`--background on`, the default when the
    /// recording has them).
    public var replaysBackgrounds = false
    /// Compare each counted request's outcome with the app's recorded one (`AppAgreement`):
    /// set when the trace's requests carry `RecordedImage` sources (demand-fill only).
    public var comparesWithApp = false
    /// Requests in the hit-ratio windows before and after each warning.
    public var warningWindow = 1_000
    /// How `memorySampleInterval` and `warningWindow` were chosen when scaled to a short
    /// trace (`RunSetup`); nil when set directly.
    public var sampling: ShortTraceSampling?
    /// Keep every counted request's outcome (`ReplayTally.outcomes`), to compare a warned
    /// replay with the same replay without warnings (`WarningCost`) and, up to
    /// `OutcomeBits.pairedRequestLimit` requests, for the report's paired test (`outcome_bits`).
    public var recordOutcomes = false
    /// With `recordOutcomes`: stop keeping them (and drop those kept) once more than this
    /// many are kept, checked between chunks. For a replay that starts before the trace's
    /// request count is known (`TraceFactsPass`): a row keeps them only up to
    /// `OutcomeBits.pairedRequestLimit` requests. nil: keep every one.
    public var outcomesUpTo: Int?
    /// Keep a memory/hit-ratio sample at every memory sample point and warning.
    public var timeline = false
    /// `--mode http` (nil: demand-fill): RFC 9111 / URLCache semantics on the trace's headers.
    public var http: HTTPReplaySettings?
    /// `--mode ops`: the trace's ops are honoured (docs/ops-mode.md): a set inserts or
    /// replaces, a delete removes, a get that misses does not insert (lookaside, as
    /// CacheLib's cachebench replays kv traces). Hits and misses count gets only.
    public var operations = false
    /// Seed for the replay's own randomness (the download-time model's latencies); a
    /// `RunPlan` sets its own seed here.
    public var seed: UInt64 = 1
    /// Keep the latency histograms in the tally (`ReplayTally.latencyRecorders`), for runs
    /// replayed apart and combined (`ColdRuns`).
    var keepsLatencyRecorders = false
    /// Called about four times a second while a replay runs.
    public var progress: (@Sendable (ReplayProgress) -> Void)?

    public init() {}
}

extension ReplayOptions {
    /// What a request costs, and the pixel rule that priced it (nil: the encoded size, or
    /// every object counting 1): the replay's one pricing rule, on the few values it reads
    /// (the replay loop keeps just those; a tier's promotions use it through `RunPlan`).
    /// `urlRejected`: a URL size was refused for decoding below the encoded bytes (counted).
    /// `bitmap` reshapes a price with dimensions as the backend's library decodes it.
    static func price(
        _ request: Request, ignoreObjectSize: Bool, pricesPixels: Bool, rules: PixelCostRules, bitmap: BitmapPricing? = nil
    ) -> (cost: Int, price: PixelCostRules.Price?, bitmap: BitmapPricing.Effect) {
        if ignoreObjectSize { return (1, nil, .none) }
        guard pricesPixels else { return (request.size, nil, .none) }
        var priced = rules.price(of: request)
        let effect = bitmap?.apply(&priced, request: request) ?? .none
        return (priced.cost, priced, effect)
    }
}

public struct ReplayProgress: Sendable {
    /// Share of the trace consumed, when known.
    public var fraction: Double?
    public var requests: Int
    public var elapsedSeconds: Double
}

/// The replay mode, as the CSV `mode` column names it.
public enum ReplayMode: String, Sendable {
    /// Every request is a read; a miss inserts the object (libCacheSim's semantics).
    case demandFill = "demand-fill"
    /// Requests answered by HTTP caching rules from the trace's recorded headers
    /// (`HTTPCacheModel`): fresh, stale, revalidated or fetched.
    case http
    /// Each request's op honoured: set inserts or replaces, delete removes, a get miss
    /// does not insert (`ReplayOptions.operations`).
    case ops

    /// The mode a run's options say.
    public init(_ options: ReplayOptions) {
        self = options.http != nil ? .http : options.operations ? .ops : .demandFill
    }
}
