import WorkbenchCore
import WorkbenchMetrics
/// What an app recording holds beyond its requests, read once by `AppRecordingReader.facts`:
/// the lifecycle events placed among the replayed requests, the app's cache configuration,
/// and the counts `bench stats` prints.
public struct AppRecordingFacts: Sendable {
    /// Memory warnings, backgrounds and foregrounds in order; `requestsBefore` counts the
    /// requests of the stream that was read (image events, or http events with `--mode http`).
    public var lifecycle: [RecordedLifecycleEvent]
    /// The configuration in force when the recording started: the header's `app` fields,
    /// else the first `config` event's (nil when neither says anything).
    public var configuration: RecordedCacheConfiguration?
    public var summary: AppRecordingSummary

    public init(lifecycle: [RecordedLifecycleEvent], configuration: RecordedCacheConfiguration?, summary: AppRecordingSummary) {
        self.lifecycle = lifecycle
        self.configuration = configuration
        self.summary = summary
    }
}

/// The counts of one app recording, whatever stream is replayed. Every number is a count
/// of lines or events as read (lines skipped with --skip-bad-rows are in `skippedLines`
/// only).
public struct AppRecordingSummary: Sendable, Equatable {
    /// The header's session id; parts in the order their headers were read (0, 1, … when
    /// rotated files were concatenated).
    public var session: String?
    public var parts: [Int] = []
    public var recorder: String?
    /// The header's `started` (wall-clock time, as written).
    public var started: String?
    /// What the app calls itself (header `app.name`).
    public var appName: String?
    /// `privacy.query` ("kept" | "dropped") and `privacy.keys` ("plain" | "hashed"), as written.
    public var privacyQuery: String?
    public var privacyKeys: String?
    /// Events read, by kind (image, http, lifecycle, config, dropped); unknown kinds are
    /// in `unknownKinds` instead.
    public var eventsByKind: [String: Int] = [:]
    /// Image events by where the app served them from.
    public var imageSources: [RecordedImage.Source: Int] = [:]
    /// Image events' encoded bytes (after the missing-size rule below), summed.
    public var imageBytes = 0
    /// http events by `source` ("network", "cache" = URLCache answered, "unknown" or absent).
    public var httpSources: [String: Int] = [:]
    /// http events that failed (status 0).
    public var failedHTTP = 0
    /// Lifecycle events by kind.
    public var lifecycle: [RecordedLifecycleEvent.Kind: Int] = [:]
    /// `config` events after the first configuration stated (a limit changed mid-recording).
    public var configurationChanges = 0
    /// Events the recorder dropped (its buffer was full): the sum of the `dropped` lines' counts.
    public var droppedEvents = 0
    /// The last line was torn (no final line feed, or not JSON): dropped, counted here.
    public var tornLastLine = false
    /// Kinds this reader does not know (a newer recorder's), with how many lines each; a
    /// lifecycle event of an unknown name counts as `lifecycle:NAME`. Skipped.
    public var unknownKinds: [String: Int] = [:]
    /// Malformed lines passed over with --skip-bad-rows.
    public var skippedLines = 0
    /// Image events without `encoded_bytes`, and how many of them took the size of an
    /// earlier event (`AppRecordingReader`'s rule); the others have size 0.
    public var imagesWithoutEncodedBytes = 0
    public var encodedBytesFromEarlierEvent = 0
    /// Image events without width × height, and without a recorded cost (neither
    /// `decoded_cost` nor `bytes_per_row` with a height): these price by another rule.
    public var imagesWithoutDimensions = 0
    public var imagesWithoutRecordedCost = 0
    /// Seconds from the first event to the last.
    public var durationSeconds = 0.0

    public init() {}

    public var imageEvents: Int { eventsByKind["image", default: 0] }
}

extension AppRecordingSummary {
    /// What a replay must say about how the recording was read: the torn last line, unknown
    /// kinds skipped, events the recorder dropped, and image sizes resting on the
    /// missing-size rule (`AppRecordingReader`), with their counts.
    public var readingNotes: [String] {
        var notes: [String] = []
        if tornLastLine { notes.append("the recording's last line was torn (the app stopped mid-write): dropped") }
        if !unknownKinds.isEmpty {
            let total = unknownKinds.values.reduce(0, +)
            let kinds = unknownKinds.sorted { $0.key < $1.key }.map { "\(ErrorText.quote($0.key, limit: 30)) \($0.value)" }.joined(separator: ", ")
            notes.append("\(total) event\(total == 1 ? "" : "s") of kinds this workbench does not know skipped (\(kinds)): a newer recorder wrote them")
        }
        if droppedEvents > 0 {
            notes.append("the recorder dropped \(droppedEvents) event\(droppedEvents == 1 ? "" : "s") (its buffer was full): they are not in the replay")
        }
        if imagesWithoutEncodedBytes > 0 {
            let zero = imagesWithoutEncodedBytes - encodedBytesFromEarlierEvent
            notes.append("\(imagesWithoutEncodedBytes) of \(imageEvents) image events have no encoded_bytes: \(encodedBytesFromEarlierEvent) took the size of an earlier event of the same key (or the body of an earlier http event for its URL), \(zero) count as 0 bytes")
        }
        return notes
    }
}
