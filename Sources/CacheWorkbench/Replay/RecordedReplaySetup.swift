import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// What a replay takes from a recording besides its requests (issue 42): its memory
/// warnings (`--memory-warning recorded`), its background events (`--background`) and whether the replay is checked
/// against the app's recorded outcomes (`AppAgreement`). `lifecycle` / `configuration` are
/// nil for a trace that is no recording: the options that need one are then refused
/// (exit 2), never silently ignored.
///
/// `--capacity recorded` is `RecordedCapacityText`. Complexity: O(events).
public enum RecordedReplaySetup {
    /// Sets `options.lifecycle`, `replaysBackgrounds` and `comparesWithApp` from the
    /// recording's events (nil: not a recording). `background`: `--background`, on or off
    /// (nil: on when the recording has background events).
    public static func apply(lifecycle: [RecordedLifecycleEvent]?, background: String?, trace: String, to options: inout ReplayOptions) throws {
        if options.memoryWarnings == .recorded, lifecycle == nil {
            throw WorkbenchError("--memory-warning recorded delivers a recording's own memory warnings; \(trace) is not a recording (docs/recording-format.md)")
        }
        switch background?.lowercased() {
        case nil, "on":
            if background != nil, lifecycle == nil {
                throw WorkbenchError("--background on replays a recording's background events; \(trace) is not a recording (docs/recording-format.md)")
            }
            options.replaysBackgrounds = lifecycle?.contains { $0.kind == .background } ?? false
        case "off":
            options.replaysBackgrounds = false
        default:
            throw WorkbenchError("--background must be on or off, not \(ErrorText.quote(background ?? ""))")
        }
        options.lifecycle = lifecycle ?? []
        // The app's outcomes are image lookups: compared in demand-fill, where a request is one.
        options.comparesWithApp = lifecycle != nil && options.http == nil && !options.operations
    }
}
