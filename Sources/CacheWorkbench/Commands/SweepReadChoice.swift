import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces

/// How an untimed sweep's simulator points get the trace, each way one read (issue 44):
/// fed together from one streamed read (`FannedOutSweep`), or, for a fixed-size binary trace
/// whose key records fit in a quarter of the memory available, read into memory once (as
/// `--preload` keeps it) and each point replayed alone from it, one per core.
///
/// Why: measured on 150 points (15 policies × 10 capacities) of a 5M-request oracleGeneral
/// trace in the page cache, fed together the points' own replay times summed 2–16% above
/// those of the same points replayed alone (most at the largest capacities, 12–16%: each
/// point's tables are evicted from the caches by the others' between blocks), and the sweep
/// took 45.5–55.1 s against 45.2–46.0 s preloaded (docs/sweep.md). A trace that does not fit,
/// a compressed or text one (its length unknown before it is read, its requests 64 bytes
/// and more in memory), and a first command (the read gives the trace's facts) are fed
/// together.
enum SweepReadChoice: Equatable {
    /// Fed together from one streamed read.
    case fedTogether
    /// Read into memory once (`bytes` of key records; nil when `--preload` already did),
    /// each point replayed alone from it.
    case preloaded(bytes: Int?)

    /// The choice for `plan`'s untimed points, with `availableBytes` of memory available
    /// (`MemAvailable`; nil when unknown: fed together). Opens the trace, reads none of it. O(1).
    static func choose(_ plan: RunPlan, availableBytes: Int?) throws -> SweepReadChoice {
        if plan.loadSeconds != nil { return .preloaded(bytes: nil) }
        guard !plan.factsPending, let available = availableBytes,
              let bytes = try InMemoryTrace.packedBytes(plan.trace), bytes <= available / 4 else { return .fedTogether }
        return .preloaded(bytes: bytes)
    }
}
