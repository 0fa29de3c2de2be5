import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Dispatch
import Foundation
import Synchronization

/// Several miss-ratio curves from one read of the trace (`bench mrc --policy lru,s3fifo,arc`):
/// LRU's stack-distance pass (exact, or SHARDS) and, for every online policy, one fed replay
/// per capacity — of every request (exact) or of MiniSim's key sample at rate R (mini caches
/// of capacity × R). The reader's requests are gathered into blocks; each block is sampled
/// once per MiniSim rate and fed to every lane, the lanes split across cores as a fanned-out
/// sweep's points are (`FannedOutSweep`): a lane stays on one core and sees the requests in
/// order, so each curve equals the same curve computed alone (tested). Offline policies need
/// their requests' next accesses before replaying, and PFOO-L counts after the last request
/// (`needsWholeReplay`), so they are not fed (`PolicyMissRatioCurve.exact` and `.miniSim`
/// run them).
///
/// Complexity: one read of n requests; per request, each stack-distance lane's update
/// (`LRUMissRatioCurve`), and for a sampled request each replay lane's get (and set on a
/// miss). Memory: one block (2^18 requests, and a sampled copy per rate) and the lanes' own.
public enum CurveFanOut {
    /// One policy's curve.
    public enum Job {
        /// LRU stack distances (`LRUMissRatioCurve`), sampled by SHARDS when `samplingRate` < 1
        /// or `sampleSize` is set.
        case stackDistances(
            capacities: [Int], samplingRate: Double, sampleSize: Int?, adjusted: Bool, expectedRequests: Int?, expectedKeys: Int?)
        /// An online policy replayed at every capacity × `rate` over the keys MiniSim keeps at
        /// `rate` (1/rate whole; 1 replays every request at every capacity: exact).
        case replays(BackendKind, capacities: [Int], rate: Double)
    }

    public enum Curve {
        case stackDistances(LRUMissRatioCurve.Result)
        case replays(PolicyMissRatioCurve.Result)
    }

    /// Requests gathered before the lanes are fed (2^18 requests of 64 bytes: 16 MiB), large
    /// so that a lane's structures stay warm in its core's caches across many requests.
    static let block = 1 << 18

