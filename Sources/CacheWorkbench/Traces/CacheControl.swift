import WorkbenchCore
import WorkbenchMetrics
/// The `Cache-Control` directives a client cache acts on (RFC 9111 §5.2, RFC 8246
/// `immutable`, RFC 5861 `stale-while-revalidate` / `stale-if-error`), parsed once per
/// stored response, and a request's own (§5.2.1: `max-age`, `max-stale`, `min-fresh`,
/// `no-cache`, `no-store`, `only-if-cached`), parsed once per request. Names are case-insensitive; values may be quoted. A directive given
/// twice keeps its first value (§4.2.1 allows the first occurrence); a delta-seconds value
/// that is not a number counts as 0 (stale), and one above 2^31 is 2^31 (§1.2.2).
/// Unknown directives are ignored; the whole value is read, whatever its length. O(length).
public struct CacheControl: Sendable, Equatable {
    public var maxAge: Int?
    public var sharedMaxAge: Int?
    public var noStore = false
    /// `no-cache`, bare or with field names (a private cache treats both as "validate
    /// before every reuse").
    public var noCache = false
    public var mustRevalidate = false
    public var isPrivate = false
    public var isPublic = false
    public var immutable = false
    public var staleWhileRevalidate: Int?
    public var staleIfError: Int?
    /// Request only (§5.2.1.2): the client accepts a stale response, up to this many seconds
    /// past its lifetime; a bare `max-stale` accepts any staleness (`Int.max`).
    public var maxStale: Int?
    /// Request only (§5.2.1.3): the response must stay fresh at least this many more seconds.
    public var minFresh: Int?
    /// Request only (§5.2.1.7): a stored response or a 504, never the origin.
    public var onlyIfCached = false

    public init() {}

    /// A request carries a directive of §5.2.1 (the ones a cache acts on).
    public var hasRequestDirective: Bool {
        maxAge != nil || maxStale != nil || minFresh != nil || noCache || noStore || onlyIfCached
    }

    public init(parsing text: String?) {
        guard let text else { return }
        for part in Self.directives(text) {
            let name = part.name.lowercased()
            switch name {
            case "max-age": if maxAge == nil { maxAge = Self.deltaSeconds(part.value) }
            case "s-maxage": if sharedMaxAge == nil { sharedMaxAge = Self.deltaSeconds(part.value) }
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "must-revalidate": mustRevalidate = true
            case "private": isPrivate = true
            case "public": isPublic = true
            case "immutable": immutable = true
            case "stale-while-revalidate": if staleWhileRevalidate == nil { staleWhileRevalidate = Self.deltaSeconds(part.value) }
            case "stale-if-error": if staleIfError == nil { staleIfError = Self.deltaSeconds(part.value) }
            case "max-stale": if maxStale == nil { maxStale = part.value == nil ? Int.max : Self.deltaSeconds(part.value) }
            case "min-fresh": if minFresh == nil { minFresh = Self.deltaSeconds(part.value) }
            case "only-if-cached": onlyIfCached = true
            default: break
            }
        }
    }

    /// `name[=value]` items split at commas outside quotes, trimmed, quotes removed.
    static func directives(_ text: String) -> [(name: String, value: String?)] {
        var items: [(name: String, value: String?)] = []
        var current = ""
        var quoted = false
        func flush() {
            let item = current.trimmingSpaces
            current = ""
            guard !item.isEmpty else { return }
            if let equals = item.firstIndex(of: "=") {
                var value = String(item[item.index(after: equals)...]).trimmingSpaces
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
                items.append((String(item[..<equals]).trimmingSpaces, value))
            } else {
                items.append((item, nil))
            }
        }
        // The whole value, however long: a directive after 8 KB of extensions (a no-store) was
        // once cut off here and the response stored.
        for character in text.unicodeScalars {
            if character == "\"" { quoted.toggle() }
            if character == "," && !quoted { flush() } else { current.unicodeScalars.append(character) }
        }
        flush()
        return items
    }

    /// RFC 9111 §1.2.2: a non-negative integer; above 2^31 means 2^31; anything else here
    /// means 0 (treated as stale).
    package static func deltaSeconds(_ value: String?) -> Int {
        guard let value, !value.isEmpty, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return 0 }
        var result = 0
        for byte in value.utf8 {
            result = result * 10 + Int(byte - 48)
            if result >= 2_147_483_648 { return 2_147_483_648 }
        }
        return result
    }
}
