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
/// streamed through a ring of blocks (`BlockRing`: 4 in memory, 16 MiB each as requests, 6 MiB
/// as key records) read on a thread of its own while each core takes them at its own pace,
/// never held whole unless `--preload` asked.
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
    fileprivate final class Lane: @unchecked Sendable {
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
        /// What the blocks held: "key records" (a binary trace's ids, sizes and times, every
        /// point a plain replay) or "requests".
        var blocksOf = "requests"
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
            var parts = ["blocks of \(FannedOutSweep.block) \(blocksOf), read ahead while the cores fed the ones before"]
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
        let curve = curve.map(SharedCurve.init)
        // A binary trace's blocks are key records (24 bytes: id, size, time) when every point
        // reads nothing else (plain replays, as a preloaded trace is replayed): no `Request` is
        // built, copied or destroyed for a simulator that reads ids and sizes in place (on 100M
        // requests of 2 points, building, copying and destroying them took a third of the
        // pass's CPU); another (lirs) is handed requests made from them, 4,096 at a time.
        let keyed = source as? any KeyRecordSource
        let byKeyRecords = keyed != nil && lanes.allSatisfy { $0.replay?.isPlain ?? true }
        // Where the read stands after a block, taken on the reading thread.
        typealias Mark = (progress: Double?, soFar: TraceSummary?)
        let mark: () -> Mark = { (source.progress, gathering?.summarySoFar) }
        /// Feeds every block to each core's lanes (`lane` given) and to the curve (`lane` nil),
        /// each core (and the curve) on a thread of its own taking the blocks of `ring` at its
        /// own pace; this thread reports progress, returns freed pages and checks for an
        /// interruption as the blocks are released.
        func feedBlocks<Element>(
            _ ring: BlockRing<Element, Mark>, progress: (Double) -> Void,
            feed: @escaping @Sendable (UnsafeBufferPointer<Element>, TraceSummary?, Lane?) throws -> Void
        ) throws {
            let failure = FirstError()
            let consumers = DispatchGroup()
            let assignment = LaneAssignment(cores)
            for consumer in 0..<(workers + (curve == nil ? 0 : 1)) {
                consumers.enter()
                let thread = Thread {
                    defer { consumers.leave() }
                    var number = 0
                    while let (elements, mark) = ring.next(consumer) {
                        do {
                            if consumer == workers {  // the last, past the cores: lru's exact curve
                                try feed(elements, mark.soFar, nil)
                            } else {
                                if LaneAssignment.rebalances(before: number) { assignment.rebalance() }
                                for lane in assignment.cores[consumer] where lane.replay != nil {
                                    let began = MonotonicClock.now()
                                    defer { lane.busyNanoseconds += MonotonicClock.now() - began }
                                    try feed(elements, mark.soFar, lane)
                                }
                            }
                        } catch {
                            failure.record(error)
                            ring.cancel()
                            assignment.cancel()
                        }
                        ring.release(consumer)
                        number += 1
                    }
                }
                thread.stackSize = 8 << 20  // the replay loops' frames, as on the main thread
                thread.start()
            }
            var interrupted: (any Error)?
            while let mark = ring.waitForProgress() {
                // Tables that doubled freed their old arrays, which no simulator allocates again:
                // kept (dirty_decay_ms:-1), they would stay resident until exit.
                MemoryProbe.releaseFreedPages()
                if let fraction = mark.progress { progress(fraction) }
                do {
                    try Interruption.check()  // a safe point: between blocks
                } catch {
                    interrupted = error
                    ring.cancel()
                    assignment.cancel()
                }
            }
            consumers.wait()
            try ring.finish()  // always reached (a read under way holds the source); the read's error first: it ends the pass
            if let error = failure.first ?? interrupted { throw error }
        }
        let consumers = workers + (curve == nil ? 0 : 1)
        let bufferBytes: Int
        if let keyed, byKeyRecords {
            let ring = BlockRing<KeyRecord, Mark>(consumers: consumers, blockSize: Self.block, read: { block, _ in
                guard let records = try keyed.nextKeyRecords() else { return 0 }
                block.append(contentsOf: records)
                return records.count
            }, mark: mark)
            try feedBlocks(ring, progress: progress) { records, soFar, lane in
                if let lane, let replay = lane.replay {
                    if replay.takesKeyRecords {
                        replay.feedKeys(records)
                    } else {
                        try Self.feedAsRequests(records, to: replay)
                    }
                } else if lane == nil {
                    try curve?.job.feedKeys(records, soFar: soFar, plan: plan)
                }
            }
            bufferBytes = ring.bufferBytes
        } else {
            let ring = BlockRing<Request, Mark>(consumers: consumers, blockSize: Self.block, read: { try source.append(to: &$0, limit: $1) }, mark: mark)
            try feedBlocks(ring, progress: progress) { requests, soFar, lane in
                if let lane {
                    try lane.replay?.feed(requests)
                } else {
                    try curve?.job.feed(requests, soFar: soFar, plan: plan)
                }
            }
            bufferBytes = ring.bufferBytes
        }
        try gathering?.finish()
        var figures = PassFigures()
        figures.skippedRows = source.skippedRows
        figures.blocksOf = byKeyRecords ? "key records" : "requests"
        if let before = readBefore, let after = ProcessStatusProbe.bytesRead() { figures.bytesRead = after.seen - before.after }
        // A compressed trace is read through a pipe, decompressed: its file size says nothing.
        if let file = trace as? TraceFile, Compression.byExtension(file.path) == nil,
           let head = try? FileHandle(forReadingFrom: URL(fileURLWithPath: file.path)).read(upToCount: Compression.magicLength),
           Compression.byMagic(Array(head)) == nil,
           let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int {
            figures.fileBytes = size
        }
        if let before = heapBefore, let after = MemoryProbe.allocatedBytes() { figures.simulatorHeap = max(0, after - before - bufferBytes) }
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

    /// Feeds `records` to a plain replay that takes requests, made from them 4,096 at a time
    /// (a binary trace's requests carry nothing else a plain replay reads). O(records).
    private static func feedAsRequests(_ records: UnsafeBufferPointer<KeyRecord>, to replay: any FedReplay) throws {
        var requests: [Request] = []
        requests.reserveCapacity(4096)
        var start = records.startIndex
        while start < records.endIndex {
            let end = min(start + 4096, records.endIndex)
            requests.removeAll(keepingCapacity: true)
            for record in records[start..<end] { requests.append(Request(time: record.time, id: record.id, size: record.size)) }
            try requests.withUnsafeBufferPointer { try replay.feed($0) }
            start = end
        }
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

/// Which core's thread feeds which lanes. The plan's cost estimate makes the first split
/// (`SweepPlan.estimate`); at a few blocks (2, 8, 32, then every 128: 33M requests) the cores
/// meet and the lanes are split again by the time each has taken so far, longest first
/// (`balancedGroups`). Why: on 15 policies at 1 MiB of a 1.1-billion-request trace, the
/// estimate put lhd (302 s of feeding) with 180 s of others on one core, and the pass took
/// 484.6 s, 1.26× the lanes' 771 s over 2 cores. A lane moves between cores only there, so it
/// still sees every block in order. O(lanes log lanes) per meeting.
private final class LaneAssignment: @unchecked Sendable {
    /// Each core's lanes; changed only while every core waits in `rebalance`.
    private(set) var cores: [[FannedOutSweep.Lane]]
    private let condition = NSCondition()
    private var arrived = 0
    private var meeting = 0
    private var cancelled = false

    init(_ cores: [[FannedOutSweep.Lane]]) { self.cores = cores }

    /// Whether the cores meet before block `number` (counted from 0).
    static func rebalances(before number: Int) -> Bool {
        number == 2 || number == 8 || number == 32 || (number > 0 && number % 128 == 0)
    }

    /// Waits for every core; the last to arrive splits the lanes again.
    func rebalance() {
        condition.lock()
        defer { condition.unlock() }
        guard !cancelled, cores.count > 1 else { return }
        arrived += 1
        if arrived == cores.count {
            cores = balancedGroups(cores.flatMap { $0 }, workers: cores.count) { Double($0.busyNanoseconds) }
            arrived = 0
            meeting += 1
            condition.broadcast()
            return
        }
        let this = meeting
        while meeting == this && !cancelled { condition.wait() }
    }

    /// Lets every core past (a core stopped: the others must not wait for it).
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}

/// The first error any core's thread met.
private final class FirstError: @unchecked Sendable {
    private let lock = NSLock()
    private var error: (any Error)?
    func record(_ new: any Error) { lock.withLock { error = error ?? new } }
    var first: (any Error)? { lock.withLock { error } }
}