    /// Every core the process may use.
    public static var defaultWorkers: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// The curves of `jobs`, in order, from one read of `trace` on up to `workers` cores.
    /// `stage` is told what runs; `progress` gets the fraction read.
    public static func run(
        _ jobs: [Job], trace: any Trace, ignoreObjectSize: Bool, seed: UInt64 = 1, workers: Int,
        stage: (String) -> Void = { _ in }, progress: (Double?) -> Void = { _ in }
    ) throws -> [Curve] {
        // Per MiniSim rate (as ⌊1/R⌋): the sampling counts, shared by every policy at that rate.
        var samplers: [UInt64: PolicyMissRatioCurve.Result] = [:]
        var lanes: [Lane] = []
        var backends: [any CacheBackend] = []
        defer { for backend in backends { try? backend.close() } }
        var options = ReplayOptions()
        options.ignoreObjectSize = ignoreObjectSize
        options.seed = seed
        var keepKeyNames = false
        for (job, curve) in jobs.enumerated() {
            switch curve {
            case let .stackDistances(capacities, rate, sampleSize, adjusted, expectedRequests, expectedKeys):
                let pass = LRUMissRatioCurve.Pass(
                    capacities: capacities, ignoreObjectSize: ignoreObjectSize, samplingRate: rate, sampleSize: sampleSize,
                    adjusted: adjusted, expectedRequests: expectedRequests, expectedKeys: expectedKeys)
                // A pass costs about as much as a few replays (tree lines per request).
                lanes.append(Lane(job: job, capacity: 0, cost: sampleSize == nil ? 0.3 * rate : 0.3, inverse: nil, stack: pass, replay: nil))
            case let .replays(kind, capacities, rate):
                precondition(!kind.needsFuture && !kind.needsWholeReplay, "offline policies and whole replays are not fed")
                let inverse = KeySampling.inverse(of: rate)
                if samplers[inverse] == nil {
                    var sampler = PolicyMissRatioCurve.Result(points: [])
                    sampler.inverse = inverse
                    samplers[inverse] = sampler
                }
                keepKeyNames = keepKeyNames || kind.needsKeyNames
                for capacity in capacities {
                    // A mini cache of 0 bytes misses every sampled request (all too large).
                    let mini = inverse == 1 ? capacity : Int(Double(capacity) * rate)
                    guard mini > 0 else {
                        lanes.append(Lane(job: job, capacity: capacity, cost: 0, inverse: inverse, stack: nil, replay: nil))
                        continue
                    }
                    var config = BackendConfig(capacityBytes: mini, seed: seed)
                    if ignoreObjectSize {
                        config.memoryCost = { _ in 1 }
                        config.diskCost = { _ in 1 }
                        config.countsObjects = true
                    }
                    let backend = try kind.make(config)
                    backends.append(backend)
                    let replay = try fedReplay(backend, capacity: mini, options: options)
                    lanes.append(Lane(
                        job: job, capacity: capacity, cost: kind.microsecondsPerRequest / Double(inverse), inverse: inverse, stack: nil,
                        replay: replay, label: "\(kind.label) at capacity \(mini)"))
                }
            }
        }
        let cores = split(lanes, workers: workers)
        stage("\(jobs.count == 1 ? "1 curve" : "\(jobs.count) curves"): \(lanes.count) simulators fed from one read on \(cores.count) \(cores.count == 1 ? "core" : "cores")")
        let source = try trace.open(keepKeyNames: keepKeyNames)
        let failure = Mutex<(any Error)?>(nil)
        var block: [Request] = []
        block.reserveCapacity(Self.block)
        var sampled: [UInt64: [Request]] = [:]
        func feedBlock() throws {
            for inverse in samplers.keys {
                sampled[inverse, default: []].removeAll(keepingCapacity: true)
                samplers[inverse]!.sample(block[...], into: &sampled[inverse, default: []], ignoreObjectSize: ignoreObjectSize)
            }
            do {  // `shared` ends before `block` is emptied, so the block's storage is reused
                let shared = SharedBlocks(whole: block, sampled: sampled)  // read-only while the cores share it
                DispatchQueue.concurrentPerform(iterations: cores.count) { worker in
                    for lane in cores[worker] {
                        do {
                            try lane.feed(shared)
                        } catch {
                            failure.withLock { $0 = $0 ?? error }
                        }
                    }
                }
            }
            block.removeAll(keepingCapacity: true)
            if let error = failure.withLock({ $0 }) { throw error }
            progress(source.progress)
        }
        if cores.count == 1, cores[0].count == 1, samplers.isEmpty, let stack = cores[0][0].stack {
            // One stack-distance pass and nothing to sample: each chunk goes straight to it
            // (gathering chunks into a block copied every request, retains included: a ninth
            // of a lone LRU curve's instructions).
            var chunks = 0
            while let chunk = try source.nextChunk() {
                try chunk.withUnsafeBufferPointer { try stack.feed($0) }
                chunks += 1
                if chunks % 64 == 0 { progress(source.progress) }
            }
        } else {
            while let chunk = try source.nextChunk() {
                block.append(contentsOf: chunk)
                if block.count >= Self.block { try feedBlock() }
            }
            if !block.isEmpty { try feedBlock() }
        }
        // Each job's curve from its lanes, in capacity order.
        var curves: [Curve] = []
        for (job, curve) in jobs.enumerated() {
            let own = lanes.filter { $0.job == job }
            switch curve {
            case .stackDistances:
                curves.append(.stackDistances(own[0].stack!.finish(skippedRows: source.skippedRows)))
            case let .replays(_, _, rate):
                var result = samplers[KeySampling.inverse(of: rate)]!
                result.skippedRows = source.skippedRows
                for lane in own {
                    let mini = result.inverse == 1 ? lane.capacity : Int(Double(lane.capacity) * rate)
                    var point = PolicyMissRatioCurve.Point(capacity: lane.capacity, simulatedCapacity: mini)
                    if let replay = lane.replay {
                        let tally = replay.finish(skippedRows: source.skippedRows)
                        point.hits = tally.hits
                        point.hitBytes = tally.hitBytes
                        point.tooLarge = tally.tooLarge
                    } else {
                        point.tooLarge = result.sampledRequests
                    }
                    result.points.append(point)
                }
                curves.append(.replays(result))
            }
        }
        return curves
    }

    /// The lanes that simulate something, split over `workers` cores (`balancedGroups`).
    private static func split(_ lanes: [Lane], workers: Int) -> [[Lane]] {
        balancedGroups(lanes.filter { $0.stack != nil || $0.replay != nil }, workers: workers, cost: \.cost)
    }

    /// One simulator being fed: a stack-distance pass, or one policy's replay at one capacity.
    private final class Lane: @unchecked Sendable {
        let job: Int
        let capacity: Int
        let cost: Double
        /// ⌊1/R⌋ of the sample a replay lane is fed (1: every request).
        let inverse: UInt64?
        let stack: LRUMissRatioCurve.Pass?
        let replay: (any FedReplay)?
        let label: String

        init(job: Int, capacity: Int, cost: Double, inverse: UInt64?, stack: LRUMissRatioCurve.Pass?, replay: (any FedReplay)?, label: String = "") {
            (self.job, self.capacity, self.cost, self.inverse, self.stack, self.replay, self.label) = (job, capacity, cost, inverse, stack, replay, label)
        }

        func feed(_ blocks: SharedBlocks) throws {
            if let stack {
                try blocks.whole.withUnsafeBufferPointer { try stack.feed($0) }
            } else if let replay, let inverse {
                try blocks.sampled[inverse]!.withUnsafeBufferPointer { try replay.feed($0) }
                // A backend's failure ends its curve: the curve cannot be drawn without it.
                if let failure = replay.tally.failure { throw WorkbenchError("\(label): \(failure)") }
            }
        }
    }
}

/// A block's requests and its samples, read by several cores at once and written by none.
private struct SharedBlocks: @unchecked Sendable {
    let whole: [Request]
    let sampled: [UInt64: [Request]]
}
