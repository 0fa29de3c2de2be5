import Foundation
import Testing
@testable import CacheWorkbench
@testable import WorkbenchReports
@testable import WorkbenchCommands
@testable import WorkbenchCore
@testable import WorkbenchMetrics
@testable import WorkbenchTraces
@testable import WorkbenchHTTP
@testable import WorkbenchBackends
@testable import WorkbenchSimulation
@testable import WorkbenchExperiments

private func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

private func entry(_ started: String, _ url: String, status: Int = 200, size: String = "100", bodySize: String = "-1",
                   mime: String = "text/html", headers: String = "[]", text: String? = nil, extra: String = "", timings: String? = nil) -> String {
    let body = text.map { #","text":"\#($0)","encoding":"base64""# } ?? ""
    let timing = timings.map { #","timings":\#($0)"# } ?? ""
    return #"{\#(extra)"startedDateTime":"\#(started)","request":{"method":"GET","url":"\#(url)","headers":[]},"response":{"status":\#(status),"headers":\#(headers),"content":{"size":\#(size),"mimeType":"\#(mime)"\#(body)},"bodySize":\#(bodySize)}\#(timing)}"#
}

private func har(_ entries: [String], logExtra: String = "") -> String {
    #"{"log":{"version":"1.2","creator":{"name":"test","version":"1"},\#(logExtra)"entries":[\#(entries.joined(separator: ","))]}}"#
}

private func load(_ text: String, options: [String: String] = [:], skipBad: Bool = false) throws -> InMemoryTrace {
    let folder = TemporaryFolder()
    let path = folder.file("t.har", text)
    return try InMemoryTrace.load(try TraceFile(path: path, skipBadRows: skipBad, formatOptions: options), keepKeyNames: true)
}

private func failure(_ text: String) -> String? {
    do {
        _ = try load(text)
        return nil
    } catch {
        return String(describing: error).components(separatedBy: "t.har: ").last
    }
}

@Suite("HAR reader", .onTestWorkers)
struct HARTraceReaderTests {
    @Test("Chrome DevTools: _ fields ignored, caching headers and timings kept, -1 timings are unknown, base64 PNG dimensions")
    func chrome() throws {
        let png = base64(TinyImages.png(1170, 1463))
        let text = har([entry("2024-05-01T10:00:00.100Z", "https://cdn.example/a.png?w=10", size: "1234", bodySize: "1000", mime: "image/png",
                              headers: #"[{"name":"Cache-Control","value":"max-age=3600"},{"name":"ETag","value":"\"abc\""},{"name":"Vary","value":"Accept"}]"#,
                              text: png, extra: #""_initiator":{"type":"parser"},"_priority":"High","pageref":"page_1","#,
                              timings: #"{"blocked":1.5,"dns":-1,"connect":-1,"ssl":-1,"send":0.1,"wait":30,"receive":4.2,"_blocked_queueing":0.5}"#)],
                       logExtra: #""pages":[{"id":"page_1","title":"x","startedDateTime":"2024-05-01T10:00:00.000Z","pageTimings":{"onLoad":200}}],"_x":1,"#)
        let request = try #require(try load(text).requests.first)
        #expect(request.keyText == "https://cdn.example/a.png?w=10")
        #expect(request.time == 1_714_557_600.1)
        #expect(request.size == 1234)
        #expect((request.width, request.height) == (1170, 1463))
        let http = try #require(request.http)
        #expect(http.status == 200 && http.mimeType == "image/png" && http.method == "GET")
        #expect(http.cacheControl == "max-age=3600" && http.etag == "\"abc\"" && http.vary == "Accept" && http.expires == nil)
        #expect(http.timings.dns == nil && http.timings.wait == 30 && http.timings.blocked == 1.5)
    }

    @Test("Firefox and Fiddler: time zones and long fractions; size falls back to bodySize, then Content-Length")
    func fallbacks() throws {
        let text = har([
            entry("2024-05-01T12:00:00.250+02:00", "https://x.example/1", size: "-1", bodySize: "512"),
            entry("2024-05-01T10:00:01.1234567+00:00", "https://x.example/2", size: "-1", bodySize: "-1",
                  headers: #"[{"name":"content-length","value":"777"}]"#),
            entry("2024-05-01T10:00:02Z", "https://x.example/3", size: "0", bodySize: "0"),
        ])
        let requests = try load(text).requests
        #expect(requests.map(\.size) == [512, 777, 0])
        #expect(requests[0].time == 1_714_557_600.25)
        #expect(abs(requests[1].time - 1_714_557_601.1234567) < 1e-6)
    }

    @Test("Charles and Proxyman: a 304 with an empty body takes its URL's last size; WebP dimensions; start order")
    func revalidation() throws {
        let webp = base64(TinyImages.webpLossy(800, 600))
        let text = har([
            entry("2024-05-01T10:00:05Z", "https://x.example/a.webp", status: 304, size: "0", bodySize: "0", mime: "image/webp"),
            entry("2024-05-01T10:00:00Z", "https://x.example/a.webp", size: "4000", mime: "image/webp", text: webp),
            entry("2024-05-01T10:00:06Z", "https://x.example/b.gif", status: 304, size: "0", bodySize: "0", mime: "image/gif"),
        ])
        let requests = try load(text).requests
        #expect(requests.map(\.time) == [1_714_557_600, 1_714_557_605, 1_714_557_606])
        #expect(requests.map(\.size) == [4000, 4000, 0])
        #expect((requests[0].width, requests[0].height) == (800, 600))
        #expect(requests[1].http?.status == 304)
    }

    @Test("Safari and WebPageTest: missing optional fields, numbers as strings, JPEG and GIF bodies")
    func sparse() throws {
        let minimal = #"{"startedDateTime":"2024-05-01T10:00:00Z","request":{"url":"https://x.example/p.jpg"},"response":{"status":"200","content":{"mimeType":"image/jpeg","text":"\#(base64(TinyImages.jpeg(1290, 1720)))","encoding":"base64"},"bodySize":"2048"},"_cdn_provider":null}"#
        let gif = entry("2024-05-01T10:00:01Z", "https://x.example/g.gif", size: "99", mime: "image/gif", text: base64(TinyImages.gif(450, 300)))
        let requests = try load(har([minimal, gif], logExtra: #""_wptVersion":"21","#)).requests
        #expect(requests.map(\.size) == [2048, 99])
        #expect(requests.map { [$0.width, $0.height] } == [[1290, 1720], [450, 300]])
        #expect(requests[0].http?.method == "GET" && requests[0].http?.status == 200 && requests[0].http?.timings.total == nil)
    }

    @Test("options: drop the query, images only, status filter")
    func options() throws {
        let text = har([
            entry("2024-05-01T10:00:00Z", "https://x.example/a.png?v=1", mime: "image/png"),
            entry("2024-05-01T10:00:01Z", "https://x.example/page", mime: "text/html"),
            entry("2024-05-01T10:00:02Z", "https://x.example/a.png?v=2", status: 404, mime: "image/png"),
            entry("2024-05-01T10:00:03Z", "https://x.example/b.png", status: 304, mime: "image/png"),
        ])
        #expect(try load(text, options: ["drop-query": "on"]).requests.map(\.keyText).prefix(1) == ["https://x.example/a.png"])
        #expect(try load(text, options: ["images-only": "on"]).requests.count == 3)
        #expect(try load(text, options: ["status": "2xx,304"]).requests.map(\.keyText) == ["https://x.example/a.png?v=1", "https://x.example/page", "https://x.example/b.png"])
        #expect(throws: WorkbenchError.self) { try load(text, options: ["status": "ok"]) }
    }

    @Test("errors name the file and the entry; --skip-bad counts bad entries")
    func errors() throws {
        #expect(failure("{ not json") == "not a HAR file: the JSON is malformed")
        #expect(failure(#"{"log":{"entries":[{"startedDateTime":"2024-05-01T10:00:00Z","request":{},"response":{}}]}}"#)
            == "not a HAR file: log.entries[0].request.url is missing")
        let badDate = har([entry("yesterday", "https://x.example/1"), entry("2024-05-01T10:00:00Z", "https://x.example/2")])
        #expect(failure(badDate) == "entry 1: startedDateTime 'yesterday' is not an ISO 8601 date and time")
        // Found by scripts/fuzz: numbers that do not fit are errors, not traps.
        #expect(failure(har([entry("2024-05-01T10:00:00Z", "https://x.example/1", status: 2077777777)])) == "entry 1: response.status 2077777777.0 is out of range")
        #expect(failure(har([entry("2024-05-01T10:00:00Z", "https://x.example/1", size: "1e300")])) == "entry 1: response.content.size 1e+300 is out of range")
        let skipped = try load(badDate, skipBad: true)
        #expect(skipped.requests.count == 1 && skipped.skippedRows == 1)
    }

    @Test("ISO 8601 forms")
    func dates() {
        #expect(ISO8601Time.seconds("1970-01-01T00:00:00Z") == 0)
        #expect(ISO8601Time.seconds("1970-01-01T01:00:00+0100") == 0)
        #expect(ISO8601Time.seconds("1970-01-01T00:00:00.5") == 0.5)
        #expect(ISO8601Time.seconds("2000-02-29T12:00:00-05:30") == 951_845_400)
        for bad in ["", "2024-13-01T00:00:00Z", "2024-05-01T00:00:00.Z", "2024-05-01T00:00:00Zjunk", "2024-05-01"] {
            #expect(ISO8601Time.seconds(bad) == nil, "\(bad)")
        }
    }
}
