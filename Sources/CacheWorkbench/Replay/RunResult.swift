import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// One results row: a replay's tally plus everything needed to reproduce it.
public struct RunResult: Sendable {
    public var runID: String
    public var trace: String
    public var traceChecksum: String?
    public var mode: ReplayMode
    /// `--mode http`'s profile, request policy and options (nil in demand-fill).
    public var httpSettings: HTTPReplaySettings? = nil
    public var backend: String
    public var backendOptions: String
    /// The variant's own options as listed (`key-hash=cf`), empty for a plain backend.
    public var variant = ""
    /// Whether the backend's entries hold real memory (see `CacheBackend.holdsPayloads`).
    public var holdsPayloads: Bool
    public var costModel: CostModel
    /// How pixel costs were found (meaningful under the pixel cost model).
    public var pixelRules = PixelCostRules()
    /// Whether stored objects held real heap blocks of their cost.
    public var materialized: Bool
    public var capacity: Capacity
    public var capacityBytes: Int
    public var workingSetBytes: ByteTotal?
    public var seed: UInt64
    public var timing: Bool
    public var memoryWarningSchedule: MemoryWarningSchedule?
    /// Requests in the hit-ratio windows around each warning.
    public var warningWindow = 1_000
    /// Every object counted 1 (`--ignore-obj-size`).
    public var ignoreObjectSize = false
    /// Seconds spent reading the trace into memory (`--preload`), nil when streamed.
    public var loadSeconds: Double?
    public var tally: ReplayTally
    public var environment: RunEnvironment
    /// Disk backends: the I/O probe's counts and the footprint.
    public var disk: DiskMeasurement? = nil
    /// Whether disk hits were checked byte for byte (`--verify`).
    public var verify = false
    /// `--repeat K` (K > 1): the smallest and largest value of each timing figure.
    public var spread: RepeatSpread? = nil
    /// `replay`, or `mattson` for an LRU point a sweep took from the one-pass curve: exact
    /// counts, but no replay, so no time, memory or eviction figures (empty cells).
    public var method = "replay"
    /// A sweep's point index (`bench sweep`, its plan and shards); nil for `bench run`.
    public var sweepPoint: Int? = nil
    /// The identity of the plan a shard or plan run belongs to (`SweepPlan.identity`);
    /// nil outside a plan, so `bench merge` can refuse rows of another plan.
    public var planID: String? = nil
    /// What the memory warnings cost against the same replay without them (`WarningCost`);
    /// nil when no warnings were simulated or the counterfactual was not made.
    public var warningCost: WarningCost? = nil
    /// `--sample-every` and `--warning-window` as chosen for a short trace (`ShortTraceSampling`).
    public var sampling: ShortTraceSampling? = nil
    /// Requests between memory samples, as used (`--sample-every`, given or scaled).
    public var sampleEvery = ShortTraceSampling.defaultSampleEvery
    /// How a device-relative capacity was found (`--device`: a preset's own limit or
    /// `ram:P%`), for the table's notes; nil for a capacity given in bytes or as a share.
    public var capacityRule: String? = nil
    /// `--device`'s name, when one was given.
    public var device: String? = nil
    /// The trace's distinct objects (keys of non-zero-size requests), and the replay's
    /// compulsory misses: counted requests that were their object's first (after a warm-up,
    /// the objects it did not request). The ceiling is (requests − compulsory) / requests.
    public var uniqueObjects: Int? = nil
    public var compulsoryMisses: Int? = nil
    /// The command line the row was made with (`bench run …`, a sweep's own), shell-quoted.
    public var command: String? = nil
    /// How many points the process replayed at once when this one ran (`sweep --jobs`, up to
    /// the points left); 1 for `bench run`. Above 1, timing and memory figures are contended.
    public var pointsAtOnce = 1
    /// The command's option flags this backend took (`--key-hash full` → `key-hash=full`),
    /// sorted, `;`-joined; a variant's own options are in its label instead. For the table's
    /// options lines (`TableReport.optionLines`); the CSV's backend_options has every setting.
    public var flagOptions = ""
    /// A HAR with two or more runs: how they were replayed (`--har-runs`); nil otherwise.
    public var harRuns: HARRunSplit? = nil

    package var replayed: Bool { method == "replay" }

