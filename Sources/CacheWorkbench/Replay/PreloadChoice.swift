import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import Foundation

/// Whether a command's points, each of which would read the trace, are replayed from one
/// read into memory instead (issue 44: one read per command): a fixed-size binary trace
/// whose key records fit in a quarter of the memory available (`MemAvailable`) is read
/// into memory once, as `--preload` keeps it (24 bytes a request), and each point replayed
/// from it; a first command on a file gathers the trace's facts in that read. Rows keep their counts; `preloaded` and `trace_load_s` say so,
/// throughput leaves the read out, the heap figures leave the trace out
/// (`MemoryProbe.holdTrace`) and the RSS includes it.
///
/// Where it applies: a `bench run` of several points (backends × capacities × repeats), a
/// timed sweep's points, and an untimed sweep's simulator points, which it keeps from being
/// fed together from one streamed read (`FannedOutSweep`). Why there: measured on 150
/// points (15 policies × 10 capacities) of a 5M-request oracleGeneral trace in the page
/// cache, fed together the points' own replay times summed 2–16% above those of the same
/// points replayed alone (12–16% at the largest capacities: each point's tables are
/// evicted from the caches by the others' between blocks), and the sweep took 44.6–47.1 s
/// against 42.9–44.1 s preloaded (docs/sweep.md). A compressed or text trace (its length
/// unknown before it is read, its requests 64 bytes and more in memory) and one too large
/// are read as before.
public enum PreloadChoice {
    /// The bytes of key records `plan`'s trace takes in memory when its points should be
    /// replayed from it, with `availableBytes` available (nil when unknown: not preloaded);
    /// nil when they should not. Opens the trace, reads none of it. O(1).
    public static func preloadBytes(_ plan: RunPlan, availableBytes: Int?) throws -> Int? {
        // A key record has no TTL: under --use-ttl the trace is streamed as requests.
        guard plan.loadSeconds == nil, !plan.options.usesTTL, !plan.factsPending || plan.factsPass?.isOpen == true, let available = availableBytes,
              let bytes = try InMemoryTrace.packedBytes(plan.trace), bytes <= available / 4 else { return nil }
        return bytes
    }

    /// Reads `plan`'s trace into memory when `preloadBytes` says so, and returns the note
    /// that says it ("the trace was read into memory once (6.87MiB of key records; rchar
    /// 6.87MiB, 1.000× the file) and `points` replayed from it`how`: …"); nil, and nothing
    /// read, otherwise. `willRead` is told the bytes first (a progress line). O(trace).
    public static func apply(_ plan: inout RunPlan, points: String, how: String = "", willRead: (Int) -> Void = { _ in }) throws -> String? {
        guard let bytes = try preloadBytes(plan, availableBytes: MaterializedMemoryEstimate.availableBytes()) else { return nil }
        let fileBytes = (plan.trace as? TraceFile).flatMap { (try? FileManager.default.attributesOfItem(atPath: $0.path))?[.size] as? Int }
        let readBefore = ProcessStatusProbe.bytesRead()
        willRead(bytes)
        try plan.preloadTrace()
        let read = readBefore.flatMap { before in ProcessStatusProbe.bytesRead().map { $0.seen - before.after } }.map { read in
            "; rchar \(ByteCount.format(read))" + (fileBytes.map { String(format: ", %.3f× the file", Double(read) / Double(max(1, $0))) } ?? "")
        } ?? ""
        return "the trace was read into memory once (\(ByteCount.format(bytes)) of key records\(read)) and \(points) replayed from it\(how): "
            + "the choice for a binary trace whose key records fit in a quarter of the memory available (docs/sweep.md says why); "
            + "req/s leaves the read out (preloaded, trace_load_s), the heap columns leave the trace out and the RSS includes it"
    }
}
