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

/// MiniSim for any policy, SHARDS at a fixed size and SHARDS_adj (issue 22 §4), against
/// libCacheSim's hash and hand computations.
@Suite("Sampled miss-ratio curves: MiniSim, fixed-size SHARDS, SHARDS_adj", .onTestWorkers)
struct SampledCurveTests {
    /// XXH3_64bits(&id, 8) printed by a C program built on libCacheSim's own
    /// dataStructure/hash/xxh3.h (the values its MRC profilers sample by).
    @Test("XXH3 of an 8-byte id equals libCacheSim's")
    func xxh3() {
        let reference: [(UInt64, UInt64)] = [
            (0, 14_374_147_212_387_527_897), (1, 3_439_722_301_264_460_078), (2, 2_343_778_756_980_564_547),
            (42, 15_395_265_915_043_915_720), (123_456_789, 2_817_400_364_357_085_909),
            (UInt64.max, 5_841_669_975_847_748_627), (10_000_019, 5_362_433_466_337_447_510),
        ]
        for (id, hash) in reference { #expect(LibCacheSimBuckets.hash(id) == hash, "id \(id)") }
    }

    /// Which of ids 1…12 libCacheSim keeps, from the same C program: SHARDS at 0.5
    /// (`XXH3(id) <= 2^63`) and MiniSim at 0.5 (`XXH3(id ^ 10000019) % 2 == 0`).
    @Test("the sampled keys are libCacheSim's")
    func sampledKeys() {
        let threshold = KeySampling.shardsThreshold(rate: 0.5)
        #expect(threshold == 1 << 63)
        #expect((1...12).filter { KeySampling.shardsHash($0) <= threshold } == [1, 2, 3, 6, 9, 11])
        #expect((1...12).filter { KeySampling.miniSimKeeps($0, inverse: 2) } == [1, 3, 4, 6, 7, 8, 9, 10, 11, 12])
        #expect(KeySampling.inverse(of: 0.001) == 1000 && KeySampling.inverse(of: 0.01) == 100)
    }

    private func zipf(_ requests: Int, _ images: Int, seed: UInt64) -> [Request] { zipfRequests(requests: requests, images: images, seed: seed) }

    @Test("MiniSim at rate 1 equals exact replays for several policies; exact equals bench run's replay", arguments: ["lru", "fifo", "s3fifo", "arc", "sieve", "wtinylfu", "belady"])
    func rateOne(policy: String) throws {
        let requests = zipf(20_000, 2_000, seed: 5)
        let trace = InMemoryTrace(label: "t", requests: requests)
        let largest = requests.map(\.size).max() ?? 0
        let capacities = [largest / 2, 1 << 20, 4 << 20, 16 << 20]
        let kind = try BackendRegistry.named(policy)
        let mini = try PolicyMissRatioCurve.miniSim(kind, trace: trace, capacities: capacities, rate: 1, ignoreObjectSize: false)
        let exact = try PolicyMissRatioCurve.exact(kind, trace: trace, capacities: capacities, ignoreObjectSize: false)
        #expect(mini.points == exact.points)
        #expect(mini.sampledRequests == requests.count && mini.traceRequests == requests.count)
        for point in exact.points {
            var config = BackendConfig(capacityBytes: point.capacity)
            if kind.needsFuture { config.nextAccess = try NextAccess.compute(trace) }
            let tally = try replayUntimed(requests, backend: try kind.make(config), capacity: point.capacity)
            #expect(point.hits == tally.hits && point.hitBytes == tally.hitBytes && point.tooLarge == tally.tooLarge, "\(policy) at \(point.capacity)")
            #expect(exact.objectMissRatio(point) == Double(requests.count - tally.hits) / Double(requests.count))
        }
        #expect(exact.points.contains { $0.hits > 0 })
    }

    @Test("MiniSim at 0.5 (one pass, every mini cache fed each chunk) is a replay of the sampled keys at half the capacity, misses × 2 over all requests",
          arguments: ["fifo", "s3fifo", "arc", "lru", "random", "wtinylfu", "lecar"])
    func rateHalf(policy: String) throws {
        let requests = zipf(20_000, 2_000, seed: 6)
        let capacities = [1 << 20, 3 << 20, 9 << 20]
        let kind = try BackendRegistry.named(policy)
        let mini = try PolicyMissRatioCurve.miniSim(kind, trace: InMemoryTrace(label: "t", requests: requests), capacities: capacities, rate: 0.5, ignoreObjectSize: false)
        // By hand: the keys libCacheSim keeps (checked above), replayed at ⌊C × 0.5⌋.
        let kept = requests.filter { LibCacheSimBuckets.hash($0.id ^ 10_000_019) % 2 == 0 }
        #expect(mini.sampledRequests == kept.count && kept.count > 5_000 && kept.count < 15_000)
        for (point, capacity) in zip(mini.points, capacities) {
            let tally = try replayUntimed(kept, backend: try kind.make(BackendConfig(capacityBytes: capacity / 2)), capacity: capacity / 2)
            #expect(point.simulatedCapacity == capacity / 2 && point.hits == tally.hits && point.hitBytes == tally.hitBytes && point.tooLarge == tally.tooLarge)
            // Clamped: the sample may hold more than half the requests (popular keys).
            let expected = min(1, Double(kept.count - tally.hits) * 2 / Double(requests.count))
            #expect(abs((mini.objectMissRatio(point) ?? -1) - expected) < 1e-12, "\(policy) at \(capacity)")
        }
    }

    /// On a deterministic Zipf trace (400k requests, 40k keys, unit sizes) at rate 0.1 each
    /// mini cache holds ~4,000 sampled keys' worth (capacities 1–20% of the keys): MiniSim's
    /// paper reports errors around 0.01 at such sample sizes; 0.03 mean and 0.08 at worst
    /// leave room for the sample's variance at the smallest capacity while failing a wrong
    /// scale (a factor 10 off moves every ratio by far more).
    @Test("MiniSim's error at rate 0.1 is bounded on a Zipf trace", arguments: ["lru", "fifo", "s3fifo", "arc"])
    func bounded(policy: String) throws {
        let requests = zipf(400_000, 40_000, seed: 7)
        let trace = InMemoryTrace(label: "t", requests: requests)
        let capacities = [400, 2_000, 8_000]
        let kind = try BackendRegistry.named(policy)
        let mini = try PolicyMissRatioCurve.miniSim(kind, trace: trace, capacities: capacities, rate: 0.1, ignoreObjectSize: true)
        let exact = try PolicyMissRatioCurve.exact(kind, trace: trace, capacities: capacities, ignoreObjectSize: true)
        let errors = zip(mini.points, exact.points).map { abs(mini.objectMissRatio($0)! - exact.objectMissRatio($1)!) }
        #expect(errors.reduce(0, +) / Double(errors.count) < 0.03 && errors.max()! < 0.08, "\(policy): \(errors)")
    }

    /// Unit sizes, rate 0.5: keys 1, 2 are sampled, 4, 5 are not (libCacheSim's hash, above).
    /// Trace 1 4 2 1 5 2 1 4: sampled 1 2 1 2 1, each weighing 2 (10 against 8 requests).
    /// The repeats of 1, 2, 1 each have one sampled key between: distance 1 + 1 × 2 = 3.
    /// At C ≥ 3: weighted hits 6; SHARDS_adj miss = (10 − 6) / 8 = 0.5, plain (10 − 6) / 10
    /// = 0.4. At C < 3: (10 − 0) / 8 clamped to 1; plain 10 / 10 = 1.
    @Test("SHARDS_adj and plain SHARDS against a hand computation")
    func adjustment() throws {
        let requests = [1, 4, 2, 1, 5, 2, 1, 4].enumerated().map { Request(time: Double($0.offset), id: UInt64($0.element), size: 1) }
        for adjusted in [true, false] {
            let curve = try LRUMissRatioCurve.compute(
                try InMemoryTrace(label: "t", requests: requests).open(keepKeyNames: false), capacities: [1, 2, 3, 4], samplingRate: 0.5, adjusted: adjusted)
            #expect(curve.requests == 5 && curve.weightedRequests == 10 && curve.traceRequests == 8)
            #expect(curve.points.map(\.weightedHits) == [0, 0, 6, 6])
            #expect(curve.points.map { curve.objectMissRatio($0)! } == (adjusted ? [1, 1, 0.5, 0.5] : [1, 1, 0.4, 0.4]))
        }
    }

    @Test("fixed-size SHARDS never holds more than N keys; with N above the keys it is exact")
    func fixedSize() throws {
        let requests = zipf(100_000, 10_000, seed: 8).map { Request(time: $0.time, id: $0.id, size: 1) }
        // At 1,000 and 5,000 objects the sampled cache holds 25 keys or more (~5% of them).
        let capacities = [1_000, 5_000]
        let open = { try InMemoryTrace(label: "t", requests: requests).open(keepKeyNames: false) }
        let exact = try LRUMissRatioCurve.compute(open(), capacities: capacities)
        let bounded = try LRUMissRatioCurve.compute(open(), capacities: capacities, sampleSize: 500)
        #expect(bounded.largestSampleSet == 500)
        #expect(bounded.finalRate > 0.02 && bounded.finalRate < 0.1)  // 500 of ~10,000 keys seen
        for (point, reference) in zip(bounded.points, exact.points) {
            #expect(abs(bounded.objectMissRatio(point)! - exact.objectMissRatio(reference)!) < 0.1, "at \(point.capacity)")
        }
        let whole = try LRUMissRatioCurve.compute(open(), capacities: capacities, sampleSize: 20_000)
        #expect(whole.finalRate == 1 && whole.largestSampleSet == exact.uniqueKeys)
        #expect(whole.points.map(\.hits) == exact.points.map(\.hits))
        #expect(zip(whole.points, exact.points).allSatisfy { whole.objectMissRatio($0) == exact.objectMissRatio($1) })
    }

    @Test("bench mrc: method and rate said in the output and the CSV; bad values one line, exit 2")
    func command() throws {
        let folder = TemporaryFolder()
        let csv = folder.path + "/m.csv"
        let run = try bench(["mrc", "--policy", "s3fifo", "--method", "minisim", "--sampling-rate", "0.5", "--points", "4", "--csv", csv, "--against-exact"])
        #expect(run.status == 0 && run.out.contains("MiniSim (s3fifo) at rate 0.5") && run.out.contains("error against the exact curve"))
        let rows = try csvRows(csv)
        #expect(rows.count == 4 && rows.allSatisfy { $0["method"] == "minisim" && $0["policy"] == "s3fifo" && $0["sampling_rate"] == "0.5" })
        let fixed = try bench(["mrc", "--sample-size", "100", "--points", "3", "--csv", csv])
        #expect(fixed.status == 0 && fixed.out.contains("SHARDS_adj with a fixed sample size of 100 keys"))
        #expect(try csvRows(csv).allSatisfy { $0["method"] == "shards" && $0["sample_size"] == "100" && $0["shards_adjusted"] == "true" })
        let plain = try bench(["mrc", "--sampling-rate", "0.5", "--no-adjust", "--points", "3"])
        #expect(plain.status == 0 && plain.out.contains("plain SHARDS (no adjustment) at rate 0.5"))
        let defaultArc = try bench(["mrc", "--policy", "arc", "--points", "3"])
        #expect(defaultArc.status == 0 && defaultArc.out.contains("exact: one full arc replay per capacity (default for arc"))
        for (arguments, reason) in [
            (["--method", "bogus"], "--method must be exact, shards or minisim"),
            (["--policy", "arc", "--method", "shards"], "--method shards follows LRU stack distances"),
            (["--sample-size", "0"], "--sample-size must be a whole number"),
            (["--policy", "fifo", "--sampling-rate", "0.3"], "1/R must be whole"),
            (["--sample-size", "10", "--sampling-rate", "0.1"], "give one"),
            (["--policy", "nscache"], "--policy 'nscache'"),
        ] {
            let bad = try bench(["mrc"] + arguments)
            #expect(bad.status == 2 && bad.err.hasPrefix("bench: error: ") && bad.err.contains(reason) && bad.err.split(separator: "\n").count == 1, "\(arguments): \(bad.err)")
        }
    }
}
