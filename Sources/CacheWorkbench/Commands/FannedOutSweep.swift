import WorkbenchSimulation
import WorkbenchReports
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Dispatch
import Foundation
import Synchronization

/// A sweep's untimed points run from one read of the trace: every point's backend is made
/// first, then the requests the reader decodes are gathered into blocks of `block` requests
/// and each block is fed to every point in turn (`FedReplay`, the same `ReplaySession` as
/// `Replayer.replay`, so each row equals its own `bench run`). A block is large so that a
/// point's own structures stay warm in the core's caches for many requests (measured on
/// 150 points: 4,096-request batches cost 2.15× the points' isolated replay time, the index
/// and nodes of the other points evicting each one's between batches); the block itself is
/// read sequentially, which the hardware prefetches. The points are split across `workers`
/// cores (each point stays on one core, so it sees the requests in order); the trace is
/// streamed, one block in memory (16 MiB), never held whole unless `--preload` asked.
///
/// `PreloadChoice` leaves it the traces that are not a binary one fitting in memory (those
/// are read into memory once and each point replayed alone: faster, measured).
///
/// Which points: untimed (nothing is timed per request, so points need not run alone),
/// demand-fill or ops mode, no memory warnings, timeline or `--repeat`, and backends that
/// neither write files nor hold materialized payloads (their rows need their own folder or
/// heap). The others run as before, a replay each.
///
/// A row's `req/s` comes from the time its point spent in its own feed calls (its
/// `wall_seconds`), not from the pass's wall time.
///
/// Complexity: one read of the trace; per request, each point's get (and set on a miss).
struct FannedOutSweep {
    /// Requests fed to one point before the next point of the same core gets them (2^18
    /// requests of 64 bytes: 16 MiB).
    static let block = 1 << 18

    /// Whether `backend`'s points of `plan` are fed from the shared read.
    static func fansOut(_ plan: RunPlan, _ backend: BackendKind) -> Bool {
        let options = plan.options
        return !options.timing && options.http == nil && options.memoryWarnings == nil && !options.timeline && plan.repeats <= 1
            && !backend.storesBytes && !(options.materialize && backend.holdsPayloads)
            && !BackendRegistry.optInNames.contains(backend.name)  // learned policies run a process each
            && !backend.needsWholeReplay
            && plan.coldRuns == nil  // each run of a cold point is a replay of its own
    }

    /// One point being fed: its backend, its replay and the time spent feeding it.
    private final class Lane: @unchecked Sendable {
        let point: SweepRun.Point
        let prepared: RunPlan.PreparedPoint
        let plan: RunPlan
        let backend: (any CacheBackend)?
        let replay: (any FedReplay)?
        /// Why the backend could not be made (a failed row), or nil.
        let failure: String?
        let settings: String
        var busyNanoseconds: UInt64 = 0
        var closed = false

        init(point: SweepRun.Point, prepared: RunPlan.PreparedPoint, plan: RunPlan) throws {
            self.point = point
            self.prepared = prepared
            self.plan = plan
            var made: (any CacheBackend)?
            var fed: (any FedReplay)?
            var reason: String?
            do {
                made = try prepared.backend.make(prepared.config)
                fed = try fedReplay(made!, capacity: prepared.bytes, options: prepared.options, sampleMemory: true)
            } catch let error as WorkbenchError {
                try? made?.close()
                throw error  // a bad option: every point of this backend would fail the same way
            } catch {
                reason = String(describing: error)
            }
            (backend, replay, failure, settings) = (made, fed, reason, made?.settings ?? "")
        }
    }

    /// What the pass cost the process, for the note under the table (nil fields where
    /// `/proc` or jemalloc do not say).
    struct PassFigures {
        /// Rows the reader skipped (`--skip-bad`), for a curve fed beside the points.
        var skippedRows = 0
        /// Bytes the process read from the trace's opening to the last block (`rchar`).
        var bytesRead: Int?
        /// The trace file's size, when it is one uncompressed file.
        var fileBytes: Int?
        /// The simulators' heap at the end of the pass: jemalloc's live bytes then, less those
        /// before the first point's backend was made.
        var simulatorHeap: Int?
        /// The process's peak resident set at the end of the pass (`VmHWM`).
        var peakResident: Int?
        /// jemalloc at the end of the pass: where resident memory beyond the live heap is.
        var allocator: MemoryProbe.AllocatorStats?