    public var failed: Bool { tally.failure != nil }
    /// Failed before the replay read a request (a refused cache folder, a backend that could
    /// not be made): the row's counts and opening say nothing about the trace or the folder.
    public var failedBeforeReplay: Bool { failed && tally.traceRequests == 0 }

    /// The backend as the list named it: `nscache[key-hash=cf]` for a variant.
    public var backendLabel: String { variant.isEmpty ? backend : "\(backend)[\(variant)]" }
}

/// A value in a results row. `.empty` means "not applicable", never zero.
public enum Cell: Sendable, Equatable {
    case int(Int)
    /// A sum over the trace (bytes requested, working set): 128-bit, never overflowing.
    case wide(ByteTotal)
    case double(Double)
    case text(String)
    case empty

    package static func from(_ value: Int?) -> Cell { value.map(Cell.int) ?? .empty }
    package static func from(_ value: ByteTotal?) -> Cell { value.map(Cell.wide) ?? .empty }
    package static func from(_ value: UInt64?) -> Cell { value.map { Cell.int(Int($0)) } ?? .empty }
    package static func from(_ value: Double?) -> Cell { value.map(Cell.double) ?? .empty }
    package static func from(_ value: String?) -> Cell { value.map(Cell.text) ?? .empty }
}

extension RunResult {
    /// DESIGN.md's stable columns first, in order; later additions after them. Columns
    /// are added, never renamed.
    public static let columnNames: [String] = [
        "run_id", "trace", "trace_requests", "mode", "backend", "backend_options", "cost_model",
        "capacity_bytes", "requests", "hits", "misses", "object_hit_ratio", "byte_hit_ratio",
        "get_p50_ns", "get_p99_ns", "get_p999_ns", "get_max_ns", "set_p50_ns", "set_p99_ns", "set_p999_ns",
        "throughput_rps", "wall_s", "accounted_peak_bytes", "allocated_peak_bytes", "rss_peak_bytes",
        "memory_overhead_ratio", "memory_warnings", "evictions", "logical_write_bytes",
        "syscall_write_bytes", "page_write_bytes", "fsyncs", "write_amplification",
        "disk_footprint_bytes", "git_rev", "swift_version", "allocator",
        // Added by the workbench (after the stable set).
        "status", "error", "trace_sha256", "capacity_spec", "working_set_bytes", "dropped_zero_size",
        "too_large", "skipped_rows", "get_p90_ns", "set_p90_ns", "set_max_ns", "timing", "preloaded",
        "clock_overhead_ns", "final_entries", "final_accounted_bytes", "seed", "trace_load_s",
        "materialized", "memory_warning_schedule", "warning_released_bytes", "hit_ratio_before_warnings",
        "hit_ratio_after_warnings", "space_amplification", "db_write_bytes", "journal_write_bytes",
        "wal_write_bytes", "data_write_bytes", "other_write_bytes", "write_calls", "cache_dir", "verify",
        "get_hit_p50_ns", "get_hit_p90_ns", "get_hit_p99_ns", "get_hit_p999_ns", "get_hit_max_ns", "get_hits_timed",
        "get_miss_p50_ns", "get_miss_p90_ns", "get_miss_p99_ns", "get_miss_p999_ns", "get_miss_max_ns", "get_misses_timed",
        "pixel_rules", "cost_from_dimensions", "cost_from_url", "cost_from_ratio", "cost_from_encoded",
        "ignore_obj_size", "warmup_requests", "variant", "repeats",
    ] + RepeatSpread.columns.flatMap { ["\($0)_min", "\($0)_max"] } + ["method"] + httpColumnNames + tierColumnNames + ["backend_remarks", "sweep_point", "orphans_removed", "plan_id"] + warningCostColumnNames + ["disk_refused", "durability", "model_of", "device", "capacity_rule"]
        + ["http_rules", "library_hits", "unique_objects", "compulsory_misses", "command", "points_at_once"]
        + ["gets", "sets", "deletes"]
        + ["admitted", "rejected", "hit_bytes", "miss_bytes"]
        + ["app_hit_ratio", "app_compared", "app_agreeing", "background_events"]
        // The first pixel rule, added after the others (an app recording's own cost).
        + ["cost_from_recorded"]
        // The decoded-size estimate's rule (issue 43), before the encoded fallback.
        + ["cost_from_estimate"]
        // A prefetcher's counts (issue 45), nil without one.
        + ["prefetches", "prefetch_hits", "wasted_prefetches", "prefetches_unused"]
        + runColumnNames
        // Every counted request's outcome, for the report's paired test (`OutcomeBits.base64`).
        + ["outcome_bits"]

