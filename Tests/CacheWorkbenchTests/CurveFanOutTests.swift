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

/// Several policies' curves from one read (issue 23 §2): each equals the same curve computed
/// alone — LRU's stack distances against their own pass, a replay curve against separate
/// replays of the trace (or of MiniSim's sample) at each capacity.
@Suite("Curves of several policies from one read", .onTestWorkers)
struct CurveFanOutTests {
    @Test("stack distances, SHARDS and replay curves fed together on two cores equal each computed alone")
    func together() throws {
        let requests = zipfRequests(requests: 30_000, images: 3_000, seed: 11)
        let trace = InMemoryTrace(label: "t", requests: requests)
        let largest = requests.map(\.size).max()!
        // One capacity below the largest object, so that the too-large rule and bands are in play.
        let capacities = [largest / 3, 2 << 20, 8 << 20, 32 << 20]
        let (s3fifo, arc, fifo) = (try BackendRegistry.named("s3fifo"), try BackendRegistry.named("arc"), try BackendRegistry.named("fifo"))
        let curves = try CurveFanOut.run(
            [
                .stackDistances(capacities: capacities, samplingRate: 1, sampleSize: nil, adjusted: true, expectedRequests: nil, expectedKeys: nil),
                .replays(s3fifo, capacities: capacities, rate: 1),
                .stackDistances(capacities: capacities, samplingRate: 0.5, sampleSize: nil, adjusted: true, expectedRequests: nil, expectedKeys: nil),
                .replays(arc, capacities: capacities, rate: 0.5),
                .replays(fifo, capacities: capacities, rate: 0.5),
            ],
            trace: trace, ignoreObjectSize: false, workers: 2)
        #expect(curves.count == 5)
        // LRU: the same pass alone (itself tested against lru replays).
        for (index, rate) in [(0, 1.0), (2, 0.5)] {
            guard case let .stackDistances(together) = curves[index] else { Issue.record("curve \(index) is not stack distances"); continue }
            let alone = try LRUMissRatioCurve.compute(try trace.open(keepKeyNames: false), capacities: capacities, samplingRate: rate)
            #expect(together.points == alone.points && together.requests == alone.requests, "rate \(rate)")
            #expect(together.points.contains { $0.hits > 0 } && together.points[0].tooLarge > 0)
        }
        // s3fifo, every request: a replay per capacity.
        guard case let .replays(exact) = curves[1] else { Issue.record("curve 1 is not replays"); return }
        #expect(exact.traceRequests == requests.count && exact.sampledRequests == requests.count && exact.inverse == 1)
        for point in exact.points {
            let tally = try replayUntimed(requests, backend: try s3fifo.make(BackendConfig(capacityBytes: point.capacity)), capacity: point.capacity)
            #expect(point.hits == tally.hits && point.hitBytes == tally.hitBytes && point.tooLarge == tally.tooLarge, "s3fifo at \(point.capacity)")
        }
        // arc and fifo at 0.5: one sample, each policy's mini caches replaying it at half the capacity.
        let kept = requests.filter { KeySampling.miniSimKeeps($0.id, inverse: 2) }
        for (index, kind) in [(3, arc), (4, fifo)] {
            guard case let .replays(mini) = curves[index] else { Issue.record("curve \(index) is not replays"); continue }
            #expect(mini.sampledRequests == kept.count && mini.traceRequests == requests.count && mini.inverse == 2)
            for point in mini.points {
                let tally = try replayUntimed(kept, backend: try kind.make(BackendConfig(capacityBytes: point.capacity / 2)), capacity: point.capacity / 2)
                #expect(point.simulatedCapacity == point.capacity / 2 && point.hits == tally.hits && point.tooLarge == tally.tooLarge, "\(kind.label) at \(point.capacity)")
            }
        }
    }

    @Test("bench mrc --policy a,b,c: every policy's rows equal its own bench mrc; one table; bad lists one line, exit 2")
    func command() throws {
        let folder = TemporaryFolder()
        let together = folder.path + "/all.csv"
        let run = try bench(["mrc", "--policy", "lru,s3fifo,belady", "--points", "3", "--csv", together, "--jobs", "2"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("3 policies at 3 capacities") && run.out.contains("s3fifo: exact: one full s3fifo replay per capacity"))
        #expect(run.out.contains("all from one read") && run.out.split(separator: "\n").first?.hasPrefix("policy") == true)
        let rows = try csvRows(together)
        #expect(rows.count == 9)
        for policy in ["lru", "s3fifo", "belady"] {
            let alone = folder.path + "/\(policy).csv"
            let single = try bench(["mrc", "--policy", policy, "--points", "3", "--csv", alone])
            #expect(single.status == 0)
            #expect(rows.filter { $0["policy"] == policy } == (try csvRows(alone)), "\(policy)")
        }
        // PFOO-L computes its bound after the last request: never fed, a replay per capacity,
        // each equal to its own bench run.
        let bound = folder.path + "/pfoo.csv"
        let curve = try bench(["mrc", "--policy", "fifo,pfoo-l", "--points", "3", "--csv", bound])
        #expect(curve.status == 0 && curve.out.contains("pfoo-l: exact: one full pfoo-l replay per capacity") && !curve.out.contains("pfoo-l requests each, all from one read"), "\(curve.out)")
        for row in try csvRows(bound) where row["policy"] == "pfoo-l" {
            let runCSV = folder.path + "/run-\(row["capacity_bytes"]!).csv"
            let run = try bench(["run", "--backend", "pfoo-l", "--capacity", row["capacity_bytes"]!, "--no-timing", "--csv", runCSV])
            let runRows = try csvRows(runCSV)
            #expect(run.status == 0 && runRows.first?["hits"] == row["hits"], "pfoo-l at \(row["capacity_bytes"]!)")
        }
        let boundRows = try csvRows(bound)
        #expect(boundRows.contains { $0["policy"] == "pfoo-l" && Int($0["hits"]!)! > 0 })
        for (arguments, reason) in [
            (["--policy", "lru,arc", "--method", "shards"], "--method shards follows LRU stack distances; for arc"),
            (["--policy", "lru,nscache"], "--policy 'lru,nscache'"),
            (["--policy", "lru,arc", "--sample-size", "100"], "--sample-size is fixed-size SHARDS (lru alone"),
            (["--jobs", "0"], "--jobs must be at least 1"),
        ] {
            let bad = try bench(["mrc"] + arguments)
            #expect(bad.status == 2 && bad.err.hasPrefix("bench: error: ") && bad.err.contains(reason) && bad.err.split(separator: "\n").count == 1, "\(arguments): \(bad.err)")
        }
    }
}
