/// What an app's own image pipeline recorded about one image request, in a recording made
/// with the CacheTraceRecorder library (docs/recording-format.md): where the app served it
/// from and what its memory cache was charged. nil on requests read from any other format.
/// One reference on `Request`, so requests without it stay small.
public final class RecordedImage: Sendable, Equatable {
    /// Where the app's pipeline found the image: its memory cache, its disk cache (or
    /// URLCache), the network; `unknown` when the recording does not say (a HAR converted
    /// to a recording).
    public enum Source: String, Sendable, CaseIterable {
        case memory, disk, network, unknown
    }

    public let source: Source
    /// Bytes per row of the decoded bitmap, when the app knew it (padding included).
    public let bytesPerRow: Int?
    /// The decoded byte cost the app's cache was charged, when the app said so.
    public let decodedCost: Int?
    /// The view's size in points and the screen's scale, when known.
    public let displayWidth: Double?
    public let displayHeight: Double?
    public let scale: Double?
    /// The image's media type (`image/png`), when known.
    public let contentType: String?

    public init(
        source: Source, bytesPerRow: Int? = nil, decodedCost: Int? = nil, displayWidth: Double? = nil,
        displayHeight: Double? = nil, scale: Double? = nil, contentType: String? = nil
    ) {
        self.source = source
        self.bytesPerRow = bytesPerRow
        self.decodedCost = decodedCost
        self.displayWidth = displayWidth
        self.displayHeight = displayHeight
        self.scale = scale
        self.contentType = contentType
    }

    /// The decoded cost the recording states for a request `height` pixels tall: the cost
    /// the app's cache was charged when recorded, else bytes per row × height (nil when
    /// that product overflows or either is missing). O(1).
    public func recordedCost(height: UInt32) -> Int? {
        if let decodedCost { return decodedCost }
        guard let bytesPerRow, height > 0 else { return nil }
        let (product, overflow) = bytesPerRow.multipliedReportingOverflow(by: Int(height))
        return overflow ? nil : product
    }

    public static func == (lhs: RecordedImage, rhs: RecordedImage) -> Bool {
        lhs.source == rhs.source && lhs.bytesPerRow == rhs.bytesPerRow && lhs.decodedCost == rhs.decodedCost
            && lhs.displayWidth == rhs.displayWidth && lhs.displayHeight == rhs.displayHeight && lhs.scale == rhs.scale
            && lhs.contentType == rhs.contentType
    }
}

/// An app lifecycle event a recording carries (the app forwards UIApplication's
/// notifications to the recorder), placed before the image request that followed it.
public struct RecordedLifecycleEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// UIApplication.didReceiveMemoryWarningNotification.
        case memoryWarning = "memory_warning"
        /// UIApplication.didEnterBackgroundNotification.
        case background
        /// UIApplication.willEnterForegroundNotification.
        case foreground
    }

    public var kind: Kind
    /// Seconds on the trace's clock (the same origin as the requests' times).
    public var time: Double
    /// How many image requests came before it: it is delivered before request
    /// `requestsBefore` (0-based) of the replay.
    public var requestsBefore: Int

    public init(kind: Kind, time: Double, requestsBefore: Int) {
        self.kind = kind
        self.time = time
        self.requestsBefore = requestsBefore
    }
}

/// The app's image cache configuration a recording states (header, or a later `config`
/// event): the limits a replay "at the app's configured limits" uses.
public struct RecordedCacheConfiguration: Sendable, Equatable {
    /// What the app calls its cache (`Kingfisher`, `SDWebImage`, `own LRU`…), free text.
    public var imageCache: String?
    /// The memory cache's cost limit in bytes (NSCache's totalCostLimit and the like).
    public var memoryCostLimit: Int?
    /// The memory cache's count limit, when it has one.
    public var memoryCountLimit: Int?
    /// The disk cache's byte limit, when it has one.
    public var diskCostLimit: Int?
    /// How the app charges a decoded image (`bytes_per_row*height`, free text).
    public var costRule: String?

    public init(imageCache: String? = nil, memoryCostLimit: Int? = nil, memoryCountLimit: Int? = nil, diskCostLimit: Int? = nil, costRule: String? = nil) {
        self.imageCache = imageCache
        self.memoryCostLimit = memoryCostLimit
        self.memoryCountLimit = memoryCountLimit
        self.diskCostLimit = diskCostLimit
        self.costRule = costRule
    }
}
