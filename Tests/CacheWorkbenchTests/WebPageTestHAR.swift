/// Small WebPageTest-style HAR documents for the session and http-check tests: pages with
/// `_run` and `_cached`, entries with a `pageref`. Times are seconds after 2026-01-01 10:00:00Z.
struct WebPageTestHAR {
    struct Page {
        var id: String
        var start: Double
        var run: Int
        var cached: Int
    }

    struct Entry {
        var page: String
        var start: Double
        var url: String
        var status = 200
        var size = 100
        /// Response headers as (name, value).
        var headers: [(String, String)] = []
    }

    var pages: [Page]
    var entries: [Entry]

    static func time(_ seconds: Double) -> String {
        let whole = Int(seconds)
        let millis = Int(((seconds - Double(whole)) * 1000).rounded())
        let minute = whole / 60, second = whole % 60
        return "2026-01-01T10:" + two(minute) + ":" + two(second) + "." + String(millis + 1000).dropFirst() + "Z"
    }

    /// The HTTP date of `seconds` after 10:00:00 (a Thursday), within the same hour.
    static func httpDate(_ seconds: Int) -> String { "Thu, 01 Jan 2026 10:\(two(seconds / 60)):\(two(seconds % 60)) GMT" }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    var json: String {
        let pageText = pages.map {
            #"{"id":"\#($0.id)","startedDateTime":"\#(Self.time($0.start))","title":"t","_run":\#($0.run),"_cached":\#($0.cached)}"#
        }
        let entryText = entries.map { entry in
            let headers = entry.headers.map { #"{"name":"\#($0.0)","value":"\#($0.1)"}"# }.joined(separator: ",")
            return #"{"pageref":"\#(entry.page)","startedDateTime":"\#(Self.time(entry.start))","time":10,"request":{"method":"GET","url":"\#(entry.url)","headers":[]},"response":{"status":\#(entry.status),"headers":[\#(headers)],"content":{"size":\#(entry.size),"mimeType":"image/png"},"bodySize":-1}}"#
        }
        return #"{"log":{"version":"1.2","creator":{"name":"WebPagetest","version":"1"},"pages":[\#(pageText.joined(separator: ","))],"entries":[\#(entryText.joined(separator: ","))]}}"#
    }
}
