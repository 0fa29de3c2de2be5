import Foundation
@testable import CacheWorkbench

/// A fresh temporary folder per test, removed when the value goes away.
final class TemporaryFolder {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "cwb-test-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String, _ contents: String) -> String {
        let full = path + "/" + name
        try! Data(contents.utf8).write(to: URL(fileURLWithPath: full))
        return full
    }

    func bytes(_ name: String, _ contents: [UInt8]) -> String {
        let full = path + "/" + name
        try! Data(contents).write(to: URL(fileURLWithPath: full))
        return full
    }
}

/// Reads a whole CSV trace.
func readCSV(_ path: String, keepKeyNames: Bool = true, skipBad: Bool = false) throws -> (requests: [Request], skipped: Int) {
    let reader = try CSVTraceReader(path: path, options: ReadOptions(keepKeyNames: keepKeyNames, skipBadRows: skipBad))
    var requests: [Request] = []
    while let chunk = try reader.nextChunk() { requests.append(contentsOf: chunk) }
    return (requests, reader.skippedRows)
}

/// The error a CSV trace raises, or nil.
func csvError(_ contents: String) -> TraceError? {
    let folder = TemporaryFolder()
    let path = folder.file("t.csv", contents)
    do {
        _ = try readCSV(path)
        return nil
    } catch let error as TraceError {
        return TraceError(path: "t.csv", line: error.line, reason: error.reason)
    } catch {
        return TraceError(path: "t.csv", line: nil, reason: "unexpected \(error)")
    }
}

/// Requests with integer keys and the given sizes, one second apart.
func trace(_ items: [(UInt64, Int)]) -> [Request] {
    items.enumerated().map { index, item in Request(time: Double(index), id: item.0, size: item.1) }
}

/// Replays requests in memory against a fresh backend.
func replay(
    _ requests: [Request], backend: some CacheBackend, capacity: Int, options: ReplayOptions = ReplayOptions()
) throws -> ReplayTally {
    let source = try InMemoryTrace(label: "test", requests: requests).open(keepKeyNames: true)
    return try backend.replay(with: Replayer(source: source, capacity: capacity, options: options))
}

/// Requests of the image-feed generator.
func generated(requests: Int, images: Int? = nil, seed: UInt64 = 1) -> [Request] {
    var spec = ImageFeedSpec()
    spec.requests = requests
    spec.images = images
    spec.seed = seed
    return ImageFeedGenerator(spec: spec).requests()
}

/// Options for replays that charge objects their pixel cost.
var pixelOptions: ReplayOptions {
    var options = ReplayOptions()
    options.costModel = .pixels
    return options
}

/// Replays (key, size) pairs, one second apart, through a policy simulator and returns
/// which requests hit (a miss sets, as demand-fill replay does).
func policyOutcomes(_ backend: some CacheBackend, _ items: [(UInt64, Int)]) throws -> [Bool] {
    var hits: [Bool] = []
    for (index, item) in items.enumerated() {
        let request = Request(time: Double(index), id: item.0, size: item.1)
        let hit = try backend.get(request)
        if !hit { try backend.set(request, cost: item.1, payload: nil) }
        hits.append(hit)
    }
    return hits
}

/// Replays in-memory requests through a backend with the replayer, timing off.
func replayUntimed(_ requests: [Request], backend: any CacheBackend, capacity: Int) throws -> ReplayTally {
    let source = try InMemoryTrace(label: "t", requests: requests).open(keepKeyNames: false)
    var options = ReplayOptions()
    options.timing = false
    return try backend.replay(with: Replayer(source: source, capacity: capacity, options: options))
}

/// A generated Zipf trace with integer keys (`bench gen --keys id`).
func zipfRequests(requests: Int, images: Int, seed: UInt64 = 1) -> [Request] {
    var spec = ImageFeedSpec()
    spec.requests = requests
    spec.images = images
    spec.seed = seed
    spec.keys = .id
    return ImageFeedGenerator(spec: spec).requests()
}
