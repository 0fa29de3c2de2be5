import WorkbenchCore
import WorkbenchMetrics
import Foundation

/// HAR 1.2 (HTTP Archive) exports — Chrome and Firefox DevTools, Safari, Charles,
/// Proxyman, Fiddler, WebPageTest. Each entry becomes a request:
/// - time: `startedDateTime` (ISO 8601) as seconds since 1970; entries are replayed page by
///   page or run by run, each in start order, and only the chosen views (`HARSessionPlan`:
///   `--har-pages`, `--har-view`);
/// - key: the request URL (`drop-query` cuts it at `?`);
/// - size: the response's `content.size`, else `bodySize`, else `Content-Length`; a 304
///   with an empty body takes the size last seen for its URL (it revalidated that body); a
///   HEAD's is 0 (its response has no content, RFC 9110 §9.3.2);
/// - dimensions: read from a base64 image body's header (`ImageDimensions`), for pixel cost;
/// - `http`: method, status, media type, Cache-Control, Expires, Date, Age, ETag,
///   Last-Modified, Vary, whether it asked for credentials, the request's headers and the
///   timings (HAR's -1 = not measured = nil). Repeated header lines combine into one list
///   (RFC 9110 §5.3; `HeaderFieldLines` has the rule for singleton fields: differing
///   Content-Lengths fail the entry).
/// Options: `images-only` (media type image/*), `status` (e.g. `200,304` or `2xx,304`).
/// Unknown fields (the exporters' `_` extensions) are ignored and optional ones may be
/// missing. A HAR is one JSON document, so it is read whole (compressed is fine).
package enum HARTraceReader {
    /// Parses the whole document and serves its requests from memory.
    static func open(path: String, options: ReadOptions) throws -> any RequestSource {
        let filter = try HARFilter(options.formatOptions)
        let reading = try read(readAll(path), path: path, filter: filter, keepKeyNames: options.keepKeyNames, skipBad: options.skipBadRows)
        return InMemoryTrace.Cursor(requests: reading.requests, skippedRows: reading.skipped)
    }

    package static func readAll(_ path: String) throws(TraceError) -> Data {
        let file = try ChunkedFileReader(path: path)
        while try file.refill() {}
        return Data(bytes: file.buffer + file.start, count: file.end - file.start)
    }

    /// The requests of a HAR document in replay order (`HARSessionPlan`); entries that fail
    /// (with `skipBad`) are counted instead of ending the read.
    static func parse(_ data: Data, path: String, filter: HARFilter, keepKeyNames: Bool, skipBad: Bool) throws -> ([Request], Int) {
        let reading = try read(data, path: path, filter: filter, keepKeyNames: keepKeyNames, skipBad: skipBad)
        return (reading.requests, reading.skipped)
    }

    /// `parse` with what the pages say: each request's page and view, and the plan's counts.
    package static func read(_ data: Data, path: String, filter: HARFilter, keepKeyNames: Bool, skipBad: Bool) throws -> HARReading {
        let document: HARDocument
        do {
            document = try JSONDecoder().decode(HARDocument.self, from: data)
        } catch let error as DecodingError {
            throw TraceError(path: path, line: nil, reason: "not a HAR file: \(HARDocument.describe(error))")
        } catch {
            throw TraceError(path: path, line: nil, reason: "not a HAR file: \(error)")
        }
        var reading = HARReading(pages: document.log.pages ?? [])
        reading.creator = document.log.creator
        for (index, page) in reading.pages.enumerated() {
            guard let badRun = page.badRun else { continue }
            let name = page.id.map { " (id \(ErrorText.quote($0, limit: 40)))" } ?? ""
            throw TraceError(path: path, line: nil, reason: "page \(index + 1)\(name): _run \(ErrorText.quote(badRun, limit: 40)) is not a run number (WebPageTest numbers its runs 1, 2, …: a whole number from 0 to 999,999,999)")
        }
        var timed: [HARSessionPlan.Entry] = []
        for (index, entry) in document.log.entries.enumerated() {
            guard let time = ISO8601Time.seconds(entry.startedDateTime) else {
                if skipBad {
                    reading.skipped += 1
                    continue
                }
                throw TraceError(path: path, line: nil, reason: "entry \(index + 1): startedDateTime '\(entry.startedDateTime.prefix(40))' is not an ISO 8601 date and time")
            }
            timed.append(.init(time: time, index: index, pageref: entry.pageref?.value))
        }
        // Start order within each page or run, so a 304 follows the 200 whose size it revalidates.
        reading.plan = HARSessionPlan(pages: reading.pages, entries: timed, order: filter.pageOrder, view: filter.view)
        if filter.view == .repeat && reading.repeatViewPages == 0 {
            // Replaying nothing with exit 0 (and sizing a % capacity on no request) said nothing of why.
            throw TraceError(path: path, line: nil, reason: "--har-view repeat: this HAR has no repeat view (no page with WebPageTest's _cached: 1); replay its first views with --har-view first")
        }
        if filter.view == .repeat && reading.plan.items.isEmpty && !timed.isEmpty {
            let pages = reading.repeatViewPages
            throw TraceError(path: path, line: nil, reason: "--har-view repeat: the \(pages) repeat view\(pages == 1 ? "" : "s") of this HAR hold\(pages == 1 ? "s" : "") no entry (a repeat view lists only what reached the network), so there is nothing to replay")
        }
        var lastSize: [String: Int] = [:]
        for item in reading.plan.items {
            let request: Request?
            do throws(FieldParsing.Failure) {
                request = try document.log.entries[item.index].request(at: item.time, filter: filter, keepKeyNames: keepKeyNames, lastSize: &lastSize)
            } catch {
                if skipBad {
                    reading.skipped += 1
                    continue
                }
                throw TraceError(path: path, line: nil, reason: "entry \(item.index + 1): \(error.reason)")
            }
            if let request { reading.append(request, item: item) }
        }
        return reading
    }
}