    /// A HAR's independent runs (`--har-runs`, docs/columns.md): the mode, the runs, and
    /// under `cold` each run's hit ratios, their mean and range.
    static let runColumnNames = [
        "har_runs", "runs", "run_hit_ratio_mean", "run_hit_ratio_min", "run_hit_ratio_max", "run_hit_ratios",
        "run_byte_hit_ratio_mean", "run_byte_hit_ratio_min", "run_byte_hit_ratio_max", "run_byte_hit_ratios",
    ]

    var runCells: [Cell] {
        guard let harRuns else { return Array(repeating: .empty, count: Self.runColumnNames.count) }
        let runs: Cell = tally.runs.map { .int($0.count) } ?? .int(harRuns.runCount)
        func cells(_ ratios: RunRatios?) -> [Cell] {
            guard let ratios, !ratios.values.isEmpty else { return [.empty, .empty, .empty, .empty] }
            return [.from(ratios.mean), .from(ratios.min), .from(ratios.max), .text(ratios.values.map { CSVReport.field(.double($0)) }.joined(separator: ";"))]
        }
        return [.text(harRuns.mode.rawValue), runs] + cells(tally.runObjectHitRatios) + cells(tally.runByteHitRatios)
    }

    /// What memory warnings cost, against the counterfactual replay (`WarningCost`), and the
    /// windows' and sampling's sizes as used.
    static let warningCostColumnNames = [
        "warning_hits_lost", "warning_hits_lost_per_warning", "warning_memory_hits_lost", "warning_disk_hits_gained",
        "warning_recovery_requests", "warning_recovery_max_requests", "warnings_unrecovered", "warning_window", "sample_every",
    ]

    var warningCostCells: [Cell] {
        let cost = warningCost
        let window: Cell = memoryWarningSchedule == nil ? .empty : .int(warningWindow)
        return [
            .from(cost?.hitsLost), .from(cost?.hitsLostPerWarning), .from(cost?.memoryHitsLost), .from(cost?.diskHitsGained),
            .from(cost?.meanRecoveryRequests), .from(cost?.recoveryRequests.max()), .from(cost?.unrecovered), window,
            replayed ? .int(sampleEvery) : .empty,
        ]
    }

    /// The HTTP mode's columns (empty in demand-fill): how each request was answered.
    static let httpColumnNames = [
        "http_settings", "fresh_hits", "stale_served", "revalidations", "not_modified", "origin_fetches", "origin_requests",
        "origin_bytes", "offline_failures", "not_stored", "not_stored_reasons", "invalidations", "background_revalidations",
        "heuristic_lifetimes", "validated_by_size", "wrong_body_hits", "sizes_from_earlier_response", "vary_mismatches", "coalesced_requests", "origin_fetches_saved", "downloads",
        "queue_wait_p50_ms", "queue_wait_p99_ms", "queue_wait_max_ms",
    ]

    /// Hits served with another URL's body: in the HTTP mode the model's count (under
    /// corelibs' key, and the served hits a body-checking backend answered wrongly), in
    /// demand-fill a body-checking backend's (every hit is served); nil when none looked.
    public var wrongBodyHits: Int? { tally.http?.wrongBodyHits ?? tally.wrongBodyHits }

    /// A two-tier backend's columns (empty for every other backend): where hits came from.
    static let tierColumnNames = [
        "memory_hits", "disk_hits", "memory_hit_ratio", "disk_hit_ratio", "promotions", "disk_writes", "flushed_to_disk",
        "memory_expired", "memory_refused", "disk_evictions", "disk_entries", "disk_bytes",
    ]

    var tierCells: [Cell] {
        guard let t = tally.tiers else { return Array(repeating: .empty, count: Self.tierColumnNames.count) }
        let ratio = { (hits: Int) -> Cell in tally.requests > 0 ? .double(Double(hits) / Double(tally.requests)) : .empty }
        return [
            .int(t.memoryHits), .int(t.diskHits), ratio(t.memoryHits), ratio(t.diskHits), .int(t.promotions), .int(t.diskWrites),
            .int(t.flushed), .int(t.memoryExpired), .int(t.memoryRefused), .int(t.diskEvictions), .int(t.diskEntries), .int(t.diskBytes),
        ]
    }

