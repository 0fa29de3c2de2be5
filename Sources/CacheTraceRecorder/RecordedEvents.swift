import Foundation

// The events a recording holds (docs/recording-format.md). The app's thread only fills
// these values in; turning them into JSON lines happens on the writer's queue.

/// Where the app's image pipeline found an image.
public enum ImageSource: String, Sendable {
    case memory, disk, network, unknown
}

/// Where a URLSession transaction's response came from: "cache" when URLCache answered
/// without the network.
public enum HTTPSource: String, Sendable {
    case network, cache, unknown
}

/// An app lifecycle event the app forwards (from UIApplication's notifications).
public enum LifecycleEvent: String, Sendable {
    /// UIApplication.didReceiveMemoryWarningNotification.
    case memoryWarning = "memory_warning"
    /// UIApplication.didEnterBackgroundNotification.
    case background
    /// UIApplication.willEnterForegroundNotification.
    case foreground
}

/// The app's image cache configuration, as the app states it (every field optional).
public struct CacheConfiguration: Sendable, Equatable {
    public var name: String?
    /// Which image cache the app uses ("Kingfisher", "SDWebImage", "Nuke", "own LRU").
    public var imageCache: String?
    public var memoryCostLimit: Int?
    public var memoryCountLimit: Int?
    public var diskCostLimit: Int?
    /// How the app's memory cache charges an image ("bytes_per_row*height").
    public var costRule: String?

    public init(
        name: String? = nil, imageCache: String? = nil, memoryCostLimit: Int? = nil, memoryCountLimit: Int? = nil,
        diskCostLimit: Int? = nil, costRule: String? = nil
    ) {
        self.name = name
        self.imageCache = imageCache
        self.memoryCostLimit = memoryCostLimit
        self.memoryCountLimit = memoryCountLimit
        self.diskCostLimit = diskCostLimit
        self.costRule = costRule
    }

    /// Appends the fields present (absent ones left out): the header's "app" object and a
    /// "config" line hold the same fields.
    func appendFields(to object: inout JSONLineBuilder) {
        object.field("name", name)
        object.field("image_cache", imageCache)
        object.field("memory_cost_limit", memoryCostLimit)
        object.field("memory_count_limit", memoryCountLimit)
        object.field("disk_cost_limit", diskCostLimit)
        object.field("cost_rule", costRule)
    }
}

/// One image lookup as the app reported it.
struct ImageLookup {
    var key: String
    var source: ImageSource
    var encodedBytes: Int?
    var width: Int?
    var height: Int?
    var bytesPerRow: Int?
    var decodedCost: Int?
    var displayWidth: Double?
    var displayHeight: Double?
    var scale: Double?
    var contentType: String?
    var url: String?
}

/// One URLSession transaction as the network recorder saw it.
struct HTTPTransaction {
    var method: String
    var url: String
    var status: Int
    var requestHeaders: [(String, String)]
    var responseHeaders: [(String, String)]
    var bodyBytes: Int
    var start: UInt64
    var source: HTTPSource
    var error: String?
}

/// An event in the recorder's buffer, stamped with nanoseconds since the recorder started.
enum RecorderEvent {
    case image(ImageLookup)
    case http(HTTPTransaction)
    case lifecycle(LifecycleEvent)
    case configuration(CacheConfiguration)

    /// The event's JSON line, privacy applied. O(size of its fields).
    func line(at t: UInt64, privacy: RecorderPrivacy) -> [UInt8] {
        var object = JSONLineBuilder()
        object.field("t", t)
        switch self {
        case .image(let image):
            object.field("kind", "image")
            object.field("key", privacy.text(image.key))
            object.field("source", image.source.rawValue)
            object.field("encoded_bytes", image.encodedBytes)
            object.field("width", image.width)
            object.field("height", image.height)
            object.field("bytes_per_row", image.bytesPerRow)
            object.field("decoded_cost", image.decodedCost)
            object.field("display_width", image.displayWidth)
            object.field("display_height", image.displayHeight)
            object.field("scale", image.scale)
            object.field("content_type", image.contentType)
            object.field("url", image.url.map(privacy.text))
        case .http(let http):
            object.field("kind", "http")
            object.field("method", http.method)
            object.field("url", privacy.text(http.url))
            object.field("status", http.status)
            object.field("request_headers", object: privacy.headers(http.requestHeaders))
            object.field("response_headers", object: privacy.headers(http.responseHeaders))
            object.field("body_bytes", http.bodyBytes)
            object.field("start", http.start)
            object.field("end", t)
            object.field("source", http.source.rawValue)
            object.field("error", http.error)
        case .lifecycle(let event):
            object.field("kind", "lifecycle")
            object.field("event", event.rawValue)
        case .configuration(let configuration):
            object.field("kind", "config")
            configuration.appendFields(to: &object)
        }
        return object.line
    }

    /// A "dropped" line: `count` events lost to a full buffer since the previous one.
    static func droppedLine(at t: UInt64, count: Int) -> [UInt8] {
        var object = JSONLineBuilder()
        object.field("t", t)
        object.field("kind", "dropped")
        object.field("count", count)
        return object.line
    }
}