/// Which HAR entries become requests.
package struct HARFilter {
    var dropQuery = false
    var imagesOnly = false
    /// Accepted statuses: exact codes and classes (2 = 2xx); empty = all.
    var statuses: Set<Int> = []
    var classes: Set<Int> = []
    /// `--har-pages` and `--har-view` (HARSessionPlan).
    package var pageOrder = HARPageOrder.sequential
    package var view = HARView.first
    /// `--har-runs`; nil: not given (`cold` where a replay can empty its cache per run).
    var runs: HARRunsMode?

    package init(_ options: [String: String]) throws(WorkbenchError) {
        dropQuery = options["drop-query"] == "on"
        imagesOnly = options["images-only"] == "on"
        if let text = options["har-pages"] {
            guard let order = HARPageOrder(rawValue: text.trimmingSpaces.lowercased()) else {
                throw WorkbenchError("--har-pages must be one of \(HARPageOrder.allCases.map(\.rawValue).joined(separator: ", ")), not \(ErrorText.quote(text))")
            }
            pageOrder = order
        }
        if let text = options["har-view"] {
            guard let view = HARView(rawValue: text.trimmingSpaces.lowercased()) else {
                throw WorkbenchError("--har-view must be one of \(HARView.allCases.map(\.rawValue).joined(separator: ", ")), not \(ErrorText.quote(text))")
            }
            self.view = view
        }
        if let text = options[HARRunsMode.optionName] {
            guard let mode = HARRunsMode(rawValue: text.trimmingSpaces.lowercased()) else {
                throw WorkbenchError("--har-runs must be one of \(HARRunsMode.allCases.map(\.rawValue).joined(separator: ", ")), not \(ErrorText.quote(text))")
            }
            runs = mode
        }
        for part in (options["status"] ?? "").split(separator: ",") {
            let text = String(part).trimmingSpaces.lowercased()
            if text.count == 3, text.hasSuffix("xx"), let digit = Int(text.prefix(1)), (1...5).contains(digit) {
                classes.insert(digit)
            } else if let code = Int(text), (100...599).contains(code) {
                statuses.insert(code)
            } else {
                throw WorkbenchError("--status takes codes and classes such as 200,304 or 2xx, not '\(part)'")
            }
        }
    }

    func accepts(status: Int, mimeType: String?) -> Bool {
        if imagesOnly && !(mimeType?.lowercased().hasPrefix("image/") ?? false) { return false }
        if statuses.isEmpty && classes.isEmpty { return true }
        return statuses.contains(status) || classes.contains(status / 100)
    }
}

