import WorkbenchCore
import WorkbenchMetrics
import Foundation

/// One line of an app recording (docs/recording-format.md) as JSON gives it: the header's
/// fields and every event kind's, all optional here (which are required depends on the
/// kind; `AppRecordingEvent` checks). Unknown fields are ignored, as the format asks. A
/// field of the wrong JSON type fails the decode naming the field; whole numbers go
/// through `RecordingWholeNumber`, so `1.5` or `1e30` is named too.
struct AppRecordingLine: Decodable {
    // The header.
    var format: String?
    var version: RecordingWholeNumber?
    var session: String?
    var part: RecordingWholeNumber?
    var recorder: String?
    var started: String?
    var app: AppFields?
    var privacy: Privacy?
    // Every event.
    var t: RecordingWholeNumber?
    var kind: String?
    // image
    var key: String?
    var source: String?
    var encodedBytes: RecordingWholeNumber?
    var width: RecordingWholeNumber?
    var height: RecordingWholeNumber?
    var bytesPerRow: RecordingWholeNumber?
    var decodedCost: RecordingWholeNumber?
    var displayWidth: Double?
    var displayHeight: Double?
    var scale: Double?
    var contentType: String?
    var url: String?
    // http (url and source above)
    var method: String?
    var status: RecordingWholeNumber?
    var requestHeaders: [String: String]?
    var responseHeaders: [String: String]?
    var bodyBytes: RecordingWholeNumber?
    var start: RecordingWholeNumber?
    var end: RecordingWholeNumber?
    var error: String?
    // lifecycle
    var event: String?
    // dropped
    var count: RecordingWholeNumber?
    /// A `config` event's fields: the header's `app` fields at the top level of the line
    /// (or, equally accepted, inside an `app` object).
    var configFields: AppFields?

    /// The header's `app` object, and a `config` event's fields.
    struct AppFields: Decodable, Equatable {
        var name: String?
        var imageCache: String?
        var memoryCostLimit: RecordingWholeNumber?
        var memoryCountLimit: RecordingWholeNumber?
        var diskCostLimit: RecordingWholeNumber?
        var costRule: String?

        enum CodingKeys: String, CodingKey {
            case name, imageCache = "image_cache", memoryCostLimit = "memory_cost_limit"
            case memoryCountLimit = "memory_count_limit", diskCostLimit = "disk_cost_limit", costRule = "cost_rule"
        }

        var isEmpty: Bool { self == AppFields() }

        var configuration: RecordedCacheConfiguration {
            RecordedCacheConfiguration(
                imageCache: imageCache, memoryCostLimit: memoryCostLimit?.value, memoryCountLimit: memoryCountLimit?.value,
                diskCostLimit: diskCostLimit?.value, costRule: costRule)
        }
    }

    struct Privacy: Decodable {
        var query: String?
        var keys: String?
    }

