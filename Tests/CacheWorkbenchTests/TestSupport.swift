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

/// A fresh temporary folder per test, removed when the value goes away.
final class TemporaryFolder {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "cwb-test-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    @discardableResult
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

/// The built `bench` executable (it sits next to the test binary).
var builtBench: String {
    get throws {
        URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .deletingLastPathComponent().appendingPathComponent("bench").path
    }
}

/// Runs `program` under coreutils' `timeout` (exit 124, or 137 if it had to kill), so a
/// hang is a failed test, not a stuck suite. Output goes through files read once it has
/// exited: no pipe to drain while it runs, and a grandchild holding one cannot block.
/// `environment` is added to this process's own.
func runBounded(
    _ seconds: Int, _ program: String, _ arguments: [String], in folder: String? = nil, environment: [String: String] = [:]
) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    process.arguments = ["-k", "5", String(seconds), program] + arguments
    if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    let capture = TemporaryFolder()
    let files = [capture.file("out", ""), capture.file("err", "")]
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: files[0]))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: files[1]))
    try process.run()
    process.waitUntilExit()
    let (out, err) = try (Data(contentsOf: URL(fileURLWithPath: files[0])), Data(contentsOf: URL(fileURLWithPath: files[1])))
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}

/// Expects `ImageURLDimensions.infer(url)` to read width × height from the URL by `rule`
/// (the URL-convention tables of HonestAnswerTests and PriceTests share it).
func expectInferredDimensions(_ url: String, width: Int, height: Int, rule: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let found = ImageURLDimensions.infer(url)
    #expect(found.map { Int($0.width) } == width && found.map { Int($0.height) } == height && found?.rule.rawValue == rule,
            "\(String(describing: found))", sourceLocation: sourceLocation)
}

/// The calling thread's CPU time in seconds (`CLOCK_THREAD_CPUTIME_ID`): what a bound on an
/// algorithm's work measures, whatever else shares the cores.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The bundled trace's first requests as a trace of their own, for tests whose timed disk
/// rows need the trace's kind of requests, not all 50,000 of them (a debug build's disk
/// writes dominate a test's time otherwise).
enum DefaultTracePrefix {
    /// Writes the header and the first `requests` rows of Traces/default.csv to
    /// `first-N.csv` in `folder`, and returns its path.
    static func write(requests: Int, into folder: TemporaryFolder) throws -> String {
        let text = try String(contentsOf: SourceCheckout.root.appendingPathComponent("Traces/default.csv"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(requests + 1)
        #expect(lines.count == requests + 1, "Traces/default.csv holds fewer than \(requests) requests")
        return folder.file("first-\(requests).csv", lines.joined(separator: "\n") + "\n")
    }
}
