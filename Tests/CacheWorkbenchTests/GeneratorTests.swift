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

@Suite("Image-feed generator", .onTestWorkers)
struct GeneratorTests {
    @Test("same spec, same requests; another seed, other requests")
    func deterministic() {
        var spec = ImageFeedSpec()
        spec.requests = 5_000
        let first = ImageFeedGenerator(spec: spec).requests()
        #expect(first == ImageFeedGenerator(spec: spec).requests())
        spec.seed = 2
        #expect(first != ImageFeedGenerator(spec: spec).requests())
        #expect(first.count == 5_000)
    }

    @Test("Zipf sampler frequencies follow k^-alpha")
    func zipf() {
        let sampler = ZipfSampler(count: 1_000, alpha: 0.9)
        var random = SeededRandom(seed: 7)
        var counts = [Int](repeating: 0, count: 1_001)
        let samples = 400_000
        for _ in 0..<samples { counts[sampler.sample(&random)] += 1 }
        let harmonic = (1...1_000).reduce(0.0) { $0 + pow(Double($1), -0.9) }
        for rank in [1, 2, 10, 100] {
            let expected = Double(samples) * pow(Double(rank), -0.9) / harmonic
            // Four binomial standard deviations: a wrong exponent (0.8 or 1.0) misses by far more.
            #expect(abs(Double(counts[rank]) - expected) < 4 * expected.squareRoot(), "rank \(rank): \(counts[rank]) vs \(expected)")
        }
        #expect(counts[0] == 0)
    }

    @Test("variants have realistic pixels and sizes; one image keeps its sizes")
    func variants() {
        var spec = ImageFeedSpec()
        spec.requests = 20_000
        let requests = ImageFeedGenerator(spec: spec).requests()
        #expect(Set(requests.map(\.width)) == [450, 1170, 1290])
        #expect(requests.allSatisfy { $0.size > 1_000 && $0.size < 5_000_000 })
        #expect(requests.allSatisfy { $0.name?.hasPrefix("https://images.example-cdn.com/v2/photos/") == true })
        var sizeOf: [UInt64: Int] = [:]
        for request in requests {
            #expect(sizeOf[request.id, default: request.size] == request.size)
            sizeOf[request.id] = request.size
        }
        #expect(zip(requests, requests.dropFirst()).allSatisfy { $0.time <= $1.time })
    }

    @Test("a generated trace survives a CSV round trip exactly")
    func roundTrip() throws {
        let folder = TemporaryFolder()
        var spec = ImageFeedSpec()
        spec.requests = 3_000
        for keys in ImageFeedSpec.KeyStyle.allCases {
            spec.keys = keys
            let path = folder.path + "/g-\(keys).csv"
            try TraceExport.write(ImageFeedGenerator(spec: spec), to: path, shape: .native(withOp: false))
            #expect(try readCSV(path).requests == ImageFeedGenerator(spec: spec).requests())
            let plain = folder.path + "/p-\(keys).csv"
            try TraceExport.write(ImageFeedGenerator(spec: spec), to: plain, shape: .plain)
            let plainRequests = try readCSV(plain).requests
            #expect(plainRequests.map(\.id) == ImageFeedGenerator(spec: spec).requests().map(\.id))
            #expect(plainRequests.allSatisfy { !$0.hasDimensions })
        }
    }

    @Test("the bundled default trace is what its documented command makes")
    func bundledTrace() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let bundled = root.appendingPathComponent(BundledTrace.relativePath).path
        let folder = TemporaryFolder()
        let fresh = folder.path + "/default.csv"
        try TraceExport.write(ImageFeedGenerator(spec: BundledTrace.spec), to: fresh, shape: .native(withOp: false))
        #expect(FileManager.default.contentsEqual(atPath: bundled, andPath: fresh))
    }
}