    enum CodingKeys: String, CodingKey {
        case format, version, session, part, recorder, started, app, privacy, t, kind, key, source
        case encodedBytes = "encoded_bytes", width, height, bytesPerRow = "bytes_per_row", decodedCost = "decoded_cost"
        case displayWidth = "display_width", displayHeight = "display_height", scale, contentType = "content_type", url
        case method, status, requestHeaders = "request_headers", responseHeaders = "response_headers"
        case bodyBytes = "body_bytes", start, end, error, event, count
    }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        format = try c.decodeIfPresent(String.self, forKey: .format)
        version = try c.decodeIfPresent(RecordingWholeNumber.self, forKey: .version)
        session = try c.decodeIfPresent(String.self, forKey: .session)
        part = try c.decodeIfPresent(RecordingWholeNumber.self, forKey: .part)
        recorder = try c.decodeIfPresent(String.self, forKey: .recorder)
        started = try c.decodeIfPresent(String.self, forKey: .started)
        app = try c.decodeIfPresent(AppFields.self, forKey: .app)
        privacy = try c.decodeIfPresent(Privacy.self, forKey: .privacy)
        t = try c.decodeIfPresent(RecordingWholeNumber.self, forKey: .t)
        kind = try c.decodeIfPresent(String.self, forKey: .kind)
        key = try c.decodeIfPresent(String.self, forKey: .key)
        source = try c.decodeIfPresent(String.self, forKey: .source)
        encodedBytes = try c.decodeIfPresent(RecordingWholeNumber.self, forKey: .encodedBytes)
        width = try c.decodeIfPresent(RecordingWholeNumber.self, forKey: .width)
        height = try c.decodeIfPresent(RecordingWholeNumber.self, forKey: .height)
        bytesPerRow = try c.decodeIfPresent(RecordingWholeNumber.self, forKey: .bytesPerRow)
        decodedCost = try c.decodeIfPresent(RecordingWholeNumber.self, forKey: .decodedCost)
        displayWidth = try c.decodeIfPresent(Double.self, forKey: .displayWidth)
        displayHeight = try c.decodeIfPresent(Double.self, forKey: .displayHeight)
        scale = try c.decodeIfPresent(Double.self, forKey: .scale)
        contentType = try c.decodeIfPresent(String.self, forKey: .contentType)
        url = try c.decodeIfPresent(String.self, forKey: .url)
        method = try c.decodeIfPresent(String.self, forKey: .method)
        status = try c.decodeIfPresent(RecordingWholeNumber.self, forKey: .status)
        requestHeaders = try c.decodeIfPresent([String: String].self, forKey: .requestHeaders)
        responseHeaders = try c.decodeIfPresent([String: String].self, forKey: .responseHeaders)
        bodyBytes = try c.decodeIfPresent(RecordingWholeNumber.self, forKey: .bodyBytes)
        start = try c.decodeIfPresent(RecordingWholeNumber.self, forKey: .start)
        end = try c.decodeIfPresent(RecordingWholeNumber.self, forKey: .end)
        error = try c.decodeIfPresent(String.self, forKey: .error)
        event = try c.decodeIfPresent(String.self, forKey: .event)
        count = try c.decodeIfPresent(RecordingWholeNumber.self, forKey: .count)
        if kind == "config" { configFields = try app ?? AppFields(from: decoder) }
    }

    /// The line decoded, or why not: `malformed` when the text is not one JSON object at
    /// all (what a torn last line is), `invalid` when it is JSON but a field is wrong.
    static func decode(_ data: Data) -> Result<AppRecordingLine, Failure> {
        do {
            return .success(try JSONDecoder().decode(AppRecordingLine.self, from: data))
        } catch let error as DecodingError {
            // JSONDecoder reports some numbers it cannot hold as corrupt data too: only
            // text JSONSerialization also refuses is malformed.
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
               (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) == nil {
                return .failure(.malformed)
            }
            if case .typeMismatch(_, let context) = error, context.codingPath.isEmpty {
                return .failure(.invalid("not a JSON object"))
            }
            return .failure(.invalid(HARDocument.describe(error)))
        } catch {
            return .failure(.invalid("\(error)"))
        }
    }

    enum Failure: Error, Equatable {
        case malformed
        case invalid(String)
    }
}

/// A JSON number that must be a whole number fitting an `Int` (a count, a size, a time in
/// nanoseconds); `1.5`, `1e30` and `true` fail naming their field.
struct RecordingWholeNumber: Decodable, Equatable {
    let value: Int

    init(_ value: Int) { self.value = value }

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Int.self) {
            self.value = value
            return
        }
        if let number = try? container.decode(Double.self) {
            let reason = number == number.rounded(.towardZero) && number.isFinite ? "is out of range" : "is not a whole number"
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(number) \(reason)")
        }
        throw DecodingError.typeMismatch(Int.self, .init(codingPath: decoder.codingPath, debugDescription: "expected a whole number"))
    }
}
