import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// A replay checked against the app (issue 42 item 3): a recording carries, for every image
/// request, where the app's own pipeline served it from (`RecordedImage.Source`); the
/// replayer compares each counted request's outcome in the model with it, and keeps every
/// request where they differ with the reason where known.
///
/// - A memory-only backend: a hit agrees with the app's `memory`, a miss with its `disk` or
///   `network` (a memory cache cannot tell them apart).
/// - A two-tier backend (`TieredCache`, the presets): memory ↔ memory, disk ↔ disk, a miss ↔
///   network.
/// - Requests whose recorded source is `unknown` (or absent) are not compared.
///
/// The replayer owns the comparison (backends don't measure); it sees the tally's counts
/// move around each request, so the backends' calls are the same as in any replay.
///
/// Complexity: O(1) amortized per request (a dictionary of the keys seen), O(disagreements)
/// memory besides.
public struct AppAgreement: Sendable, Equatable {
    /// Where a request was answered in the model.
    public enum ModelOutcome: String, Sendable {
        case memory, disk, miss
    }

    /// One request where the model and the app differ.
    public struct Disagreement: Sendable, Equatable {
        /// 0-based position of the request in the trace (the recording's image requests).
        public var request: Int
        public var key: String
        public var app: RecordedImage.Source
        public var model: ModelOutcome
        /// Why, where the replay knows it (an eviction, a warning that emptied the cache, a
        /// key never stored, a key the model never saw).
        public var reason: String
    }

    /// Whether the model has two tiers (memory / disk / miss) or one (hit / miss).
    public let twoTier: Bool
    /// Requests compared (counted, with a known recorded source) and those that agree.
    public private(set) var compared = 0
    public private(set) var agreeing = 0
    /// Of the compared requests, those the app served from its memory cache, and from disk.
    public private(set) var appMemory = 0
    public private(set) var appDisk = 0
    public private(set) var disagreements: [Disagreement] = []

    /// What the replay knows of a key: its last request and whether the model stored it then.
    private struct KeyState: Sendable, Equatable {
        var lastRequest: Int
        /// The model held it after that request (a hit, or a miss it stored).
        var held: Bool
        /// A miss left it out: larger than the whole capacity (too_large).
        var tooLarge: Bool
        /// A two-tier model's memory did not take it (over its entry limit or capacity).
        var memoryRefused = false
    }
    private var keys: [UInt64: KeyState] = [:]
    /// Memory warnings and background events delivered, in order: the request they came
    /// before, which, and whether the model held nothing afterwards.
    private struct Event: Sendable, Equatable {
        var request: Int
        var name: String
        var emptied: Bool
    }
    private var events: [Event] = []

    public init(twoTier: Bool) {
        self.twoTier = twoTier
    }

    /// The app's recorded memory hit ratio over the compared requests; nil when none.
    public var appHitRatio: Double? { compared > 0 ? Double(appMemory) / Double(compared) : nil }

    /// A warning or background event delivered before request `request`; `emptied` when the
    /// model held nothing after it. O(1).
    mutating func delivered(_ name: String, before request: Int, emptied: Bool) {
        events.append(Event(request: request, name: name, emptied: emptied))
    }

    /// A request the model saw but did not count (the warm-up): only remembered. O(1).
    mutating func warmed(_ request: Request, at index: Int) {
        keys[request.id] = KeyState(lastRequest: index, held: true, tooLarge: false)
    }

    /// A counted request: `model` is where the model answered it, `tooLarge` whether a miss
    /// was left out as larger than the capacity, `memoryRefused` whether a two-tier model's
    /// memory did not take it. O(1) amortized (O(events) to find a reason).
    mutating func counted(_ request: Request, at index: Int, model: ModelOutcome, tooLarge: Bool, memoryRefused: Bool = false) {
        let before = keys[request.id]
        keys[request.id] = KeyState(
            lastRequest: index, held: model != .miss || !tooLarge, tooLarge: model == .miss && tooLarge, memoryRefused: memoryRefused)
        guard let app = request.recorded?.source, app != .unknown else { return }
        compared += 1
        if app == .memory { appMemory += 1 }
        if app == .disk { appDisk += 1 }
        if agrees(app: app, model: model) {
            agreeing += 1
            return
        }
        disagreements.append(Disagreement(
            request: index, key: request.keyText, app: app, model: model, reason: reason(app: app, model: model, before: before, at: index)))
    }

    private func agrees(app: RecordedImage.Source, model: ModelOutcome) -> Bool {
        if !twoTier { return (app == .memory) == (model == .memory) }
        switch app {
        case .memory: return model == .memory
        case .disk: return model == .disk
        case .network: return model == .miss
        case .unknown: return true
        }
    }

    /// The reason a disagreement happened, from what the replay saw of the key.
    private func reason(app: RecordedImage.Source, model: ModelOutcome, before: KeyState?, at index: Int) -> String {
        guard let before else {
            return "the app's cache had it but the model had never seen the key: its first request in the replay (the app's cache held it from before the recording)"
        }
        let last = before.lastRequest
        // The latest event between the key's last request and this one.
        let between = events.last { $0.request > last && $0.request <= index }
        if model == .memory || (model == .disk && app == .network) {
            let tier = model == .memory ? (twoTier ? "the model's memory" : "the model") : "the model's disk"
            var text = "\(tier) still held it from request \(last); the app's \(model == .memory ? "memory cache" : "caches") did not"
            if let between { text += " (the model kept it through the \(between.name) at request \(between.request))" }
            return text
        }
        if before.tooLarge { return "never stored: at request \(last) it was larger than the model's whole capacity (too_large)" }
        if before.memoryRefused && app == .memory {
            return "never in the model's memory: at request \(last) its memory tier did not take it (over its entry limit or capacity, memory_refused)"
        }
        let lost = model == .disk ? "the model's memory had dropped it and its disk answered" : "the model no longer held it"
        if let between, between.emptied { return "\(lost): the \(between.name) at request \(between.request) emptied the model's \(twoTier ? "memory" : "cache")" }
        if !before.held { return "\(lost): the model did not keep it at request \(last)" }
        return "\(lost): the model evicted it after its last request at \(last)"
    }
}
