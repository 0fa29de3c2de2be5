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

/// The differential check every policy shares: the workbench's policy `backend` against
/// libCacheSim's `reference` (a class of its PyPI package, installed by scripts/bootstrap --python
/// into .venv/, run through scripts/reference_libcachesim.py) on a generated Zipf trace at
/// 1, 8 and 64 MiB and on the same requests with every size 1 at 50, 300 and 1,500 objects.
/// Object and byte hits must be equal. `parameters` are libCacheSim's `name=value`
/// constructor arguments; `options` the workbench's (derived from `parameters` when nil:
/// `_` becomes `-`). `skipping` drops capacities the reference cannot run.
func expectEqualToLibCacheSim(backend: String, reference: String, parameters: [String] = [],
                              options: [String: String]? = nil, skipping: Set<Int> = [],
                              requests: Int = 20_000, images: Int = 2_000,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
    let python = SourceCheckout.root.path + "/.venv/bin/python"
    try #require(FileManager.default.isExecutableFile(atPath: python), "run scripts/bootstrap --python: it makes .venv with libcachesim")
    let folder = TemporaryFolder()
    let (trace, unit) = try libCacheSimTestTraces(in: folder, requests: requests, images: images)
    var workbenchOptions: [String: String] = [:]
    if let options {
        workbenchOptions = options
    } else {
        for parameter in parameters {
            let pair = parameter.split(separator: "=")
            let name = pair[0].replacingOccurrences(of: "_", with: "-").replacingOccurrences(of: "a-in", with: "ain").replacingOccurrences(of: "a-out", with: "aout")
            workbenchOptions[name] = String(pair[1])
        }
    }
    let cases = [(trace, 1 << 20), (trace, 8 << 20), (trace, 64 << 20), (unit, 50), (unit, 300), (unit, 1500)]
    for (trace, capacity) in cases where !(trace != unit && skipping.contains(capacity)) {
        try expectEqualToLibCacheSim(backend: backend, reference: reference, parameters: parameters,
                                     options: workbenchOptions, trace: trace, capacity: capacity,
                                     sourceLocation: sourceLocation)
    }
}

/// The generated Zipf trace of the differential checks (`requests` requests over `images`
/// images, integer ids; `bench gen --requests 20000 --images 2000 --keys id --plain` by
/// default) and the same requests with every size 1, where capacities are object counts.
/// Both are written into `folder`; their bytes are generated once per process and size
/// (`LibCacheSimTraceTexts`), since about fifty checks read the same default pair.
func libCacheSimTestTraces(in folder: TemporaryFolder, requests: Int = 20_000, images: Int = 2_000) throws -> (zipf: String, unit: String) {
    let trace = folder.path + "/zipf.csv"
    let unit = folder.path + "/unit.csv"
    let texts = try LibCacheSimTraceTexts.texts(requests: requests, images: images) {
        var spec = ImageFeedSpec()
        spec.requests = requests
        spec.images = images
        spec.keys = .id
        try TraceExport.write(ImageFeedGenerator(spec: spec), to: trace, shape: .plain)
        let zipf = try Data(contentsOf: URL(fileURLWithPath: trace))
        let lines = String(decoding: zipf, as: UTF8.self).split(separator: "\n").map { line in
            line.split(separator: ",").prefix(2).joined(separator: ",") + ",1"
        }
        return (zipf, Data((lines.joined(separator: "\n") + "\n").utf8))
    }
    try texts.zipf.write(to: URL(fileURLWithPath: trace))
    try texts.unit.write(to: URL(fileURLWithPath: unit))
    return (trace, unit)
}

/// The differential traces' bytes by (requests, images), made once per process: a fixture
/// shared by every test that asks for the same size. The lock is held while the first caller
/// generates, so concurrent first callers wait for it rather than generate twice.
enum LibCacheSimTraceTexts {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: [[Int]: (zipf: Data, unit: Data)] = [:]

    static func texts(requests: Int, images: Int, make: () throws -> (zipf: Data, unit: Data)) throws -> (zipf: Data, unit: Data) {
        lock.lock()
        defer { lock.unlock() }
        if let found = made[[requests, images]] { return found }
        let texts = try make()
        made[[requests, images]] = texts
        return texts
    }
}

/// One trace (`time,key,size` CSV, integer keys) at one capacity in bytes.
func expectEqualToLibCacheSim(backend: String, reference: String, parameters: [String], options: [String: String],
                              trace: String, capacity: Int,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
    let python = SourceCheckout.root.path + "/.venv/bin/python"
    let kind = try BackendRegistry.named(backend)
    var config = BackendConfig(capacityBytes: capacity, options: options)
    if kind.needsFuture { config.nextAccess = try NextAccess.compute(TraceFile(path: trace)) }
    let tally = try replayUntimed(
        try InMemoryTrace.load(TraceFile(path: trace), keepKeyNames: false).requests,
        backend: kind.make(config), capacity: capacity)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [SourceCheckout.root.path + "/scripts/reference_libcachesim.py", reference, String(capacity), trace] + parameters
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, sourceLocation: sourceLocation)
    #expect(text.trimmingCharacters(in: .whitespacesAndNewlines)
        == "hits=\(tally.hits) byte_hits=\(tally.hitBytes) requests=\(tally.requests)", "\(backend) at \(capacity) on \(trace)",
        sourceLocation: sourceLocation)
}
