import Foundation
import Testing
@testable import CacheWorkbench

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

@Suite("App recording reader")
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
        #expect(request.keyText == "https://img.example/a.png" && request.size == 2000 && request.time == 0)
        let http = try #require(request.http)
        #expect(http.method == "GET" && http.status == 200 && http.mimeType == "image/png")
        #expect(http.cacheControl == "max-age=60" && http.etag == "\"a1\"")
        #expect(http.requestHeaders == ["accept": "image/*"])
        #expect(http.timings.total == 100)  // (1.0 s − 0.9 s) in ms
        // Lifecycle events are placed among the http requests: all three after the one.
        #expect(facts.lifecycle.map(\.requestsBefore) == [1, 1, 1])
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
}
