/// What a replay takes from a recording besides its requests (issue 42): its memory
/// warnings (`--memory-warning recorded`), its background events (`--background`), the
/// app's memory cost limit (`--capacity recorded`), and whether the replay is checked
/// against the app's recorded outcomes (`AppAgreement`). `lifecycle` / `configuration` are
/// nil for a trace that is no recording: the options that need one are then refused
/// (exit 2), never silently ignored.
///
/// Complexity: O(events) to apply, O(capacities) for the capacity list.
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

    /// `--capacity` with each `recorded` replaced by the recording's memory cost limit in
    /// bytes, and the rule to say when it is the only capacity; the text unchanged without
    /// `recorded`.
    public static func capacities(_ text: String, configuration: RecordedCacheConfiguration?, isRecording: Bool, trace: String) throws -> (text: String, rule: String?) {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard items.contains(where: { $0.lowercased() == "recorded" }) else { return (text, nil) }
        guard isRecording else {
            throw WorkbenchError("--capacity recorded takes the app's memory cost limit from a recording; \(trace) is not a recording (docs/recording-format.md)")
        }
        guard let limit = configuration?.memoryCostLimit, limit > 0 else {
            throw WorkbenchError("--capacity recorded: \(trace) states no memory_cost_limit above 0 (neither its header's app fields nor a config event); give --capacity in bytes")
        }
        let replaced = items.map { $0.lowercased() == "recorded" ? String(limit) : $0 }
        let rule = items.count == 1 ? "the recording's memory_cost_limit, \(limit) bytes (--capacity recorded)" : nil
        return (replaced.joined(separator: ","), rule)
    }
}
