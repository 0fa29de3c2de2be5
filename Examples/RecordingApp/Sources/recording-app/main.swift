#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CacheTraceRecorder
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// recording-app --server URL --out DIR [--memory-limit BYTES]
// Stands in for an app: a fixed, sequential sequence of 60 image lookups against its own LRU
// memory cache (AppMemoryCache), misses fetched through a URLSession recorded by the
// NetworkRecorder, a memory warning after lookup 30 and a background/foreground pair after
// lookup 44, every lookup recorded with where it was served from. Writes DIR/recording-0.jsonl.
// Hidden: --crash-after N (record N events then SIGKILL itself, for the torn-line test),
// --measure N (the recorder's cost per event and its memory bound), --caller-only N and
// --caller-baseline N (N events with the writer held off, and the same run without them, for
// counting the caller's instructions with callgrind).

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("recording-app: error: \(message)\n".utf8))
    exit(2)
}

var server: URL?
var out: URL?
var memoryLimit = 1 << 20
var crashAfter: Int?
var measure: Int?
var callerOnly: (events: Int, record: Bool)?
var arguments = CommandLine.arguments.dropFirst()
@MainActor func value(_ option: String) -> String {
    guard let text = arguments.popFirst() else { fail("\(option) needs a value") }
    return text
}
@MainActor func count(_ option: String) -> Int {
    let text = value(option)
    guard let number = Int(text), number > 0 else { fail("\(option) '\(text)' is not a positive integer") }
    return number
}
while let argument = arguments.popFirst() {
    switch argument {
    case "--server":
        let text = value(argument)
        guard let url = URL(string: text), url.scheme == "http" else { fail("--server '\(text)' is not an http URL") }
        server = url
    case "--out": out = URL(fileURLWithPath: value(argument))
    case "--memory-limit": memoryLimit = count(argument)
    case "--crash-after": crashAfter = count(argument)
    case "--measure": measure = count(argument)
    case "--caller-only": callerOnly = (count(argument), true)
    case "--caller-baseline": callerOnly = (count(argument), false)
    default: fail("unknown argument '\(argument)' (usage: recording-app --server URL --out DIR [--memory-limit BYTES])")
    }
}
guard let out else { fail("--out DIR is required") }

if let measure {
    RecorderMeasurement.run(events: measure, folder: out)
    exit(0)
}
if let callerOnly {
    RecorderMeasurement.callerOnly(events: callerOnly.events, record: callerOnly.record, folder: out)
}
if let crashAfter {
    RecorderMeasurement.crash(after: crashAfter, folder: out)
}
guard let server else { fail("--server URL is required") }

let recorder: TraceRecorder
do {
    recorder = try TraceRecorder(configuration: .init(
        folder: out,
        app: CacheConfiguration(name: "RecordingApp", imageCache: "own LRU", memoryCostLimit: memoryLimit, costRule: "bytes_per_row*height")))
} catch {
    fail("\(error)")
}
let configuration = URLSessionConfiguration.ephemeral
configuration.urlCache = URLCache(memoryCapacity: 8 << 20, diskCapacity: 0, diskPath: nil)
let network = NetworkRecorder(recorder: recorder, configuration: configuration)
let session = URLSession(configuration: network.sessionConfiguration)

let names = [
    "photo-1.png", "photo-2.png", "photo-3.png", "photo-4.png", "banner.png",
    "thumb-1.jpg", "thumb-2.jpg", "photo-5.jpg", "photo-6.jpg", "poster.jpg",
]
/// A feed scrolled back and forth: reuse, evictions at 1 MiB, the poster larger than it.
let sequence = [
    0, 1, 5, 6, 0, 1, 2, 5, 3, 0, 6, 7, 1, 4, 5, 0, 8, 2, 9, 1,
    0, 5, 6, 7, 3, 8, 1, 0, 9, 4,
    0, 1, 5, 6, 2, 0, 7, 1, 3, 5, 8, 0, 6, 4,
    0, 1, 2, 5, 6, 9, 7, 0, 3, 8, 1, 5, 4, 6, 0, 2,
]

/// Fetches with the app's own credentials set (the recording must not keep them).
@MainActor func fetch(_ url: URL) async throws -> (Data, HTTPURLResponse) {
    var request = URLRequest(url: url)
    request.setValue("Bearer app-token-123", forHTTPHeaderField: "Authorization")
    request.setValue("session=app-cookie-456", forHTTPHeaderField: "Cookie")
    request.setValue("image/png,image/jpeg", forHTTPHeaderField: "Accept")
    let (data, response) = try await session.data(for: request)
    guard let http = response as? HTTPURLResponse, http.statusCode == 200 else {
        throw URLError(.badServerResponse)
    }
    return (data, http)
}

var cache = AppMemoryCache(limit: memoryLimit)
var served = (memory: 0, network: 0)
do {
    for (index, name) in sequence.map({ names[$0] }).enumerated() {
        if index == 30 {
            recorder.lifecycle(.memoryWarning)
            cache.removeAll()
        }
        if index == 44 {
            // This app's cache keeps its images in the background.
            recorder.lifecycle(.background)
            recorder.lifecycle(.foreground)
        }
        let url = server.appendingPathComponent("images").appendingPathComponent(name)
        let key = url.absoluteString
        let source: ImageSource
        let image: CachedImage
        if let hit = cache.image(for: key) {
            image = hit
            source = .memory
            served.memory += 1
        } else {
            let (data, response) = try await fetch(url)
            guard let header = ImageHeader(Array(data)) else { fail("\(key): not a PNG or JPEG (\(data.count) bytes: \(Array(data.prefix(16))))") }
            image = CachedImage(
                width: header.width, height: header.height, bytesPerRow: header.width * 4, encodedBytes: data.count,
                contentType: response.value(forHTTPHeaderField: "Content-Type") ?? header.contentType)
            cache.insert(image, for: key)
            source = .network
            served.network += 1
        }
        // Shown at half its pixel size in points on a 2× screen.
        recorder.image(
            key: key, source: source, encodedBytes: image.encodedBytes, width: image.width, height: image.height,
            bytesPerRow: image.bytesPerRow, decodedCost: image.cost,
            displaySize: CGSize(width: Double(image.width) / 2, height: Double(image.height) / 2), scale: 2,
            contentType: image.contentType)
    }
} catch {
    recorder.close()
    FileHandle.standardError.write(Data("recording-app: error: \(error)\n".utf8))
    exit(1)
}
recorder.close()
network.invalidate()
if let failure = recorder.failure { fail("\(failure)") }
print("RecordingApp: \(sequence.count) lookups (memory \(served.memory), network \(served.network)), 1 memory warning, 1 background/foreground pair → \(out.path)/recording-0.jsonl")
