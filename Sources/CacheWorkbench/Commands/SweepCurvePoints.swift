import WorkbenchSimulation
import WorkbenchReports
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
extension SweepRun {
    /// A sweep's `lru` points from one pass of the exact one-pass curve (`LRUMissRatioCurve`)
    /// instead of one replay each, when that gives the same rows: timing off (a curve has
    /// no latency), demand-fill (the curve knows no HTTP), no warm-up, warnings or timeline (a curve has no time), the encoded or
    /// object cost (the curve sums request sizes), at least two points. The counts are
    /// exact; if a request changed its key's size (where a replay keeps the stored size),
    /// the curve is not used and the points are replayed. Returns nil when it does not apply.
    ///
    /// Whether it applies is decided from the whole `sweep` (at least two `lru` points), never
    /// from the `pending` subset it computes: a point gets the same method, so the same row,
    /// whether it runs in a shard, alone on `--resume`, or with the whole sweep (a shard
    /// holding one `lru` point once replayed it where a local run used the curve).
    func lruCurveJob(_ plan: RunPlan, sweep: [Point], pending: [Point]) -> LRUCurveJob? {
        let isCurvePoint = { (point: Point) in point.backend.name == "lru" && point.backend.variant.isEmpty }
        let points = pending.filter(isCurvePoint)
        let options = plan.options
        guard sweep.filter(isCurvePoint).count >= 2, !points.isEmpty, options.http == nil, !options.operations, !options.timing, options.memoryWarnings == nil, !options.timeline,
              !options.comparesWithApp, !options.replaysBackgrounds, options.warmupRequests == 0, !options.considersObjectMetadata, !options.usesTTL,
              plan.warmupFraction == nil, plan.coldRuns == nil, points.first != nil, (plan.costModel ?? .encoded) == .encoded else { return nil }
        let summary = plan.knownSummaries[.encoded]
        if points.contains(where: { $0.capacity.needsWorkingSet }) && summary == nil { return nil }
        // Sizes whose sum could pass the trees' Ints: the points are replayed (`LRUCurveJob.fits`
        // checks the requests read so far when the facts come from the read).
        if let summary, !LRUMissRatioCurve.sumsFit(summary, ignoreObjectSize: options.ignoreObjectSize) { return nil }
        let bytes = points.map { $0.capacity.resolve(workingSetBytes: summary?.workingSetBytes ?? 0) }
        // Points of one capacity share its figures.
        let pass = LRUMissRatioCurve.Pass(
            capacities: Array(Set(bytes)), ignoreObjectSize: options.ignoreObjectSize,
            expectedRequests: summary?.requests, expectedKeys: summary?.uniqueKeys)
        return LRUCurveJob(points: points, bytes: bytes, pass: pass)
    }

    /// A sweep's `lru` points computed by one exact curve (`lruCurveJob`), fed by its own
    /// read of the trace or beside the fanned-out points in theirs (`FannedOutSweep`).
    final class LRUCurveJob {
        let points: [Point]
        let bytes: [Int]
        let pass: LRUMissRatioCurve.Pass
        /// Whether the curve may stand for the points: false from the chunk after which the
        /// requests read so far could make its trees' sums pass `Int.max`
        /// (`LRUMissRatioCurve.sumsFit`, while the read gathers the trace's facts); the curve
        /// is then fed no more and the points are replayed.
        private(set) var fits = true

        init(points: [Point], bytes: [Int], pass: LRUMissRatioCurve.Pass) {
            (self.points, self.bytes, self.pass) = (points, bytes, pass)
        }

        /// Feeds the curve the next requests of the read, unless they could overflow its sums:
        /// `soFar` is the read's facts taken after these requests were read (`TraceFactsPass`
        /// summarizes a chunk before handing it out), nil when none are gathered. One reader at
        /// a time. O(requests).
        func feed(_ requests: UnsafeBufferPointer<Request>, soFar: TraceSummary?, plan: RunPlan) throws {
            guard stillFits(soFar, plan) else { return }
            try pass.feed(requests)
        }

        /// `feed` for key records.
        func feedKeys(_ records: UnsafeBufferPointer<KeyRecord>, soFar: TraceSummary?, plan: RunPlan) throws {
            guard stillFits(soFar, plan) else { return }
            try pass.feedKeys(records)
        }

        private func stillFits(_ soFar: TraceSummary?, _ plan: RunPlan) -> Bool {
            if fits, let soFar, !LRUMissRatioCurve.sumsFit(soFar, ignoreObjectSize: plan.options.ignoreObjectSize) { fits = false }
            return fits
        }

        /// The curve from a read of its own, which gives the trace's facts when they are still
        /// to come (`RunPlan.factsPass`). O(requests).
        func computeAlone(_ plan: RunPlan) throws -> LRUMissRatioCurve.Result {
            let gathering = plan.factsPass.flatMap { $0.isOpen ? $0 : nil }
            let source = try gathering?.open(keepKeyNames: false) ?? plan.trace.open(keepKeyNames: false)
            while let chunk = try source.nextChunk() {
                try Interruption.check()
                try chunk.withUnsafeBufferPointer { try feed($0, soFar: plan.factsPass?.summarySoFar, plan: plan) }
            }
            try gathering?.finish()
            return pass.finish(skippedRows: source.skippedRows)
        }
    }

    /// The rows of the curve's points, or nil when the curve cannot stand for replays (a
    /// request changed its key's size, or the sizes read could overflow its sums and it
    /// stopped: the points are replayed instead).
    func lruPointsFromCurve(_ job: LRUCurveJob, curve: LRUMissRatioCurve.Result, plan: RunPlan, environment: RunEnvironment) -> [Int: RunResult]? {
        let (points, bytes, lru) = (job.points, job.bytes, job.points[0].backend)
        guard curve.sizeChanges == 0, job.fits else { return nil }
        var results: [Int: RunResult] = [:]
        for (point, capacity) in zip(points, bytes) {
            guard let measured = curve.points.first(where: { $0.capacity == capacity }) else { return nil }
            results[point.index] = plan.curvePointResult(
                index: point.index, capacity: point.capacity, bytes: capacity, backend: lru.name, measured: measured,
                curve: curve, environment: environment)
        }
        return results
    }
}
