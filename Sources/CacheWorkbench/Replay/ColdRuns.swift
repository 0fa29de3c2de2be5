import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// One run's counts under `--har-runs cold` (`HARRunSplit`): what its own hit ratios are
/// made of.
public struct RunFigures: Sendable, Equatable {
    public var requests = 0
    public var hits = 0
    public var requestedBytes: ByteTotal = 0
    public var hitBytes: ByteTotal = 0

    public init(requests: Int = 0, hits: Int = 0, requestedBytes: ByteTotal = 0, hitBytes: ByteTotal = 0) {
        self.requests = requests
        self.hits = hits
        self.requestedBytes = requestedBytes
        self.hitBytes = hitBytes
    }

    public var objectHitRatio: Double? { requests > 0 ? Double(hits) / Double(requests) : nil }
    public var byteHitRatio: Double? { requestedBytes > 0 ? hitBytes.asDouble / requestedBytes.asDouble : nil }
}

/// The per-run hit ratios of a cold row: their mean and range. A run without requests (or
/// bytes) has no ratio and is left out of the mean, which is over the runs that have one.
public struct RunRatios: Sendable, Equatable {
    public var values: [Double]

    init(_ values: [Double?]) { self.values = values.compactMap { $0 } }

    public var mean: Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }
    public var min: Double? { values.min() }
    public var max: Double? { values.max() }
}

extension ReplayTally {
    /// `--har-runs cold`: the object and byte hit ratios of each run, in run order.
    public var runObjectHitRatios: RunRatios? { runs.map { RunRatios($0.map(\.objectHitRatio)) } }
    public var runByteHitRatios: RunRatios? { runs.map { RunRatios($0.map(\.byteHitRatio)) } }
}

/// `--har-runs cold`: one replay per run, each of a fresh backend (a fresh folder for a disk
/// backend), combined into one row's tally. Counts add up (the row's hits and requests are
/// totals, so its ceiling stays requests − compulsory misses), latencies are one histogram
/// over every run's calls, memory peaks are the largest of any run, evictions add up, and
/// warnings, timeline samples and outcomes follow one another with request indices counted
/// from the first run's start. The gauges of the end (final entries, accounted bytes, a
/// tier's disk entries, the disk footprint) are the last run's. Each run keeps its own
/// figures (`ReplayTally.runs`). O(runs + warnings + samples + outcomes).
enum ColdRuns {
    /// The tallies of consecutive runs as one; a run that failed ends the list (its
    /// failure is the row's).
    static func combine(_ parts: [ReplayTally]) -> ReplayTally {
        guard var total = parts.first else { return ReplayTally() }
        total.runs = [figures(total)]
        for part in parts.dropFirst() { add(part, to: &total) }
        total.get = nil
        var gets = LatencyRecorder()
        var sawTiming = false
        var hits = LatencyRecorder(), misses = LatencyRecorder(), sets = LatencyRecorder()
        for part in parts {
            guard let recorders = part.latencyRecorders else { continue }
            sawTiming = true
            hits.add(recorders.getHit)
            misses.add(recorders.getMiss)
            sets.add(recorders.set)
        }
        if sawTiming {
            gets.add(hits)
            gets.add(misses)
            total.get = gets.summary
            total.getHit = hits.summary
            total.getMiss = misses.summary
            total.set = sets.summary
            total.latencyRecorders = .init(getHit: hits, getMiss: misses, set: sets)
        }
        return total
    }

    static func figures(_ tally: ReplayTally) -> RunFigures {
        RunFigures(requests: tally.requests, hits: tally.hits, requestedBytes: tally.requestedBytes, hitBytes: tally.hitBytes)
    }

