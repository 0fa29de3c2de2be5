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

/// A hand-written recording (format v1): expected values below are counted by hand from
/// these lines, never taken from the reader.
enum HandRecording {
    static let header = #"{"format":"cache-trace-recording","version":1,"session":"S1","part":0,"recorder":"CacheTraceRecorder 1.0","clock":"monotonic","time_unit":"ns","started":"2026-11-28T05:00:00Z","app":{"name":"RecordingApp","image_cache":"own LRU","memory_cost_limit":4194304,"memory_count_limit":null,"disk_cost_limit":null,"cost_rule":"bytes_per_row*height"},"privacy":{"query":"kept","keys":"plain"}}"#
    static let events = [
        #"{"t":1000000000,"kind":"http","method":"GET","url":"https://img.example/a.png","status":200,"request_headers":{"Accept":"image/*"},"response_headers":{"Cache-Control":"max-age=60","ETag":"\"a1\"","Content-Type":"image/png; charset=binary","Content-Length":"2000"},"body_bytes":2000,"start":900000000,"end":1000000000,"source":"network"}"#,
        #"{"t":1000000000,"kind":"image","key":"https://img.example/a.png","source":"network","encoded_bytes":2000,"width":100,"height":50,"bytes_per_row":400,"content_type":"image/png","display_width":50,"display_height":25,"scale":2,"extra_field":[1,2]}"#,
        #"{"t":1500000000,"kind":"image","key":"https://img.example/a.png","source":"memory","width":100,"height":50,"bytes_per_row":400}"#,
        #"{"t":2000000000,"kind":"lifecycle","event":"memory_warning"}"#,
        #"{"t":2500000000,"kind":"image","key":"https://img.example/b.jpg","source":"disk","encoded_bytes":3000,"width":20,"height":10,"decoded_cost":800}"#,
        #"{"t":2600000000,"kind":"future_kind","x":1}"#,
        #"{"t":2700000000,"kind":"dropped","count":3}"#,
        #"{"t":3000000000,"kind":"lifecycle","event":"background"}"#,
        #"{"t":3500000000,"kind":"lifecycle","event":"foreground"}"#,
        #"{"t":4000000000,"kind":"image","key":"c","source":"unknown"}"#,
    ]
    /// The whole recording, ending in a line the app was killed while writing.
    static let text = ([header] + events).joined(separator: "\n") + "\n" + #"{"t":4500000000,"kind":"image","key":"https://img.exa"#
}

private func read(_ path: String, stream: String? = nil, skipBad: Bool = false) throws -> (requests: [Request], facts: AppRecordingFacts) {
    var formatOptions: [String: String] = [:]
    if let stream { formatOptions[AppRecordingReader.streamOption] = stream }
    let file = try TraceFile(path: path, skipBadRows: skipBad, formatOptions: formatOptions)
    let options = ReadOptions(keepKeyNames: true, skipBadRows: skipBad, formatOptions: formatOptions)
    return (try InMemoryTrace.load(file, keepKeyNames: true).requests, try AppRecordingReader.facts(path: path, options: options))
}

/// The error reading `lines` raises, as `LINE: reason` (nil when it reads).
private func failure(_ lines: [String], skipBad: Bool = false) -> String? {
    let folder = TemporaryFolder()
    let path = folder.file("r.jsonl", lines.joined(separator: "\n") + "\n")
    do {
        _ = try read(path, skipBad: skipBad)
        return nil
    } catch let error as TraceError {
        return "\(error.line.map(String.init) ?? "-"): \(error.reason)"
    } catch {
        return "other: \(error)"
    }
}

