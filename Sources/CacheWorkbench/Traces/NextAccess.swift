import WorkbenchCore
import WorkbenchMetrics
/// For each request a backend is asked about (size-0 requests are not replayed), the
/// position of the next request for the same key, or `never` — what an offline policy
/// (Belady's OPT) decides by. Computed in one backward pass over the trace.
///
/// Complexity: O(n) time; O(n) memory (8 bytes per request, plus a map of unique keys).
public final class NextAccess: @unchecked Sendable {
    public static let never = Int64.max
    public let positions: [Int64]

    public init(positions: [Int64]) { self.positions = positions }

    /// Reads `trace` once (ids only).
    public static func compute(_ trace: any Trace) throws -> NextAccess {
        var ids: [UInt64] = []
        let source = try trace.open(keepKeyNames: false)
        while let chunk = try source.nextChunk() {
            for request in chunk where request.size > 0 { ids.append(request.id) }
        }
        return NextAccess(positions: positions(of: ids, never: never))
    }

    /// For each of `ids`, the 1-based position of the next equal id, or `never`, as
    /// libCacheSim's traceConv writes next access in oracleGeneral and lcs files (its
    /// `stat.n_req - vtime`; its Belady reads `next_access_vtime - n_req` with `n_req`
    /// already counting the current request). O(n).
    static func libCacheSimPositions(of ids: [UInt64], never: Int64) -> [Int64] {
        positions(of: ids, never: -1).map { $0 < 0 ? never : $0 + 1 }
    }

    /// For each of `ids`, the index of the next equal id, or `never`: one backward pass.
    static func positions(of ids: [UInt64], never: Int64) -> [Int64] {
        var positions = [Int64](repeating: never, count: ids.count)
        var seen: [UInt64: Int64] = [:]
        seen.reserveCapacity(ids.count / 4)
        for index in ids.indices.reversed() {
            if let next = seen[ids[index]] { positions[index] = next }
            seen[ids[index]] = Int64(index)
        }
        return positions
    }
}