    /// What the modeled implementation did that the figures rest on (`BackendDetails.remarks`).
    var remarksCell: Cell {
        let remarks = tally.finalDetails.remarks
        return remarks.isEmpty ? .empty : .text(remarks.map { "\($0.count) \($0.text)" }.joined(separator: "; "))
    }

    var httpCells: [Cell] {
        guard let h = tally.http else {
            // A backend that checks its hits' bodies fills wrong_body_hits in demand-fill too.
            var cells = Array(repeating: Cell.empty, count: Self.httpColumnNames.count)
            if let wrong = tally.wrongBodyHits { cells[Self.httpColumnNames.firstIndex(of: "wrong_body_hits")!] = .int(wrong) }
            return cells
        }
        return [
            .from(httpSettings?.description), .int(h.freshHits), .int(h.staleServed), .int(h.revalidations), .int(h.notModified),
            .int(h.originFetches), .int(h.originRequests), .wide(h.originBytes), .int(h.offlineFailures), .int(h.notStoredTotal),
            .text(h.notStoredText), .int(h.invalidations), .int(h.backgroundRevalidations), .int(h.heuristicLifetimes), .int(h.validatedBySize),
            .from(wrongBodyHits), .int(h.sizesFromEarlierResponse), .int(h.varyMismatches),
        ] + downloadCells(h)
    }

    /// The download-time model's columns: empty without it.
    private func downloadCells(_ h: HTTPCounts) -> [Cell] {
        guard httpSettings?.downloads != nil else { return Array(repeating: .empty, count: 6) }
        // The histogram's floor is 1 ns: a wait that short was no wait.
        let ms = { (nanoseconds: UInt64?) -> Cell in .from(nanoseconds.map { $0 <= 1 ? 0 : Double($0) / 1e6 }) }
        return [.int(h.coalescedRequests), .int(h.coalescedRequests), .int(h.downloads),
                ms(h.queueWait?.p50), ms(h.queueWait?.p99), ms(h.queueWait?.max)]
    }

    /// Bytes handed to write calls per logical body byte stored.
    public var writeAmplification: Double? {
        guard let disk, tally.logicalWriteBytes > 0 else { return nil }
        guard let io = disk.io else { return nil }
        return Double(io.totalWriteBytes) / tally.logicalWriteBytes.asDouble
    }

    /// Bytes on disk per body byte held at the end.
    public var spaceAmplification: Double? {
        // A tier's facts are its memory tier's; its disk tier holds the bodies on disk.
        let held = tally.tiers?.diskBytes ?? tally.finalFacts.accountedBytes
        guard let disk, held > 0 else { return nil }
        return Double(disk.footprintBytes) / Double(held)
    }