// MARK: - The document, as far as it matters (everything else is ignored)

package struct HARDocument: Decodable {
    struct Log: Decodable {
        var entries: [Entry]
        var pages: [Page]?
        /// The tool that wrote the HAR (`creator.name`, `creator.version`), when given.
        var creator: Creator?

        init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            entries = try container.decode([Entry].self, forKey: .entries)
            // Pages only group and order entries: a malformed list is read as none (the
            // entries are still all there, in start order).
            pages = try? container.decodeIfPresent([Page].self, forKey: .pages)
            // Only named in notes (`ProxyRecording`): a malformed one is read as none.
            creator = try? container.decodeIfPresent(Creator.self, forKey: .creator)
        }

        enum CodingKeys: String, CodingKey { case entries, pages, creator }
    }

    struct Creator: Decodable {
        var name: String?
        var version: String?
    }
    var log: Log

    /// A HAR page; WebPageTest adds `_run` (1, 2, …) and `_cached` (0 first view, 1 repeat
    /// view). Every field is optional and a field of the wrong type is read as absent.
    package struct Page: Decodable {
        var id: String?
        package var startedDateTime: String?
        package var run: Int?
        /// `_run` as written when it is a number but no run number (negative, fractional, or
        /// 2^63): `read` refuses the file naming the page, since showing it as run 0 or
        /// grouping the page alone would be a silent guess.
        var badRun: String?
        package var cached: Int?
        /// `title`, and the URL browsertime tested (`_url`; WebPageTest writes `_URL`):
        /// what `HARRuns` reads a browsertime iteration from.
        var title: String?
        var url: String?

        package init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try? container.decodeIfPresent(String.self, forKey: .id)
            title = try? container.decodeIfPresent(String.self, forKey: .title)
            url = try? container.decodeIfPresent(String.self, forKey: .url)
            startedDateTime = try? container.decodeIfPresent(String.self, forKey: .startedDateTime)
            // Bounded before converting: a fuzzed 1e300 must not trap.
            func small(_ key: CodingKeys) -> Int? {
                guard let value = (try? container.decodeIfPresent(HARNumber.self, forKey: key))?.known, value < 1e9 else { return nil }
                return Int(value)
            }
            cached = small(.cached)
            if let value = (try? container.decodeIfPresent(HARNumber.self, forKey: .run))?.value {
                if value >= 0, value < 1e9, value == value.rounded(.towardZero) {
                    run = Int(value)
                } else {
                    // The digits as written where they decode as a decimal (2^63 exactly), else the double.
                    badRun = (try? container.decodeIfPresent(Decimal.self, forKey: .run))?.description ?? "\(value)"
                }
            }
        }

        enum CodingKeys: String, CodingKey { case id, startedDateTime, title, url = "_url", run = "_run", cached = "_cached" }
    }

    struct Entry: Decodable {
        var startedDateTime: String
        var time: HARNumber?
        var request: RequestPart
        var response: ResponsePart
        var timings: Timings?
        var pageref: HARText?
    }

    /// A string field read leniently: another JSON type is read as absent.
    struct HARText: Decodable {
        var value: String?
        init(from decoder: Decoder) throws { value = try? decoder.singleValueContainer().decode(String.self) }
    }

    struct RequestPart: Decodable {
        var method: String?
        var url: String
        var headers: [Header]?
    }

    struct ResponsePart: Decodable {
        var status: HARNumber?
        var headers: [Header]?
        var content: Content?
        var bodySize: HARNumber?
    }

    struct Header: Decodable {
        var name: String
        var value: String
    }

    struct Content: Decodable {
        var size: HARNumber?
        var mimeType: String?
        var text: BodyPrefix?
        var encoding: String?
    }

    /// The start of a response body: enough for any image header, and the rest of a
    /// large body is not kept while the document is read.
    struct BodyPrefix: Decodable {
        static let limit = 256 * 1024
        var utf8: [UInt8]

        init(from decoder: Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            utf8 = Array(text.utf8.prefix(Self.limit))
        }
    }

    struct Timings: Decodable {
        var blocked, dns, connect, ssl, send, wait, receive: HARNumber?
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined().drop { $0 == "." }.description
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)).\(key.stringValue) is missing".trimmingPrefix(".")
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\(path(context)): \(context.debugDescription)"
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "the JSON is malformed" : "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