        /// "one read of 2.4 GB (rchar 2.4 GB); simulators' heap at the end 812 MiB, peak RSS 1.0 GiB"
        var text: String {
            var parts: [String] = []
            if let bytesRead {
                parts.append("the process read \(ByteCount.format(bytesRead)) during the pass (rchar)" + (fileBytes.map { String(format: ", %.3f× the trace file's %@", Double(bytesRead) / Double(max(1, $0)), ByteCount.format($0)) } ?? ""))
            }
            if let simulatorHeap { parts.append("the simulators' heap at the end was \(ByteCount.format(simulatorHeap))") }
            if let peakResident { parts.append("peak RSS \(ByteCount.format(peakResident))") }
            if let allocator {
                parts.append("jemalloc then held \(ByteCount.format(allocator.resident)) resident: \(ByteCount.format(allocator.allocated)) live, "
                    + "\(ByteCount.format(allocator.active - allocator.allocated)) unused in their pages and size classes, "
                    + "\(ByteCount.format(allocator.metadata)) of its metadata, \(ByteCount.format(max(0, allocator.resident - allocator.active - allocator.metadata))) freed and kept")
            }
            return parts.joined(separator: "; ")
        }
    }

    /// Runs `points` (all of which fan out) on `workers` cores; calls `finished` with each
    /// point's row, in `points` order, after the pass. `progress` gets the fraction read.
    @discardableResult
    static func run(
        _ plan: RunPlan, points: [SweepRun.Point], workers: Int, environment: RunEnvironment, curve: SweepRun.LRUCurveJob? = nil,
        progress: (Double) -> Void, finished: (SweepRun.Point, RunResult) throws -> Void
    ) throws -> PassFigures {
        try plan.checkBackendOptions()
        let trace = plan.trace
        let pricesPixels = try plan.autoPricesPixels()
        if plan.options.operations { try RunPlan.checkOperations(trace) }
        let nextAccess = points.contains(where: \.backend.needsFuture) ? try NextAccess.compute(trace) : nil
        // The warm-up's distinct keys, scanned once per warm-up length (not once per point).
        var warmed: [Int: Int] = [:]
        func warmedKeys(_ count: Int) throws -> Int {
            if let known = warmed[count] { return known }
            let keys = try TraceSummary.uniqueKeys(trace, firstRequests: count)
            warmed[count] = keys
            return keys
        }
        let heapBefore = MemoryProbe.allocatedBytes()
        var lanes: [Lane] = []
        defer { for lane in lanes where !lane.closed { try? lane.backend?.close() } }  // after a thrown error
        for point in points {
            var single = plan
            single.backends = [point.backend]
            single.capacities = [point.capacity]
            guard let prepared = try single.preparedPoints(
                point.backend, trace: trace, summaries: plan.knownSummaries, pricesPixels: pricesPixels, nextAccess: nextAccess,
                warmedKeys: warmedKeys
            ).first else { continue }
            lanes.append(try Lane(point: point, prepared: prepared, plan: single))
        }
        // Each core takes whole points, balanced by the plan's cost estimate per request.
        let cores = balancedGroups(lanes, workers: workers, cost: cost)
        // The working-set and warm-up scans are done; their tables' pages go back now.
        MemoryProbe.releaseFreedPages()
        let workers = cores.count
        let readBefore = ProcessStatusProbe.bytesRead()
        // The read gives the trace's facts when they are still to come (`RunPlan.factsPass`).
        let gathering = plan.factsPass.flatMap { $0.isOpen ? $0 : nil }
        let source = try gathering?.open(keepKeyNames: plan.keepsKeyNames) ?? trace.open(keepKeyNames: plan.keepsKeyNames)
        let traceError = Mutex<(any Error)?>(nil)
        let curve = curve.map(SharedCurve.init)
        var block: [Request] = []
        block.reserveCapacity(Self.block)
        func feedBlock() throws {
            block.withUnsafeBufferPointer { buffer in
                // Read-only while the cores share it.
                let shared = SharedRequests(buffer: buffer)
                // lru's exact curve (`SweepRun.lruCurveJob`), when fed here, is one more task.
                DispatchQueue.concurrentPerform(iterations: workers + (curve == nil ? 0 : 1)) { worker in
                    if worker == workers, let curve {
                        do {
                            try curve.job.feed(shared.buffer, plan: plan)
                        } catch {
                            traceError.withLock { $0 = $0 ?? error }
                        }
                        return
                    }
                    for lane in cores[worker] {
                        guard let replay = lane.replay else { continue }
                        let began = MonotonicClock.now()
                        do {
                            try replay.feed(shared.buffer)
                        } catch {
                            traceError.withLock { $0 = $0 ?? error }
                        }
                        lane.busyNanoseconds += MonotonicClock.now() - began
                    }
                }
            }
            block.removeAll(keepingCapacity: true)
            // Tables that doubled freed their old arrays, which no simulator allocates again:
            // kept (dirty_decay_ms:-1), they would stay resident until exit.
            MemoryProbe.releaseFreedPages()
            if let error = traceError.withLock({ $0 }) { throw error }
            if let fraction = source.progress { progress(fraction) }
        }
        while let chunk = try source.nextChunk() {
            try Interruption.check()  // a safe point: between chunks
            block.append(contentsOf: chunk)
            if block.count >= Self.block { try feedBlock() }
        }
        if !block.isEmpty { try feedBlock() }
        try gathering?.finish()
        var figures = PassFigures()
        figures.skippedRows = source.skippedRows
        if let before = readBefore, let after = ProcessStatusProbe.bytesRead() { figures.bytesRead = after.seen - before.after }
        // A compressed trace is read through a pipe, decompressed: its file size says nothing.
        if let file = trace as? TraceFile, Compression.byExtension(file.path) == nil,
           let head = try? FileHandle(forReadingFrom: URL(fileURLWithPath: file.path)).read(upToCount: Compression.magicLength),
           Compression.byMagic(Array(head)) == nil,
           let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int {
            figures.fileBytes = size
        }
        if let before = heapBefore, let after = MemoryProbe.allocatedBytes() { figures.simulatorHeap = max(0, after - before - block.capacity * MemoryLayout<Request>.stride) }
        figures.peakResident = ProcessStatusProbe.peakResidentBytes()
        figures.allocator = MemoryProbe.allocatorStats()
        for lane in lanes {
            var tally: ReplayTally
            if let replay = lane.replay {
                tally = replay.finish(skippedRows: source.skippedRows)
                tally.wallSeconds = Double(lane.busyNanoseconds) / 1e9
                do {
                    lane.closed = true
                    try lane.backend?.close()
                } catch {
                    tally.failure = tally.failure ?? String(describing: error)
                }
            } else {
                tally = ReplayTally()
                tally.failure = lane.failure
            }
            var settled = lane.plan
            settled.applyGatheredFacts()  // the rows carry the facts this pass gave
            let result = settled.result(
                settled.withKnownSummary(lane.prepared), tally: tally, spread: nil, warningCost: nil, settings: lane.settings, measurement: nil,
                runIndex: lane.point.index, trace: trace, loadSeconds: plan.loadSeconds, environment: environment)
            try finished(lane.point, result)
        }
        return figures
    }

    /// A lane's share of a core: the plan's estimate per request (`SweepPlan.estimate`).
    private static func cost(_ lane: Lane) -> Double {
        SweepPlan.estimate(lane.prepared.backend, requests: 1_000_000, capacityBytes: lane.prepared.bytes, materialized: false)
    }
}

/// The curve fed beside the points: on one core per block, never two at once.
private struct SharedCurve: @unchecked Sendable {
    let job: SweepRun.LRUCurveJob
}

/// A chunk's requests, read by several cores at once and written by none.
private struct SharedRequests: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<Request>
}