    public var cells: [Cell] {
        let t = tally
        // allocated / accounted at one moment (DESIGN.md); policy-only backends hold no
        // payloads, so their accounted bytes are notional and the ratio does not apply.
        let overhead: Double? = holdsPayloads && materialized ? t.memory.overheadAtPeak : nil
        return [
            .text(runID), .text(trace), .int(t.traceRequests), .text(mode.rawValue), .text(backend),
            .text(backendOptions), .text(costModel.rawValue),
            .int(capacityBytes), .int(t.requests), .int(t.hits), .int(t.misses),
            .from(t.objectHitRatio), .from(t.byteHitRatio),
            .from(t.get?.p50), .from(t.get?.p99), .from(t.get?.p999), .from(t.get?.max),
            .from(t.set?.p50), .from(t.set?.p99), .from(t.set?.p999),
            .from(t.throughput), replayed ? .double(t.wallSeconds) : .empty,
            replayed ? .int(t.memory.accounted) : .empty, .from(t.memory.allocated), .from(t.memory.resident),
            .from(overhead), .int(t.memoryWarnings), replayed ? .int(t.finalFacts.evictions) : .empty,
            // Disk columns: empty (not applicable) for memory and policy backends.
            disk == nil ? .empty : .wide(t.logicalWriteBytes), .from(disk?.io?.totalWriteBytes), .from(disk?.io?.totalPageBytes),
            .from(disk?.io?.totalSyncs), .from(writeAmplification), .from(disk?.footprintBytes),
            .text(environment.gitRevision), .text(environment.swiftVersion), .text(environment.allocator),
            .text(failed ? "failed" : "ok"), .from(t.failure), .from(traceChecksum), .text(capacity.description),
            .from(workingSetBytes), .int(t.droppedZeroSize), .int(t.tooLarge), .int(t.skippedRows),
            .from(t.get?.p90), .from(t.set?.p90), .from(t.set?.max),
            .text(timing ? "on" : "off"), .text(loadSeconds != nil ? "yes" : "no"),
            timing ? .int(Int(environment.clockOverheadNanoseconds)) : .empty,
            replayed ? .int(t.finalFacts.entries) : .empty, replayed ? .int(t.finalFacts.accountedBytes) : .empty,
            .text(String(seed)), .from(loadSeconds),
            .text(materialized ? "yes" : "no"), .from(memoryWarningSchedule?.description),
            memoryWarningSchedule == nil ? .empty : .int(t.warningReleasedBytes),
            .from(t.meanHitRatio(\.hitRatioBefore)), .from(t.meanHitRatio(\.hitRatioAfter)),
            .from(spaceAmplification),
            .from(disk?.io?.writeBytes(.database)), .from(disk?.io?.writeBytes(.journal)), .from(disk?.io?.writeBytes(.wal)),
            .from(disk?.io?.writeBytes(.data)), .from(disk?.io?.writeBytes(.other)), .from(disk?.io?.writeCalls.reduce(0, +)),
            .from(disk.map { $0.kept ? $0.folder : "(removed)" }), disk == nil ? .empty : .text(verify ? "on" : "off"),
            .from(t.getHit?.p50), .from(t.getHit?.p90), .from(t.getHit?.p99), .from(t.getHit?.p999), .from(t.getHit?.max),
            timing ? .from(Int(t.getHit?.count ?? 0)) : .empty,
            .from(t.getMiss?.p50), .from(t.getMiss?.p90), .from(t.getMiss?.p99), .from(t.getMiss?.p999), .from(t.getMiss?.max),
            timing ? .from(Int(t.getMiss?.count ?? 0)) : .empty,
            costModel == .pixels ? .text(pixelRules.description) : .empty,
        ] + [PixelCostRules.Source.dimensions, .url, .ratio, .encoded].map { source in t.costSources.map { .int($0[source]) } ?? .empty }
            + [.text(ignoreObjectSize ? "yes" : "no"), .int(t.warmupRequests), .text(variant), .int(spread?.repeats ?? 1)]
            + RepeatSpread.columns.flatMap { column -> [Cell] in
                guard let range = spread?.ranges[column] else { return [.empty, .empty] }
                return column.hasSuffix("_ns") ? [.int(Int(range.min)), .int(Int(range.max))] : [.double(range.min), .double(range.max)]
            }
            + [.text(method)] + httpCells + tierCells + [remarksCell, .from(sweepPoint), .from(tally.finalDetails.orphansRemoved), .from(planID)]
            + warningCostCells + [.from(tally.tiers?.diskRefused)]
            + [.from(tally.finalDetails.durability?.rawValue), .text(ModelFamily.of(backend: backend).rawValue)]
            + [.from(device), .from(capacityRule)]
            + [.from(tally.httpRules), .from(tally.http?.libraryHits), .from(uniqueObjects), .from(compulsoryMisses), .from(command), .int(pointsAtOnce)]
            + (mode == .ops ? [.int(t.requests), .int(t.sets), .int(t.deletes)] : [.empty, .empty, .empty])
            + [.from(t.admission?.admitted), .from(t.admission?.rejected), .wide(t.hitBytes), .wide(t.requestedBytes - t.hitBytes)]
            + [.from(t.agreement?.appHitRatio), .from(t.agreement?.compared), .from(t.agreement?.agreeing), t.backgroundResponse == nil ? .empty : .int(t.backgrounds)]
            + [t.costSources.map { .int($0[.recorded]) } ?? .empty]
            + [t.costSources.map { .int($0[.estimate]) } ?? .empty]
            + [.from(t.prefetch?.issued), .from(t.prefetch?.hits), .from(t.prefetch?.wasted), .from(t.prefetch?.unused)]
            + runCells
            + [t.requests > 0 && t.outcomes.count == t.requests ? .text(t.outcomes.base64) : .empty]
    }

    /// Requests charged their encoded size under the pixel cost model (no dimensions, no
    /// rule found them): the figure the results must call out.
    public var encodedFallbacks: Int { tally.costSources?[.encoded] ?? 0 }
}