extension String {
    fileprivate func trimmingPrefix(_ prefix: String) -> String { hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self }
}

/// A HAR number, which exporters write as integers, decimals, strings or null.
struct HARNumber: Decodable {
    var value: Double?

    init(value: Double?) { self.value = value }

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { value = nil } else if let number = try? container.decode(Double.self) { value = number } else if let text = try? container.decode(String.self) { value = Double(text) } else { value = nil }
    }

    /// HAR uses -1 for "not known".
    var known: Double? { value.flatMap { $0 >= 0 && $0.isFinite ? $0 : nil } }

    /// A known value as a whole number, or a failure naming `field` when it does not fit
    /// (a fuzzed status of 2e40 once trapped converting to Int).
    func wholeNumber(_ field: String, limit: Double = 1e15) throws(FieldParsing.Failure) -> Int? {
        guard let known else { return nil }
        guard known <= limit else { throw FieldParsing.Failure("\(field) \(known) is out of range") }
        // A count (a size, a status) is whole: 1.5 bytes is a bad value, not 1 byte.
        guard known == known.rounded(.towardZero) else { throw FieldParsing.Failure("\(field) \(known) is not a whole number") }
        return Int(known)
    }
}

extension HARDocument.Entry {
    /// A Content-Length field value: `1*DIGIT`, or a list of identical ones, which RFC 9110
    /// §8.6 lets a recipient take as that one value. Anything else (a list of different
    /// values, a sign, text) makes the message invalid, so the entry is a bad row, never a
    /// length silently read as absent.
    static func contentLength(_ value: String) throws(FieldParsing.Failure) -> Int {
        let items = value.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        let lengths = items.map { item in
            !item.isEmpty && item.utf8.count <= 15 && item.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ? Int(item) : nil
        }
        guard let first = lengths.first ?? nil, lengths.allSatisfy({ $0 == first }) else {
            throw FieldParsing.Failure("Content-Length \(ErrorText.quote(value)) is not a length (RFC 9110 §8.6: digits, or a list of one repeated value)")
        }
        return first
    }

