import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// Before replays that materialize payloads (a decoded bitmap or a body per cached entry),
/// the memory they will hold at their peak, checked against what the machine has free, so a
/// run that cannot fit is refused with the figures and the fix instead of being killed by
/// the kernel with nothing written.
///
/// A materialized point holds at most its capacity in payloads, and never more than the
/// trace's working set (a cache cannot hold more than every object once): its peak is
/// `min(capacity, working set)`. Points that run at once add up. Per-entry bookkeeping
/// (index, nodes) is left out: it is a few dozen bytes per entry, small beside a payload.
/// A preloaded trace is already in memory when the check runs, so "available" excludes it.
public struct MaterializedMemoryEstimate: Sendable, Equatable {
    /// One point that materializes: its label and payload peak in bytes.
    public struct Point: Sendable, Equatable {
        public var label: String
        public var bytes: Int
        public init(label: String, bytes: Int) {
            self.label = label
            self.bytes = bytes
        }
    }

    /// The points' payload peaks, and how many run at once (`--jobs`).
    public var points: [Point]
    public var concurrent: Int

    public init(points: [Point], concurrent: Int) {
        self.points = points
        self.concurrent = max(1, concurrent)
    }

    /// The peak: the `concurrent` largest points together (saturating: sizes near 2^63 add
    /// to Int.max, never trap).
    public var peakBytes: Int {
        points.map(\.bytes).sorted(by: >).prefix(concurrent).reduce(0) { $0.addingReportingOverflow($1).overflow ? Int.max : $0 + $1 }
    }

    /// Share of available memory the peak may take: the rest is left for the process's own
    /// structures, the allocator's slack and the machine's other work.
    public static let usableShare = 0.9

    /// Throws when the peak exceeds `usableShare` of `availableBytes` (nil: unknown, and
    /// nothing is refused). The message names the largest point and the three ways out.
    public func check(availableBytes: Int?, preloadedTrace: Bool) throws {
        guard let available = availableBytes, !points.isEmpty else { return }
        let peak = peakBytes
        guard Double(peak) > Double(available) * Self.usableShare else { return }
        let largest = points.max { $0.bytes < $1.bytes }!
        let together = concurrent > 1 && points.count > 1 ? " with \(min(concurrent, points.count)) points at once (--jobs; " : " ("
        let trace = preloadedTrace ? "; the preloaded trace is already in memory and not in that figure" : ""
        throw WorkbenchError(
            "materializing payloads would hold about \(ByteCount.format(peak))\(together)the largest point: \(largest.label), up to \(ByteCount.format(largest.bytes))), "
                + "above the \(ByteCount.format(Int(Double(available) * Self.usableShare))) a replay may take (\(Int(Self.usableShare * 100))% of the machine's \(ByteCount.format(available)) MemAvailable)\(trace): "
                + "--no-materialize simulates the same counts without payload memory, or choose smaller capacities"
                + (concurrent > 1 ? ", or --jobs 1" : ""))
    }

    /// `MemAvailable` from /proc/meminfo in bytes; nil where it cannot be read. The variable
    /// `CWB_MEM_AVAILABLE` (bytes) overrides it, so tests can exercise the refusal on any machine.
    public static func availableBytes() -> Int? {
        if let forced = ProcessInfo.processInfo.environment["CWB_MEM_AVAILABLE"], let bytes = Int(forced), bytes >= 0 { return bytes }
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let fields = line.split(separator: " ")
            guard fields.count >= 2, let kib = Int(fields[1]) else { return nil }
            return kib.multipliedReportingOverflow(by: 1024).overflow ? Int.max : kib * 1024
        }
        return nil
    }
}
