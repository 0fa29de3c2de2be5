import WorkbenchCore
import WorkbenchMetrics
/// A recorded message's header field lines as one value per field (lower-cased name), as
/// RFC 9110 §5.3 says a recipient reads them: lines with the same name combine, in order,
/// into one comma-separated list (`Cache-Control: no-store` and `Cache-Control:
/// max-age=3600` on two lines are `no-store, max-age=3600`). Real HARs split Cache-Control,
/// Vary and Pragma over lines; keeping only the last line dropped directives.
///
/// Singleton fields (a single value, not a list) the replay reads have their own rule when a
/// message repeats them:
/// - the same value repeated is that value;
/// - `Content-Length` with differing values makes the message invalid (RFC 9110 §8.6,
///   RFC 9112 §6.3): the entry fails with a reason (`--skip-bad` skips it);
/// - `Expires` with differing values is the combined list, which is no HTTP-date, so the
///   response is stale (RFC 9111 §4.2.1: "either the first occurrence should be used or the
///   response should be considered stale"; §5.3: an invalid Expires is already expired);
/// - `Age`, `Date`, `Last-Modified` and `ETag` with differing values keep the first
///   (RFC 9111 §4.2.1's first occurrence; §5.1 says so of a list-valued Age).
/// The singleton fields that differed are named in `conflicting`, so the replay can say how
/// many responses rested on these rules.
///
/// Complexity: O(total length of the lines): each field's values are collected and joined
/// once (joining them line by line copied the growing list each time: 100,000 lines took 40 s).
///
/// An entry's lines are bounded (`checkBounds`): at most `maxLines` lines and `maxBytes`
/// bytes of names and values, request and response together.
struct HeaderFieldLines {
    /// One value per lower-cased field name.
    private(set) var values: [String: String] = [:]
    /// Singleton fields given more than once with differing values (lower-cased, in order).
    private(set) var conflicting: [String] = []

    /// Fields that are not lists (RFC 9110 §6.6.1 Date, §8.6 Content-Length, §8.8.2
    /// Last-Modified, §8.8.3 ETag; RFC 9111 §5.1 Age, §5.3 Expires).
    static let singletons: Set<String> = ["date", "expires", "last-modified", "age", "etag", "content-length"]

    /// The most header lines one HAR entry may hold, request and response together. Far
    /// above any real message (Apache accepts 100 request fields by default, LimitRequestFields),
    /// so only a broken or hostile file reaches it.
    static let maxLines = 100_000
    /// The most bytes of header names and values one HAR entry may hold: 4 MiB, four times
    /// Go's net/http default for a request's header block (DefaultMaxHeaderBytes, 1 MiB).
    static let maxBytes = 4 << 20

    /// Refuses an entry whose header lines pass `maxLines` or `maxBytes`. O(number of lines).
    static func checkBounds(_ groups: [[(name: String, value: String)]]) throws(FieldParsing.Failure) {
        var lines = 0
        var bytes = 0
        for group in groups {
            lines += group.count
            guard lines <= maxLines else {
                throw FieldParsing.Failure("\(groups.map(\.count).reduce(0, +)) header lines (request and response), more than the \(maxLines) an entry may have")
            }
            for line in group {
                bytes += line.name.utf8.count + line.value.utf8.count
                guard bytes <= maxBytes else {
                    throw FieldParsing.Failure("more than \(maxBytes) bytes (4 MiB) of header names and values (request and response), the most an entry may have")
                }
            }
        }
    }

    /// A response's lines, with the singleton rules above.
    init(response lines: [(name: String, value: String)]) throws(FieldParsing.Failure) {
        var parts: [String: [String]] = [:]  // each field's values, in order
        var first: [String: String] = [:]  // each singleton's first value, trimmed
        for (rawName, value) in lines {
            let name = rawName.lowercased()
            guard Self.singletons.contains(name) else {
                parts[name, default: []].append(value)
                continue
            }
            let trimmed = value.trimmingSpaces
            guard let earlier = first[name] else {
                first[name] = trimmed
                parts[name] = [value]
                continue
            }
            guard trimmed != earlier else { continue }  // the same value again
            if name == "content-length" {
                throw FieldParsing.Failure(
                    "Content-Length is given twice with different values, \(ErrorText.quote(parts[name]?.first ?? earlier, limit: 40)) and \(ErrorText.quote(value, limit: 40)) (RFC 9110 §8.6: the message is invalid)")
            }
            if name == "expires" { parts[name, default: []].append(value) }  // no date: stale
            if !conflicting.contains(name) { conflicting.append(name) }  // at most 6 names
        }
        values = parts.mapValues(Self.combine)
    }

    /// A request's lines: every field combines as a list (the replay reads request fields
    /// only as Vary's selected values, the request's own Cache-Control and the presence of
    /// Authorization).
    static func request(_ lines: [(name: String, value: String)]) -> [String: String] {
        var parts: [String: [String]] = [:]
        for (name, value) in lines { parts[name.lowercased(), default: []].append(value) }
        return parts.mapValues(combine)
    }

    /// RFC 9110 §5.3: the values in order, separated by a comma and a space.
    private static func combine(_ values: [String]) -> String { values.count == 1 ? values[0] : values.joined(separator: ", ") }
}
