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
/// Complexity: O(total length of the lines).
struct HeaderFieldLines {
    /// One value per lower-cased field name.
    private(set) var values: [String: String] = [:]
    /// Singleton fields given more than once with differing values (lower-cased, in order).
    private(set) var conflicting: [String] = []

    /// Fields that are not lists (RFC 9110 §6.6.1 Date, §8.6 Content-Length, §8.8.2
    /// Last-Modified, §8.8.3 ETag; RFC 9111 §5.1 Age, §5.3 Expires).
    static let singletons: Set<String> = ["date", "expires", "last-modified", "age", "etag", "content-length"]

    /// A response's lines, with the singleton rules above.
    init(response lines: [(name: String, value: String)]) throws(FieldParsing.Failure) {
        var first: [String: String] = [:]  // each singleton's first value, trimmed
        for (rawName, value) in lines {
            let name = rawName.lowercased()
            guard let earlier = values[name] else {
                values[name] = value
                if Self.singletons.contains(name) { first[name] = value.trimmingSpaces }
                continue
            }
            guard Self.singletons.contains(name) else {
                values[name] = Self.combine(earlier, value)
                continue
            }
            guard value.trimmingSpaces != first[name] else { continue }  // the same value again
            if name == "content-length" {
                throw FieldParsing.Failure(
                    "Content-Length is given twice with different values, \(ErrorText.quote(earlier, limit: 40)) and \(ErrorText.quote(value, limit: 40)) (RFC 9110 §8.6: the message is invalid)")
            }
            if name == "expires" { values[name] = Self.combine(earlier, value) }  // no date: stale
            if !conflicting.contains(name) { conflicting.append(name) }
        }
    }

    /// A request's lines: every field combines as a list (the replay reads request fields
    /// only as Vary's selected values and for the presence of Authorization).
    static func request(_ lines: [(name: String, value: String)]) -> [String: String] {
        var values: [String: String] = [:]
        for (name, value) in lines {
            let key = name.lowercased()
            values[key] = values[key].map { combine($0, value) } ?? value
        }
        return values
    }

    /// RFC 9110 §5.3: the values in order, separated by a comma and a space.
    private static func combine(_ earlier: String, _ later: String) -> String { earlier + ", " + later }
}
