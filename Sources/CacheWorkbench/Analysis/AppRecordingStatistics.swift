import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// What `bench stats` prints about an app recording besides the replayed stream's figures:
/// events by kind, the app's own split of its image requests (memory / disk / network /
/// unknown: the app's hit ratio is its memory share), lifecycle, what the recorder dropped,
/// the torn line, privacy and the app's cache configuration. Text lines and JSON members
/// from the same counts. O(kinds).
extension AppRecordingFacts {
    /// `part` of `whole` as `12.50%`; `–` when there is no whole.
    private static func percent(_ part: Int, _ whole: Int) -> String {
        whole == 0 ? "–" : String(format2: Double(part) / Double(whole) * 100) + "%"
    }

    private static let kindOrder = ["image", "http", "lifecycle", "config", "dropped"]

    public var statisticsLines: [String] {
        let s = summary
        var lines: [String] = []
        var about = ["session \(s.session.map { ErrorText.quote($0, limit: 60) } ?? "unnamed")"]
        if s.parts.count > 1 { about.append("parts " + s.parts.map(String.init).joined(separator: ", ")) }
        if let recorder = s.recorder { about.append(ErrorText.quote(recorder, limit: 60)) }
        if let started = s.started { about.append("started \(ErrorText.quote(started, limit: 40))") }
        if let app = s.appName { about.append("app \(ErrorText.quote(app, limit: 60))") }
        lines.append("recording           " + about.joined(separator: "; "))
        var kinds = Self.kindOrder.map { "\($0) \(s.eventsByKind[$0, default: 0])" }.joined(separator: ", ")
        if !s.unknownKinds.isEmpty {
            kinds += "; skipped, of kinds not known here: " + s.unknownKinds.sorted { $0.key < $1.key }.map { "\(ErrorText.quote($0.key, limit: 30)) \($0.value)" }.joined(separator: ", ")
        }
        lines.append("events              " + kinds)
        let images = s.imageEvents
        let split = RecordedImage.Source.allCases.map { "\($0.rawValue) \(s.imageSources[$0, default: 0]) (\(Self.percent(s.imageSources[$0, default: 0], images)))" }
        lines.append("app's outcome       " + (images == 0 ? "no image requests" : split.joined(separator: ", ") + " of \(images) image requests (the app's memory hit ratio is its memory share)"))
        lines.append("lifecycle           memory warnings \(s.lifecycle[.memoryWarning, default: 0]), backgrounds \(s.lifecycle[.background, default: 0]), foregrounds \(s.lifecycle[.foreground, default: 0])")
        let transactions = s.eventsByKind["http", default: 0]
        if transactions > 0 {
            let sources = s.httpSources.sorted { $0.key < $1.key }.map { "\(ErrorText.quote($0.key, limit: 20)) \($0.value)" }.joined(separator: ", ")
            lines.append("URLSession log      \(transactions) transactions by source: \(sources) (cache: URLCache answered without the network); failed \(s.failedHTTP)")
        }
        lines.append("dropped events      \(s.droppedEvents)" + (s.droppedEvents > 0 ? " (the recorder's buffer was full: the recording misses them)" : ""))
        lines.append("torn last line      " + (s.tornLastLine ? "yes (the app stopped mid-write: the line was dropped)" : "no"))
        lines.append("privacy             query \(s.privacyQuery.map { ErrorText.quote($0, limit: 20) } ?? "not stated"), keys \(s.privacyKeys.map { ErrorText.quote($0, limit: 20) } ?? "not stated")"
            + (s.privacyKeys == "hashed" ? " (equal keys stay equal, so hits replay exactly; URL-based facts such as sizes in URLs are lost)" : ""))
        lines.append("app configuration   " + configurationText)
        if s.imagesWithoutEncodedBytes > 0 || s.imagesWithoutDimensions > 0 || s.imagesWithoutRecordedCost > 0 {
            lines.append("image sizes         \(s.imagesWithoutEncodedBytes) without encoded_bytes (\(s.encodedBytesFromEarlierEvent) sized from an earlier event, \(s.imagesWithoutEncodedBytes - s.encodedBytesFromEarlierEvent) as 0 bytes); \(s.imagesWithoutDimensions) without width × height; \(s.imagesWithoutRecordedCost) without a recorded cost (priced by the next pixel rule)")
        }
        return lines
    }

