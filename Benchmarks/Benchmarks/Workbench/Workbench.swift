import Benchmark
import CacheWorkbench
import Foundation
import MinimalLoops

// Thresholds: `swift package benchmark baseline check` fails when a benchmark's p50 wall
// clock is more than 60% above the stored baseline's, or its p50 throughput more than 40%
// below (300% / 75% for the disk benchmarks, whose fsync and writeback times swing by an
// order of magnitude on a shared machine). A lost specialization halves a policy's
// throughput, which this catches; back-to-back runs of one build on the shared 2-core
// development VM differed by up to 28% on most benchmarks but once by 90% on the
// shortest (3 ms batches), so check on a quiet machine and rerun before believing a hit.
private func thresholds(disk: Bool) -> [BenchmarkMetric: BenchmarkThresholds] {
    [.wallClock: .init(relative: [.p50: disk ? 300 : 60]), .throughput: .init(relative: [.p50: disk ? 75 : 40])]
}

/// Each run of a benchmark's closure does the whole batch its name says (200k requests,
/// 100k gets): wall clock is per batch, throughput is batches per second.
private func configuration(iterations: Int = 40, disk: Bool = false) -> Benchmark.Configuration {
    .init(metrics: [.wallClock, .throughput], timeUnits: .microseconds,
          maxDuration: .seconds(5), maxIterations: iterations, thresholds: thresholds(disk: disk))
}

/// The Zipf trace every policy benchmark replays (integer keys, 200k requests).
private func zipf(requests: Int = 200_000) -> [Request] {
    var spec = ImageFeedSpec()
    spec.requests = requests
    spec.keys = .id
    return ImageFeedGenerator(spec: spec).requests()
}

/// Replays `requests` through `backend` with timing off (the policy-throughput measure).
private func replay(_ requests: [Request], _ backend: any CacheBackend, capacity: Int) throws -> Int {
    var options = ReplayOptions()
    options.timing = false
    let source = try InMemoryTrace(label: "zipf", requests: requests).open(keepKeyNames: false)
    return try backend.replay(with: Replayer(source: source, capacity: capacity, options: options)).hits
}

/// `count` keys that share a long prefix and suffix: the similar-key case.
private func similarKeys(_ count: Int, length: Int) -> [String] {
    (0..<count).map { index in
        let middle = String(index)
        let pad = max(0, length - middle.count)
        return String(repeating: "a", count: pad / 2) + middle + String(repeating: "z", count: pad - pad / 2)
    }
}