@Suite("App recording reader", .onTestWorkers)
struct AppRecordingReaderTests {
    @Test("image events become requests: times from the first event, sizes with the earlier-event rule, the app's outcome kept; the torn last line dropped")
    func imageStream() throws {
        let folder = TemporaryFolder()
        let (requests, facts) = try read(folder.file("app.jsonl", HandRecording.text))
        #expect(requests.map(\.keyText) == ["https://img.example/a.png", "https://img.example/a.png", "https://img.example/b.jpg", "c"])
        #expect(requests.map(\.time) == [0, 0.5, 1.5, 3])
        // The memory hit has no encoded_bytes: 2000 from the earlier event of its key; "c" has none anywhere: 0.
        #expect(requests.map(\.size) == [2000, 2000, 3000, 0])
        #expect(requests.map(\.width) == [100, 100, 20, 0] && requests.map(\.height) == [50, 50, 10, 0])
        #expect(requests[0].id == KeyDigest.parse("https://img.example/a.png").id)
        #expect(requests.map { $0.recorded?.source } == [.network, .memory, .disk, .unknown])
        let first = try #require(requests[0].recorded)
        #expect(first.bytesPerRow == 400 && first.decodedCost == nil && first.contentType == "image/png")
        #expect(first.displayWidth == 50 && first.displayHeight == 25 && first.scale == 2)
        #expect(first.recordedCost(height: 50) == 20_000)
        #expect(requests[2].recorded?.recordedCost(height: 10) == 800)
        #expect(requests.allSatisfy { $0.http == nil })

        let summary = facts.summary
        #expect(summary.tornLastLine)
        #expect(summary.eventsByKind == ["http": 1, "image": 4, "lifecycle": 3, "dropped": 1])
        #expect(summary.unknownKinds == ["future_kind": 1])
        #expect(summary.imageSources == [.network: 1, .memory: 1, .disk: 1, .unknown: 1])
        #expect(summary.imageBytes == 7000)
        #expect(summary.imagesWithoutEncodedBytes == 2 && summary.encodedBytesFromEarlierEvent == 1)
        #expect(summary.imagesWithoutDimensions == 1 && summary.imagesWithoutRecordedCost == 1)
        #expect(summary.droppedEvents == 3 && summary.skippedLines == 0)
        #expect(summary.httpSources == ["network": 1] && summary.failedHTTP == 0)
        #expect(summary.session == "S1" && summary.parts == [0] && summary.appName == "RecordingApp")
        #expect(summary.privacyQuery == "kept" && summary.privacyKeys == "plain")
        #expect(summary.durationSeconds == 3)
        #expect(facts.lifecycle == [
            RecordedLifecycleEvent(kind: .memoryWarning, time: 1, requestsBefore: 2),
            RecordedLifecycleEvent(kind: .background, time: 2, requestsBefore: 3),
            RecordedLifecycleEvent(kind: .foreground, time: 2.5, requestsBefore: 3),
        ])
        #expect(facts.configuration == RecordedCacheConfiguration(imageCache: "own LRU", memoryCostLimit: 4_194_304, costRule: "bytes_per_row*height"))
    }

    @Test("the http stream: each URLSession transaction a request with HTTP facts from its recorded headers")
    func httpStream() throws {
        let folder = TemporaryFolder()
        let (requests, facts) = try read(folder.file("app.jsonl", HandRecording.text), stream: "http")
        let request = try #require(requests.first)
        #expect(requests.count == 1)
        // Its start (0.9 s) is before the first event (its own end, 1.0 s): the stream's origin.
        #expect(request.keyText == "https://img.example/a.png" && request.size == 2000 && request.time == 0)
        let http = try #require(request.http)
        #expect(http.method == "GET" && http.status == 200 && http.mimeType == "image/png")
        #expect(http.cacheControl == "max-age=60" && http.etag == "\"a1\"")
        #expect(http.requestHeaders == ["accept": "image/*"])
        #expect(http.timings.total == 100)  // (1.0 s − 0.9 s) in ms
        // Lifecycle events are placed among the http requests: all three after the one, on its clock.
        #expect(facts.lifecycle.map(\.requestsBefore) == [1, 1, 1])
        #expect(facts.lifecycle.map(\.time) == [1.1, 2.1, 2.6])
    }

    @Test("the http stream is replayed in start order (the file has transactions in end order)")
    func httpStartOrder() throws {
        let folder = TemporaryFolder()
        let lines = [
            HandRecording.header,
            #"{"t":500,"kind":"http","url":"https://x/a","status":200,"body_bytes":1,"start":100,"end":500}"#,
            #"{"t":520,"kind":"lifecycle","event":"background"}"#,
            #"{"t":600,"kind":"http","url":"https://x/b","status":200,"body_bytes":2,"start":50,"end":600}"#,
        ]
        let (requests, facts) = try read(folder.file("o.jsonl", lines.joined(separator: "\n") + "\n"), stream: "http")
        #expect(requests.map(\.keyText) == ["https://x/b", "https://x/a"])
        #expect(requests.map(\.time) == [0, 50e-9])  // origin: b's start, 50 ns
        // Both started before the background at 520 ns.
        #expect(facts.lifecycle == [RecordedLifecycleEvent(kind: .background, time: 470e-9, requestsBefore: 2)])
    }

    @Test("detected by its header line under any name, by .jsonl, and read compressed")
    func detection() throws {
        let folder = TemporaryFolder()
        #expect(try TraceFormat.detect(path: folder.file("app.txt", HandRecording.text)).name == "app-recording")
        #expect(try TraceFormat.detect(path: folder.file("a.jsonl", "{}\n")).name == "app-recording")
        // A HAR is still a HAR.
        #expect(try TraceFormat.detect(path: folder.file("x.json", #"{"log":{"entries":[]}}"#)).name == "har")
        let plain = folder.file("c.jsonl", HandRecording.text)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gzip.arguments = ["gzip", "-k", plain]
        try gzip.run()
        gzip.waitUntilExit()
        #expect(gzip.terminationStatus == 0)
        let (requests, facts) = try read(plain + ".gz")
        #expect(requests.map(\.size) == [2000, 2000, 3000, 0] && facts.summary.tornLastLine)
    }

    @Test("a torn last line: without a line feed, or with one but not JSON; a complete file has none")
    func tornLines() throws {
        let folder = TemporaryFolder()
        let lines = [HandRecording.header] + HandRecording.events
        let complete = try read(folder.file("a.jsonl", lines.joined(separator: "\n") + "\n"))
        #expect(!complete.facts.summary.tornLastLine && complete.requests.count == 4)
        // A complete last event without its line feed is torn too: the recorder ends every line.
        let unterminated = try read(folder.file("b.jsonl", lines.joined(separator: "\n")))
        #expect(unterminated.facts.summary.tornLastLine && unterminated.requests.count == 3)
        let garbage = try read(folder.file("c.jsonl", lines.joined(separator: "\n") + "\n{\"t\":5,\"ki\n\n"))
        #expect(garbage.facts.summary.tornLastLine && garbage.requests.count == 4)
        // Only a header, torn: nothing, and no error.
        let empty = try read(folder.file("d.jsonl", #"{"format":"cache-trace-re"#))
        #expect(empty.requests.isEmpty && empty.facts.summary.tornLastLine)
    }

    @Test("bad lines name their line: missing key or source, wrong types, version, another session, a torn line mid-file, t going back")
    func errors() {
        let h = HandRecording.header
        #expect(failure([h, #"{"t":1,"kind":"image","source":"disk"}"#]) == "2: an image event has no key")
        #expect(failure([h, #"{"t":1,"kind":"image","key":"k"}"#]) == "2: an image event has no source")
        #expect(failure([h, #"{"t":1,"kind":"image","key":"k","source":"cloud"}"#]) == "2: source 'cloud' is not one of memory, disk, network, unknown")
        #expect(failure([h, #"{"t":1,"kind":"image","key":"k","source":"disk","encoded_bytes":"12"}"#])?.hasPrefix("2: encoded_bytes: ") == true)
        #expect(failure([h, #"{"t":1,"kind":"image","key":"k","source":"disk","width":1.5}"#]) == "2: width: 1.5 is not a whole number")
        #expect(failure([h, #"{"t":1,"kind":"image","key":"k","source":"disk","encoded_bytes":-1}"#]) == "2: encoded_bytes -1 is negative")
        #expect(failure([h, #"{"kind":"image","key":"k","source":"disk"}"#]) == "2: t is missing (every event has t and kind)")
        #expect(failure([h, #"{"t":1,"kind":"http"}"#]) == "2: an http event has no url")
        #expect(failure([h, #"{"t":1,"kind":"lifecycle"}"#]) == "2: a lifecycle event has no event")
        #expect(failure([h, #"{"t":1,"kind":"dropped"}"#]) == "2: a dropped event has no count")
        #expect(failure([h.replacingOccurrences(of: #""version":1"#, with: #""version":2"#)])
            == "1: format version 2 is not one this workbench reads (it reads version 1; a newer recorder wrote it)")
        #expect(failure([h.replacingOccurrences(of: #""version":1,"#, with: "")]) == "1: the header has no version")
        #expect(failure([#"{"t":1,"kind":"image","key":"k","source":"disk"}"#])?.hasPrefix("1: not an app recording: the first line is no header") == true)
        #expect(failure([h, #"{"t":1,"kind":"dropped","count":1}"#, h.replacingOccurrences(of: #""S1""#, with: #""S2""#)])
            == "3: a header of another session ('S2', not 'S1'): one recording holds one session")
        #expect(failure([h, #"{"t":1,"kind":"image","key":"#, #"{"t":2,"kind":"dropped","count":1}"#]) == "2: not a JSON object (malformed JSON)")
        #expect(failure([h, #"{"t":5,"kind":"dropped","count":1}"#, #"{"t":4,"kind":"dropped","count":1}"#])?.hasPrefix("3: t 4 is before the previous event's 5") == true)
        #expect(failure([h, "[1,2]"]) == "2: not a JSON object")
    }

    @Test("--skip-bad-rows counts bad event lines and reads on; a bad header is never skipped")
    func skipBad() throws {
        let folder = TemporaryFolder()
        let lines = [HandRecording.header, #"{"t":1,"kind":"image","source":"disk"}"#, #"{"t":2,"kind":"image","key":"k","source":"disk","encoded_bytes":7}"#, "not json", #"{"t":3,"kind":"image","key":"k","source":"memory"}"#]
        let (requests, facts) = try read(folder.file("s.jsonl", lines.joined(separator: "\n") + "\n"), skipBad: true)
        #expect(requests.map(\.size) == [7, 7] && facts.summary.skippedLines == 2)
        #expect(failure([HandRecording.header.replacingOccurrences(of: #""version":1"#, with: #""version":9"#)], skipBad: true)?.hasPrefix("1: format version 9") == true)
    }

    @Test("parts concatenated with cat continue one session; a config event before any image states the configuration, later ones are counted as changes")
    func partsAndConfig() throws {
        let folder = TemporaryFolder()
        let noApp = #"{"format":"cache-trace-recording","version":1,"session":"S","part":0}"#
        let lines = [
            noApp, #"{"t":10,"kind":"config","image_cache":"Kingfisher","memory_cost_limit":1000}"#,
            #"{"t":20,"kind":"image","key":"k","source":"network","encoded_bytes":5}"#,
            noApp.replacingOccurrences(of: #""part":0"#, with: #""part":1"#),
            #"{"t":30,"kind":"config","app":{"memory_cost_limit":500}}"#,
            #"{"t":40,"kind":"image","key":"k","source":"memory"}"#,
        ]
        let (requests, facts) = try read(folder.file("p.jsonl", lines.joined(separator: "\n") + "\n"))
        #expect(requests.map(\.time) == [1e-8, 3e-8])
        #expect(facts.summary.parts == [0, 1] && facts.summary.configurationChanges == 1)
        #expect(facts.configuration == RecordedCacheConfiguration(imageCache: "Kingfisher", memoryCostLimit: 1000))
        #expect(facts.summary.eventsByKind == ["config": 2, "image": 2])
    }

    @Test("the stream option is checked at once and belongs to this format")
    func streamOption() throws {
        let folder = TemporaryFolder()
        let path = folder.file("o.jsonl", HandRecording.text)
        #expect(throws: WorkbenchError.self) { try TraceFile(path: path, formatOptions: [AppRecordingReader.streamOption: "pixels"]) }
        let csv = folder.file("o.csv", "time,key,size\n0,a,1\n")
        #expect(throws: WorkbenchError.self) { try TraceFile(path: csv, formatOptions: [AppRecordingReader.streamOption: "http"]) }
    }

    @Test("pricing rule recorded comes first: decoded_cost, else bytes_per_row × height; dimensions without a recorded cost fall to the dimensions rule")
    func recordedPricing() throws {
        let folder = TemporaryFolder()
        let (requests, _) = try read(folder.file("app.jsonl", HandRecording.text))
        let prices = requests.map { PixelCostRules().price(of: $0) }
        #expect(prices.map(\.source) == [.recorded, .recorded, .recorded, .encoded])
        // 400 bytes per row × 50 rows; 400 × 50 again (memory hit); b's decoded_cost 800 (not 20×10×4 = 800 by chance:
        // see the next request); c has nothing: its encoded size, 0.
        #expect(prices.map(\.cost) == [20_000, 20_000, 800, 0])
        var noCost = Request(time: 0, key: "x", size: 10, width: 3, height: 2)
        noCost.recorded = RecordedImage(source: .disk)
        #expect(PixelCostRules().price(of: noCost).source == .dimensions && PixelCostRules().price(of: noCost).cost == 24)
        var padded = noCost
        padded.recorded = RecordedImage(source: .memory, bytesPerRow: 16)
        #expect(PixelCostRules().price(of: padded).source == .recorded && PixelCostRules().price(of: padded).cost == 32)  // 16 × 2, not 3 × 2 × 4
        var counts = CostSourceCounts()
        for price in prices { counts.count(price) }
        #expect(counts.description == "recorded:3,encoded:1")
    }

    @Test("bench run --cost pixels counts the recorded rule (cost_from_recorded, the table's note); bench price lists it")
    func recordedPricingEndToEnd() throws {
        let folder = TemporaryFolder()
        let path = folder.file("app.jsonl", HandRecording.text)
        let run = try bench(["run", "--trace", path, "--backend", "lru", "--capacity", "1MB", "--cost", "pixels", "--csv", folder.path + "/r.csv"])
        #expect(run.status == 0, "\(run.err)")
        let row = try #require(try csvRows(folder.path + "/r.csv").first)
        // c (size 0) is dropped before pricing: 3 priced, all by the recording.
        #expect(row["cost_from_recorded"] == "3" && row["cost_from_dimensions"] == "0" && row["cost_from_encoded"] == "0")
        #expect(run.out.contains("pixel costs by rule, in requests: recorded:3 "))
        let price = try bench(["price", path])
        #expect(price.status == 0, "\(price.err)")
        #expect(price.out.contains("objects by rule: recorded 2\n") && price.out.contains("requests by rule (a replay's cost_from_* columns): recorded:3\n"))
    }

    @Test("bench stats on a recording: events by kind, the app's split, lifecycle, dropped, torn line, privacy, configuration (text and JSON)")
    func stats() throws {
        let folder = TemporaryFolder()
        let path = folder.file("app.jsonl", HandRecording.text)
        let text = try bench(["stats", path])
        #expect(text.status == 0, "\(text.err)")
        let expected = [
            "recording           session 'S1'; 'CacheTraceRecorder 1.0'; started '2026-11-28T05:00:00Z'; app 'RecordingApp'",
            "events              image 4, http 1, lifecycle 3, config 0, dropped 1; skipped, of kinds not known here: 'future_kind' 1",
            "app's outcome       memory 1 (25.00%), disk 1 (25.00%), network 1 (25.00%), unknown 1 (25.00%) of 4 image requests (the app's memory hit ratio is its memory share)",
            "lifecycle           memory warnings 1, backgrounds 1, foregrounds 1",
            "URLSession log      1 transactions by source: 'network' 1 (cache: URLCache answered without the network); failed 0",
            "dropped events      3 (the recorder's buffer was full: the recording misses them)",
            "torn last line      yes (the app stopped mid-write: the line was dropped)",
            "privacy             query 'kept', keys 'plain'",
            "app configuration   image cache 'own LRU'; memory cost limit 4194304 (4MiB); memory count limit none stated; disk limit none stated; cost rule 'bytes_per_row*height'",
            "image sizes         2 without encoded_bytes (1 sized from an earlier event, 1 as 0 bytes); 1 without width × height; 1 without a recorded cost (priced by the next pixel rule)",
        ]
        for line in expected { #expect(text.out.contains(line + "\n"), "missing: \(line)") }
        #expect(text.out.contains("requests            4\n") && text.out.contains("bytes requested     7000 "))
        let json = try bench(["stats", path, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        let recording = try #require(object["recording"] as? [String: Any])
        #expect(recording["image_sources"] as? [String: Int] == ["memory": 1, "disk": 1, "network": 1, "unknown": 1])
        #expect(recording["events_by_kind"] as? [String: Int] == ["image": 4, "http": 1, "lifecycle": 3, "config": 0, "dropped": 1])
        #expect(recording["lifecycle"] as? [String: Int] == ["memory_warning": 1, "background": 1, "foreground": 1])
        #expect(recording["dropped_events"] as? Int == 3 && recording["torn_last_line"] as? Bool == true)
        #expect((recording["configuration"] as? [String: Any])?["memory_cost_limit"] as? Int == 4_194_304)
        #expect((recording["privacy"] as? [String: String]) == ["query": "kept", "keys": "plain"])
    }

    /// Three image entries and a page, one sending a Cookie; sizes 100, 200, 300 and 50.
    static let har = """
        {"log":{"version":"1.2","creator":{"name":"WebInspector","version":"1"},"entries":[
        {"startedDateTime":"2026-11-28T05:00:00.000Z","time":20,"request":{"method":"GET","url":"https://x.example/","headers":[{"name":"Cookie","value":"s=1"}]},"response":{"status":200,"headers":[{"name":"Cache-Control","value":"no-cache"}],"content":{"size":50,"mimeType":"text/html"}}},
        {"startedDateTime":"2026-11-28T05:00:01.000Z","time":100,"request":{"method":"GET","url":"https://x.example/a.png","headers":[]},"response":{"status":200,"headers":[{"name":"Cache-Control","value":"max-age=60"},{"name":"ETag","value":"\\"a\\""}],"content":{"size":100,"mimeType":"image/png"}}},
        {"startedDateTime":"2026-11-28T05:00:01.050Z","time":10,"request":{"method":"GET","url":"https://x.example/b.jpg","headers":[]},"response":{"status":200,"headers":[],"content":{"size":200,"mimeType":"image/jpeg"}}},
        {"startedDateTime":"2026-11-28T05:00:02.000Z","time":5,"request":{"method":"GET","url":"https://x.example/a.png","headers":[]},"response":{"status":200,"headers":[{"name":"Cache-Control","value":"max-age=60"}],"content":{"size":300,"mimeType":"image/png"}}}
        ]}}
        """

    @Test("bench convert: a HAR → a recording (what it lacks said); stats of the recording equal the HAR's images; read back in both streams")
    func harToRecording() throws {
        let folder = TemporaryFolder()
        let harPath = folder.file("s.har", Self.har)
        let out = folder.path + "/s.jsonl"
        let convert = try bench(["convert", harPath, out])
        #expect(convert.status == 0, "\(convert.err)")
        #expect(convert.out.contains("3 image events and 4 http events written"))
        #expect(convert.out.contains("the app's outcome unknown on all 3 image events"))
        #expect(convert.out.contains("no lifecycle events") && convert.out.contains("3 image events without width × height"))
        #expect(convert.out.contains("1 requests of a non-image type written as http events only"))
        #expect(convert.out.contains("1 requests' Cookie/Authorization headers left out"))
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(!text.contains("s=1") && !text.lowercased().contains("cookie"))
        // The round trip: the recording's image requests are the HAR's image entries.
        let recording = try bench(["stats", out, "--json"])
        let harStats = try bench(["stats", harPath, "--images-only", "--json"])
        let r = try #require(try JSONSerialization.jsonObject(with: Data(recording.out.utf8)) as? [String: Any])
        let h = try #require(try JSONSerialization.jsonObject(with: Data(harStats.out.utf8)) as? [String: Any])
        #expect(r["requests"] as? Int == 3 && h["requests"] as? Int == 3)
        #expect(r["bytes_requested"] as? Int == 600 && h["bytes_requested"] as? Int == 600)
        #expect((r["recording"] as? [String: Any])?["image_sources"] as? [String: Int] == ["memory": 0, "disk": 0, "network": 0, "unknown": 3])
        let (images, _) = try read(out)
        #expect(images.map(\.keyText) == ["https://x.example/a.png", "https://x.example/b.jpg", "https://x.example/a.png"])
        // Seconds since the first event: the page's transaction, ended at 0.02 s.
        #expect(images.map(\.time) == [0.98, 1.03, 1.98])
        let (transactions, _) = try read(out, stream: "http")
        #expect(transactions.map(\.size) == [50, 100, 200, 300])
        #expect(transactions[1].http?.cacheControl == "max-age=60" && transactions[1].http?.etag == "\"a\"")
        #expect(transactions[1].http?.timings.total == 100)
        #expect(transactions[0].http?.requestHeaders["cookie"] == nil && transactions[0].http?.cacheControl == "no-cache")
        // To standard output (written in place), the summary then on stderr.
        let piped = try bench(["convert", harPath, "-", "--to", "app-recording"])
        #expect(piped.status == 0 && piped.out == text && piped.err.contains("3 image events and 4 http events written"))
    }

    @Test("bench convert: a recording → csv keeps its image lookups and counts what stays behind")
    func recordingToCSV() throws {
        let folder = TemporaryFolder()
        let path = folder.file("app.jsonl", HandRecording.text)
        let convert = try bench(["convert", path, folder.path + "/app.csv"])
        #expect(convert.status == 0, "\(convert.err)")
        #expect(convert.out.contains(": 4 requests, "))
        #expect(convert.out.contains("4 requests' app-recorded facts (where the app served it, decoded cost, display size) dropped"))
        #expect(convert.out.contains("3 lifecycle events (memory warnings, backgrounds, foregrounds) dropped"))
        #expect(convert.out.contains("1 http events (the URLSession log, with its headers) dropped"))
        let csv = try String(contentsOfFile: folder.path + "/app.csv", encoding: .utf8)
        #expect(csv == "time,key,size,width,height,op\n0,https://img.example/a.png,2000,100,50,get\n0.5,https://img.example/a.png,2000,100,50,get\n1.5,https://img.example/b.jpg,3000,20,10,get\n3,c,0,,,get\n")
    }

    @Test("bench run --mode http on a recording replays its URLSession log with the recorded headers")
    func httpModeEndToEnd() throws {
        let folder = TemporaryFolder()
        let lines = [
            HandRecording.header,
            #"{"t":100000000,"kind":"http","method":"GET","url":"https://x/a","status":200,"response_headers":{"Cache-Control":"max-age=60"},"body_bytes":10,"start":0,"end":100000000}"#,
            #"{"t":100000000,"kind":"image","key":"https://x/a","source":"network","encoded_bytes":10}"#,
            #"{"t":1100000000,"kind":"http","method":"GET","url":"https://x/a","status":200,"response_headers":{"Cache-Control":"max-age=60"},"body_bytes":10,"start":1000000000,"end":1100000000}"#,
        ]
        let path = folder.file("h.jsonl", lines.joined(separator: "\n") + "\n")
        let run = try bench(["run", "--trace", path, "--mode", "http", "--backend", "lru", "--capacity", "1MB", "--csv", folder.path + "/r.csv"])
        #expect(run.status == 0, "\(run.err)")
        let row = try #require(try csvRows(folder.path + "/r.csv").first)
        // Two transactions (not the one image event); the second is within max-age=60: fresh.
        #expect(row["requests"] == "2" && row["fresh_hits"] == "1" && row["origin_fetches"] == "1")
    }

    @Test("bench stats and bench price take the trace as --trace too, as bench run does: the same output; two traces or none is one line and exit 2")
    func traceOption() throws {
        let folder = TemporaryFolder()
        let path = folder.file("app.jsonl", HandRecording.text)
        for command in ["stats", "price"] {
            let positional = try bench([command, path])
            let named = try bench([command, "--trace", path])
            #expect(positional.status == 0 && named.status == 0, "\(named.err)")
            #expect(named.out == positional.out && !named.out.isEmpty)
            let both = try bench([command, path, "--trace", folder.file("other.jsonl", HandRecording.text)])
            #expect(both.status == 2 && both.err == "bench: error: two traces named (a file and --trace); give one\n", "\(both.err)")
            let none = try bench([command])
            #expect(none.status == 2 && none.err == "bench: error: no trace named: give a file (or --trace FILE)\n", "\(none.err)")
        }
    }
}