    /// Adds the run after `total`'s runs.
    private static func add(_ part: ReplayTally, to total: inout ReplayTally) {
        let offset = total.requests
        total.runs!.append(figures(part))
        total.traceRequests += part.traceRequests
        total.requests += part.requests
        total.sets += part.sets
        total.deletes += part.deletes
        total.hits += part.hits
        total.requestedBytes += part.requestedBytes
        total.hitBytes += part.hitBytes
        total.droppedZeroSize += part.droppedZeroSize
        total.logicalWriteBytes += part.logicalWriteBytes
        total.tooLarge += part.tooLarge
        total.skippedRows = max(total.skippedRows, part.skippedRows)  // each run reads the same file's skips
        total.warmupRequests += part.warmupRequests
        total.openingEntries += part.openingEntries
        total.openingBytes += part.openingBytes
        total.wallSeconds += part.wallSeconds
        total.backgrounds += part.backgrounds
        total.backgroundReleasedBytes += part.backgroundReleasedBytes
        total.foregrounds += part.foregrounds
        total.warnings += part.warnings.map { event in
            var event = event
            event.requestIndex += offset
            return event
        }
        total.timeline += part.timeline.map { sample in
            var sample = sample
            sample.requestIndex += offset
            return sample
        }
        for index in 0..<part.outcomes.count { total.outcomes.append(part.outcomes[index]) }
        // The overhead is read where the backend accounted the most, in whichever run that was.
        if part.memory.accounted > total.memory.accounted { total.memory.overheadAtPeak = part.memory.overheadAtPeak }
        total.memory.accounted = Swift.max(total.memory.accounted, part.memory.accounted)
        total.memory.allocated = larger(total.memory.allocated, part.memory.allocated)
        total.memory.resident = larger(total.memory.resident, part.memory.resident)
        let evictions = total.finalFacts.evictions + part.finalFacts.evictions
        let fallbacks = total.finalFacts.fallbacks + part.finalFacts.fallbacks
        let rule = total.finalFacts.fallbackRule ?? part.finalFacts.fallbackRule
        total.finalFacts = part.finalFacts
        total.finalFacts.evictions = evictions
        total.finalFacts.fallbacks = fallbacks
        total.finalFacts.fallbackRule = rule
        if let tiers = part.tiers { total.tiers = sum(total.tiers, tiers) }
        total.wrongBodyHits = sum(total.wrongBodyHits, part.wrongBodyHits)
        total.verifiedHits = sum(total.verifiedHits, part.verifiedHits)
        if let admission = part.admission {
            total.admission = AdmissionCounts(admitted: (total.admission?.admitted ?? 0) + admission.admitted, rejected: (total.admission?.rejected ?? 0) + admission.rejected)
        }
        if let prefetch = part.prefetch {
            var counts = total.prefetch ?? PrefetchCounts()
            counts.issued += prefetch.issued
            counts.hits += prefetch.hits
            counts.wasted += prefetch.wasted
            counts.unused += prefetch.unused
            counts.tooLarge += prefetch.tooLarge
            total.prefetch = counts
        }
        if let sources = part.costSources {
            var counts = total.costSources ?? CostSourceCounts()
            counts.counts = zip(counts.counts, sources.counts).map(+)
            counts.ratioByType = zip(counts.ratioByType, sources.ratioByType).map(+)
            counts.urlRejected += sources.urlRejected
            total.costSources = counts
        }
        var details = part.finalDetails
        for remark in total.finalDetails.remarks {
            if let index = details.remarks.firstIndex(where: { $0.text == remark.text }) {
                details.remarks[index].count += remark.count
            } else {
                details.remarks.insert(remark, at: 0)
            }
        }
        details.orphansRemoved = sum(total.finalDetails.orphansRemoved, part.finalDetails.orphansRemoved)
        total.finalDetails = details
        total.failure = total.failure ?? part.failure
    }

    private static func larger(_ a: Int?, _ b: Int?) -> Int? {
        guard let a else { return b }
        guard let b else { return a }
        return Swift.max(a, b)
    }

    private static func sum(_ a: Int?, _ b: Int?) -> Int? {
        guard let a else { return b }
        guard let b else { return a }
        return a + b
    }

    /// A tier's counts over both runs; the gauges (disk entries and bytes) are the later run's.
    private static func sum(_ a: TierCounts?, _ b: TierCounts) -> TierCounts {
        guard var total = a else { return b }
        total.memoryHits += b.memoryHits
        total.diskHits += b.diskHits
        total.promotions += b.promotions
        total.diskWrites += b.diskWrites
        total.diskWriteBytes += b.diskWriteBytes
        total.flushed += b.flushed
        total.diskRefused += b.diskRefused
        total.memoryExpired += b.memoryExpired
        total.memoryRefused += b.memoryRefused
        total.diskEvictions += b.diskEvictions
        total.diskEntries = b.diskEntries
        total.diskBytes = b.diskBytes
        return total
    }

    /// The disk figures of the runs: write counts add up; the folder and footprint are the
    /// last run's (each run had a fresh folder, removed unless kept).
    static func combine(_ measurements: [DiskMeasurement?]) -> DiskMeasurement? {
        let present = measurements.compactMap { $0 }
        guard var total = present.last else { return nil }
        let probed = present.compactMap(\.io)
        if probed.count == present.count, var io = probed.first {
            for other in probed.dropFirst() {
                io.writeCalls = zip(io.writeCalls, other.writeCalls).map(+)
                io.writeBytes = zip(io.writeBytes, other.writeBytes).map(+)
                io.pageBytes = zip(io.pageBytes, other.pageBytes).map(+)
                io.syncs = zip(io.syncs, other.syncs).map(+)
            }
            total.io = io
        }
        total.createdFolders = present.flatMap(\.createdFolders)
        return total
    }
}

extension InMemoryTrace {
    /// Distinct keys of its requests above size 0 (a dropped request is no object): a cold
    /// run's compulsory misses. O(requests).
    var uniqueObjects: Int { Set(requests.lazy.filter { $0.size > 0 }.map(\.id)).count }
}