    func request(at time: Double, filter: HARFilter, keepKeyNames: Bool, lastSize: inout [String: Int]) throws(FieldParsing.Failure) -> Request? {
        let requestLines = (request.headers ?? []).map { (name: $0.name, value: $0.value) }
        let responseLines = (response.headers ?? []).map { (name: $0.name, value: $0.value) }
        try HeaderFieldLines.checkBounds([requestLines, responseLines])
        let status = try response.status?.wholeNumber("response.status", limit: 999) ?? 0
        let mimeType = response.content?.mimeType.map { $0.split(separator: ";").first.map { String($0).trimmingSpaces } ?? $0 }
        guard filter.accepts(status: status, mimeType: mimeType) else { return nil }
        var url = request.url
        guard !url.isEmpty else { throw FieldParsing.Failure("request.url is empty") }
        if filter.dropQuery, let mark = url.firstIndex(of: "?") { url = String(url[..<mark]) }
        // Repeated lines combine (RFC 9110 §5.3); singleton fields follow HeaderFieldLines' rules.
        let fields = try HeaderFieldLines(response: responseLines)
        let headers = fields.values
        let contentLength = try headers["content-length"].map(Self.contentLength)
        let sizes = [try response.content?.size?.wholeNumber("response.content.size"), try response.bodySize?.wholeNumber("response.bodySize"), contentLength]
        let method = request.method ?? "GET"
        var size = sizes.compactMap { $0 }.first { $0 > 0 } ?? 0
        if size == 0 && status == 304 { size = lastSize[url] ?? 0 }
        // A HEAD response has no content (RFC 9110 §9.3.2): its Content-Length is the GET's
        // body, which it never carried, so a HEAD is a request of size 0 and sizes nothing later.
        if method.uppercased() == "HEAD" { size = 0 }
        if size > 0 { lastSize[url] = size }
        var width: UInt32 = 0, height: UInt32 = 0
        if let content = response.content, content.encoding?.lowercased() == "base64", let text = content.text {
            // The header is at the start: decode a prefix (a whole number of 4-character groups).
            let usable = text.utf8.count - text.utf8.count % 4
            if let bytes = Data(base64Encoded: Data(text.utf8.prefix(usable)), options: .ignoreUnknownCharacters),
               let dimensions = bytes.withUnsafeBytes({ ImageDimensions.read($0) }) {
                (width, height) = dimensions
            }
        }
        let key = KeyDigest.parse(url)
        let t = self.timings
        let requestHeaders = HeaderFieldLines.request(requestLines)
        let http = HTTPMetadata(
            method: method, status: status, mimeType: mimeType, headers: headers, requestHeaders: requestHeaders,
            timings: .init(blocked: t?.blocked?.known, dns: t?.dns?.known, connect: t?.connect?.known, ssl: t?.ssl?.known,
                           send: t?.send?.known, wait: t?.wait?.known, receive: t?.receive?.known, total: self.time?.known),
            conflictingFields: fields.conflicting)
        return Request(time: time, id: key.id, size: size, width: width, height: height, operation: .get,
                       name: keepKeyNames && !key.isInteger ? url : nil, http: http)
    }
}

/// ISO 8601 date-times as HAR writes them: `YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM|±HHMM]`
/// (no zone = UTC), as seconds since 1970.
package enum ISO8601Time {
    package static func seconds(_ text: String) -> Double? {
        let b = Array(text.utf8)
        func digits(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= b.count else { return nil }
            var value = 0
            for byte in b[at..<at + count] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard b.count >= 19, b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 32, b[13] == 58, b[16] == 58,
              let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
              let hour = digits(11, 2), let minute = digits(14, 2), let second = digits(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var at = 19
        var fraction = 0.0
        if at < b.count && (b[at] == 46 || b[at] == 44) {
            at += 1
            var scale = 0.1
            let start = at
            while at < b.count, b[at] >= 48 && b[at] <= 57 {
                fraction += Double(b[at] - 48) * scale
                scale /= 10
                at += 1
            }
            guard at > start else { return nil }
        }
        var offset = 0
        if at < b.count {
            switch b[at] {
            case 90, 122: at += 1  // Z
            case 43, 45:
                let sign = b[at] == 45 ? -1 : 1
                guard let hours = digits(at + 1, 2) else { return nil }
                var minutes = 0
                if at + 3 < b.count {
                    let minuteAt = b[at + 3] == 58 ? at + 4 : at + 3
                    guard let value = digits(minuteAt, 2) else { return nil }
                    minutes = value
                    at = minuteAt + 2
                } else {
                    at += 3
                }
                offset = sign * (hours * 3600 + minutes * 60)
            default: return nil
            }
        }
        guard at == b.count else { return nil }
        let seconds = CivilTime.unixSeconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return Double(seconds - offset) + fraction
    }
}