    private var configurationText: String {
        guard let c = configuration else { return "not stated" }
        func bytes(_ value: Int?) -> String { value.map { "\($0) (\(ByteCount.format($0)))" } ?? "none stated" }
        var text = "image cache \(c.imageCache.map { ErrorText.quote($0, limit: 40) } ?? "not named"); memory cost limit \(bytes(c.memoryCostLimit)); "
            + "memory count limit \(c.memoryCountLimit.map(String.init) ?? "none stated"); disk limit \(bytes(c.diskCostLimit)); cost rule \(c.costRule.map { ErrorText.quote($0, limit: 40) } ?? "not stated")"
        if summary.configurationChanges > 0 { text += "; changed \(summary.configurationChanges) time\(summary.configurationChanges == 1 ? "" : "s") later (config events)" }
        return text
    }

    /// The `recording` member of `bench stats --json`: the same counts as numbers.
    public var statisticsJSON: String {
        let s = summary
        func string(_ text: String?) -> String { text.map(JSONReport.string) ?? "null" }
        func number(_ value: Int?) -> String { value.map(String.init) ?? "null" }
        func object(_ pairs: [(String, Int)]) -> String { "{" + pairs.map { "\(JSONReport.string($0.0)): \($0.1)" }.joined(separator: ", ") + "}" }
        let c = configuration
        let members = [
            "\"session\": \(string(s.session))", "\"parts\": [" + s.parts.map(String.init).joined(separator: ", ") + "]",
            "\"recorder\": \(string(s.recorder))", "\"started\": \(string(s.started))", "\"app\": \(string(s.appName))",
            "\"events_by_kind\": " + object(Self.kindOrder.map { ($0, s.eventsByKind[$0, default: 0]) }),
            "\"unknown_kinds\": " + object(s.unknownKinds.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }),
            "\"image_sources\": " + object(RecordedImage.Source.allCases.map { ($0.rawValue, s.imageSources[$0, default: 0]) }),
            "\"image_requests\": \(s.imageEvents)",
            "\"http_sources\": " + object(s.httpSources.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }),
            "\"failed_http\": \(s.failedHTTP)",
            "\"lifecycle\": " + object(RecordedLifecycleEvent.Kind.allCases.map { ($0.rawValue, s.lifecycle[$0, default: 0]) }),
            "\"dropped_events\": \(s.droppedEvents)", "\"torn_last_line\": \(s.tornLastLine)", "\"skipped_lines\": \(s.skippedLines)",
            "\"privacy\": {\"query\": \(string(s.privacyQuery)), \"keys\": \(string(s.privacyKeys))}",
            "\"configuration\": " + (c.map { c in
                "{\"image_cache\": \(string(c.imageCache)), \"memory_cost_limit\": \(number(c.memoryCostLimit)), \"memory_count_limit\": \(number(c.memoryCountLimit)), \"disk_cost_limit\": \(number(c.diskCostLimit)), \"cost_rule\": \(string(c.costRule))}"
            } ?? "null"),
            "\"configuration_changes\": \(s.configurationChanges)",
            "\"images_without_encoded_bytes\": \(s.imagesWithoutEncodedBytes)", "\"encoded_bytes_from_earlier_event\": \(s.encodedBytesFromEarlierEvent)",
            "\"images_without_dimensions\": \(s.imagesWithoutDimensions)", "\"images_without_recorded_cost\": \(s.imagesWithoutRecordedCost)",
        ]
        return "{" + members.joined(separator: ", ") + "}"
    }
}
