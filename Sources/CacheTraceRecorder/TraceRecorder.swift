import Dispatch
import Foundation

/// Records what an app's image pipeline and URLSession did, for the workbench to replay
/// (`bench run --trace recording-0.jsonl`; docs/recorder.md, docs/recording-format.md).
///
/// The app's thread only stamps the time and appends the event to a bounded buffer under a
/// lock (O(1), no I/O, no encoding); a serial queue encodes and writes it. When the buffer
/// is full the event is dropped and counted — the app is never blocked — and the count is
/// written as a `dropped` line. Thread-safe: call it from any thread. Call `close()` (or
/// `flush()`) before it goes away: events still in the buffer are not written otherwise.
public final class TraceRecorder: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// The folder the app gives; the recorder creates `<name>-<part>.jsonl` in it.
        public var folder: URL
        public var name: String
        /// Events held before writing; beyond it events are dropped and counted.
        public var bufferCapacity: Int
        /// The writer wakes when this many events are waiting, and every `flushInterval`.
        public var batchSize: Int
        public var flushInterval: DispatchTimeInterval
        /// Rotation: a part holds at most this many bytes; at most `maxFiles` parts are kept.
        public var maxFileBytes: Int
        public var maxFiles: Int
        public var privacy: RecorderPrivacy
        /// The app's image cache configuration, written in the header (a later part's header
        /// carries the latest one `cacheConfiguration(_:)` recorded).
        public var app: CacheConfiguration?

        public init(
            folder: URL, name: String = "recording", bufferCapacity: Int = 4096, batchSize: Int = 256,
            flushInterval: DispatchTimeInterval = .seconds(1), maxFileBytes: Int = 8 << 20, maxFiles: Int = 8,
            privacy: RecorderPrivacy = RecorderPrivacy(), app: CacheConfiguration? = nil
        ) {
            self.folder = folder
            self.name = name
            self.bufferCapacity = bufferCapacity
            self.batchSize = batchSize
            self.flushInterval = flushInterval
            self.maxFileBytes = maxFileBytes
            self.maxFiles = maxFiles
            self.privacy = privacy
            self.app = app
        }
    }

    public static let version = "CacheTraceRecorder 1.0"

    public let configuration: Configuration
    /// The session's identifier, the same in every part's header.
    public let session: UUID
    private let origin: UInt64
    private let lock = NSLock()
    private var buffer: [(t: UInt64, event: RecorderEvent)]
    private var droppedSinceLastLine = 0
    private var droppedTotal = 0
    private var wakeScheduled = false
    private var closed = false
    private let writerQueue = DispatchQueue(label: "CacheTraceRecorder.writer")
    private let timer: DispatchSourceTimer
    /// Touched on `writerQueue` only.
    private var files: RotatingRecordingFiles?
    private let latestApp: LatestConfiguration
    private var writeFailure: RecorderError?

    /// Creates the recording's first part (exclusively) and starts the writer.
    /// Throws `RecorderError` when the folder cannot be opened or the file exists.
    public init(configuration: Configuration) throws {
        guard configuration.bufferCapacity > 0, configuration.batchSize > 0 else {
            throw RecorderError.invalidConfiguration("bufferCapacity and batchSize must be positive")
        }
        self.configuration = configuration
        session = UUID()
        origin = DispatchTime.now().uptimeNanoseconds
        buffer = []
        buffer.reserveCapacity(configuration.bufferCapacity)
        let started = Date().formatted(.iso8601)  // FoundationEssentials: no ICU formatter
        let latestApp = LatestConfiguration(configuration.app)
        self.latestApp = latestApp
        let header = Self.headerLine(session: session, started: started, configuration: configuration, app: latestApp)
        files = try RotatingRecordingFiles(
            folder: configuration.folder.path, name: configuration.name, maxFileBytes: configuration.maxFileBytes,
            maxFiles: configuration.maxFiles, header: header)
        timer = DispatchSource.makeTimerSource(queue: writerQueue)
        timer.schedule(deadline: .now() + configuration.flushInterval, repeating: configuration.flushInterval)
        timer.setEventHandler { [weak self] in self?.drain() }
        timer.resume()
    }

    deinit {
        timer.cancel()
    }

    // MARK: What the app calls

    /// One image lookup at the app's image pipeline: call it where the app asks its cache
    /// for an image, once the source is known. `key` is the cache key (or URL); `url` the
    /// URL when the key is not it. Dimensions are decoded pixels; `decodedCost` the bytes the
    /// app's memory cache was charged. O(1) on the caller's thread.
    public func image(
        key: String, source: ImageSource, encodedBytes: Int? = nil, width: Int? = nil, height: Int? = nil,
        bytesPerRow: Int? = nil, decodedCost: Int? = nil, displaySize: CGSize? = nil, scale: Double? = nil,
        contentType: String? = nil, url: String? = nil
    ) {
        enqueue(.image(ImageLookup(
            key: key, source: source, encodedBytes: encodedBytes, width: width, height: height, bytesPerRow: bytesPerRow,
            decodedCost: decodedCost, displayWidth: displaySize.map { Double($0.width) },
            displayHeight: displaySize.map { Double($0.height) }, scale: scale, contentType: contentType, url: url)))
    }

    /// A memory warning, or the app entering the background or foreground.
    public func lifecycle(_ event: LifecycleEvent) {
        enqueue(.lifecycle(event))
    }

    /// The app's image cache configuration changed (a new limit, another library).
    public func cacheConfiguration(_ configuration: CacheConfiguration) {
        enqueue(.configuration(configuration))
    }

    /// Events dropped so far because the buffer was full.
    public var droppedEvents: Int {
        lock.withLock { droppedTotal }
    }

    /// The error that stopped writing, if any (a full disk, a part that already existed).
    public var failure: RecorderError? {
        writerQueue.sync { writeFailure }
    }

    /// Writes every event recorded so far and returns once they are in the file.
    public func flush() {
        writerQueue.sync { drainAndWrite() }
    }

    /// Flushes and closes the file; later events are ignored.
    public func close() {
        lock.withLock { closed = true }
        timer.cancel()
        writerQueue.sync {
            drainAndWrite()
            do { try files?.close() } catch let error as RecorderError { writeFailure = writeFailure ?? error } catch {}
            files = nil
        }
    }

    /// Nanoseconds since the recorder started, on the monotonic clock.
    var now: UInt64 { DispatchTime.now().uptimeNanoseconds &- origin }

    // MARK: Buffer and writer

    /// The time is taken under the lock so buffered events are in time order. O(1).
    func enqueue(_ event: RecorderEvent) {
        let wake: Bool = lock.withLock {
            guard !closed else { return false }
            guard buffer.count < configuration.bufferCapacity else {
                droppedSinceLastLine += 1
                droppedTotal += 1
                return false
            }
            buffer.append((now, event))
            guard buffer.count >= configuration.batchSize, !wakeScheduled else { return false }
            wakeScheduled = true
            return true
        }
        if wake { writerQueue.async { [weak self] in self?.drain() } }
    }

    private func drain() {
        drainAndWrite()
    }

    /// Takes the buffer under the lock, encodes and writes outside it. On `writerQueue`.
    private func drainAndWrite() {
        let (events, dropped): ([(t: UInt64, event: RecorderEvent)], Int) = lock.withLock {
            defer {
                buffer.removeAll(keepingCapacity: true)
                droppedSinceLastLine = 0
                wakeScheduled = false
            }
            return (buffer, droppedSinceLastLine)
        }
        guard let files, writeFailure == nil else { return }
        do {
            for (t, event) in events {
                if case .configuration(let app) = event { latestApp.value = app }
                try files.append(event.line(at: t, privacy: configuration.privacy))
            }
            if dropped > 0 { try files.append(RecorderEvent.droppedLine(at: now, count: dropped)) }
            try files.writePending()
        } catch let error as RecorderError {
            writeFailure = error
        } catch {}
    }

    private static func headerLine(
        session: UUID, started: String, configuration: Configuration, app latest: LatestConfiguration
    ) -> (Int) -> [UInt8] {
        { part in
            var header = JSONLineBuilder()
            header.field("format", "cache-trace-recording")
            header.field("version", 1)
            header.field("session", session.uuidString)
            header.field("part", part)
            header.field("recorder", version)
            header.field("clock", "monotonic")
            header.field("time_unit", "ns")
            header.field("started", started)
            if let app = latest.value {
                var object = JSONLineBuilder()
                app.appendFields(to: &object)
                header.field("app", object: object)
            }
            header.field("privacy", object: configuration.privacy.summary)
            return header.line
        }
    }
}

/// The configuration a new part's header states: the app's latest. Read and written on the
/// writer's queue only (and once in `init`, before the queue has work).
private final class LatestConfiguration: @unchecked Sendable {
    var value: CacheConfiguration?
    init(_ value: CacheConfiguration?) { self.value = value }
}