let benchmarks: @Sendable () -> Void = {
    let requests = zipf()

    // Throughput of every policy simulator (and the bound) on the same trace, 64 MiB.
    for kind in (try? BackendRegistry.list(parsing: "policies")) ?? [] {
        Benchmark("policy \(kind.name) 200k requests 64MiB", configuration: configuration()) { benchmark in
            var config = BackendConfig(capacityBytes: 64 << 20)
            if kind.needsFuture { config.nextAccess = try NextAccess.compute(InMemoryTrace(label: "zipf", requests: requests)) }
            let backend = try kind.make(config)
            benchmark.startMeasurement()
            blackHole(try replay(requests, backend, capacity: 64 << 20))
        }
    }

    // The minimal loop of each policy family on the same requests (ids and sizes packed in
    // two arrays): the machine's practical limit, the anchor of `policy X` in check-ratios.
    let packed = PackedTrace(ids: requests.map(\.id), sizes: requests.map { UInt32(clamping: $0.size) })
    for policy in MinimalPolicy.allCases {
        Benchmark("minimal \(policy.rawValue) 200k requests 64MiB", configuration: configuration()) { _ in
            blackHole(MinimalLoop.hits(policy, packed, capacity: 64 << 20))
        }
    }

    // The exact LRU curve at 100 capacities, each holding the largest object (one tree, no
    // bands), and the minimal exact curve on the same requests: the curve's practical limit,
    // the anchor of `curve lru` in check-ratios (issue 23 §2).
    let largest = requests.map(\.size).max() ?? 1
    let curveCapacities = Set((0..<100).map { Int(Double(largest) * pow(4096, Double($0) / 99)) }).sorted()
    let distinctKeys = Set(requests.map(\.id)).count
    Benchmark("curve lru 200k requests 100 capacities", configuration: configuration()) { benchmark in
        let source = try InMemoryTrace(label: "zipf", requests: requests).open(keepKeyNames: false)
        benchmark.startMeasurement()
        blackHole(try LRUMissRatioCurve.compute(source, capacities: curveCapacities, expectedKeys: distinctKeys).points.count)
    }
    Benchmark("minimal curve 200k requests 100 capacities", configuration: configuration()) { _ in
        blackHole(MinimalCurve.hits(packed, capacities: curveCapacities, distinctKeys: distinctKeys))
    }

    // Each memory backend's get (hit and miss) and set, 100k small objects by URL key.
    let keys = (0..<100_000).map { "https://images.example-cdn.com/v2/photos/\($0)/feed.jpg?w=1170" }
    let objects = keys.enumerated().map { Request(time: Double($0.offset), key: $0.element, size: 1000) }
    let absent = keys.enumerated().map { Request(time: 0, key: $0.element + "&miss", size: 1000) }
    for name in ["nscache", "autopurge", "autopurge-o1", "foundation-nscache", "lru"] {
        Benchmark("\(name) set 100k", configuration: configuration()) { benchmark in
            let backend = try BackendRegistry.named(name).make(BackendConfig(capacityBytes: 1 << 30))
            benchmark.startMeasurement()
            for request in objects { try backend.set(request, cost: 1000, payload: nil) }
        }
        Benchmark("\(name) get hit 100k", configuration: configuration()) { benchmark in
            let backend = try BackendRegistry.named(name).make(BackendConfig(capacityBytes: 1 << 30))
            for request in objects { try backend.set(request, cost: 1000, payload: nil) }
            benchmark.startMeasurement()
            for request in objects { blackHole(try backend.get(request)) }
        }
        Benchmark("\(name) get miss 100k", configuration: configuration()) { benchmark in
            let backend = try BackendRegistry.named(name).make(BackendConfig(capacityBytes: 1 << 30))
            for request in objects { try backend.set(request, cost: 1000, payload: nil) }
            benchmark.startMeasurement()
            for request in absent { blackHole(try backend.get(request)) }
        }
    }

    // Disk backends: set and get of 2,000 4 KiB bodies in a fresh folder.
    for name in ["sqlite", "files"] {
        let small = Array(objects.prefix(2000))
        Benchmark("\(name) set and get 2k 4KiB", configuration: configuration(iterations: 5, disk: true)) { benchmark in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cwb-bench-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            var config = BackendConfig(capacityBytes: 1 << 30)
            config.disk = DiskContext(directory: folder + "/" + name, probe: DiskIOProbe())
            let backend = try BackendRegistry.named(name).make(config)
            let bodies = try small.map { try Payload(contentFor: $0.keyText, byteCount: 4096) }
            benchmark.startMeasurement()
            for (request, body) in zip(small, bodies) { try backend.set(request, cost: 4096, payload: body) }
            for request in small { blackHole(try backend.get(request)) }
            benchmark.stopMeasurement()
            try backend.close()
        }
    }

    // CFStringHash (what NSCache hashes: length and at most 96 characters) against the full
    // hash at several key lengths.
    for length in [16, 64, 256, 1024] {
        let texts = similarKeys(10_000, length: length)
        Benchmark("CFStringHash 10k keys of \(length)", configuration: configuration()) { _ in
            for text in texts { blackHole(CFStringHash.hash(text)) }
        }
        Benchmark("full hash 10k keys of \(length)", configuration: configuration()) { _ in
            for text in texts {
                var hasher = Hasher()
                hasher.combine(text)
                blackHole(hasher.finalize())
            }
        }
    }

    // Ingest: the same 1M requests as native CSV and as oracleGeneral, written to a fresh
    // temporary folder before each measurement and removed after it.
    let million = zipf(requests: 1_000_000)
    for label in ["CSV", "oracleGeneral"] {
        Benchmark("ingest \(label) 1M requests", configuration: configuration(iterations: 10)) { benchmark in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cwb-ingest-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let path = folder + (label == "CSV" ? "/zipf.csv" : "/zipf.oracleGeneral.bin")
            if label == "CSV" {
                try TraceExport.write(InMemoryTrace(label: "zipf", requests: million), to: path, shape: .plain)
            } else {
                try OracleGeneralWriter.write(million, label: "zipf", to: path)
            }
            benchmark.startMeasurement()
            // What `--preload` does: CSV becomes requests, oracleGeneral stays packed records.
            blackHole(try InMemoryTrace.preload(try TraceFile(path: path), keepKeyNames: false))
            benchmark.stopMeasurement()
        }
    }

    // `nscache --key-hash full` get against a plain Dictionary<String, Int> on the same
    // 100k keys: the memory backend's overhead over the bare hash table.
    Benchmark("nscache key-hash=full get hit 100k", configuration: configuration()) { benchmark in
        let backend = try BackendRegistry.named("nscache").make(BackendConfig(capacityBytes: 1 << 30, options: ["key-hash": "full"]))
        for request in objects { try backend.set(request, cost: 1000, payload: nil) }
        benchmark.startMeasurement()
        for request in objects { blackHole(try backend.get(request)) }
    }
    Benchmark("Dictionary<String, Int> get hit 100k", configuration: configuration()) { benchmark in
        var dictionary: [String: Int] = [:]
        for (index, key) in keys.enumerated() { dictionary[key] = index }
        let lookups = objects.map(\.keyText)
        benchmark.startMeasurement()
        for key in lookups { blackHole(dictionary[key]) }
    }
}
