import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// One entry of the trace facts cache (`TraceFactsCache`) as written on disk: a trace's
/// checksum and encoded-size summary with the file identity and reading they belong to,
/// as JSON. Read back from disk, so never trusted as read: `validated(for:reading:)` keeps
/// an entry only when it is of this version, names the wanted file version and reading,
/// and its figures are possible. Apart from the cache (no file system, no reader) so the
/// fuzzer builds it alone (`scripts/fuzz facts`).
///
/// Complexity: O(1) (a few fields; the digest's 64 characters).
struct TraceFactsEntry: Codable, Equatable {
    /// The entry format; an entry of another version is ignored and pruned.
    static let currentVersion = 1
    /// An entry is a few hundred bytes; a file larger than this is not one.
    static let sizeLimit = 1 << 16

    var version: Int
    var identity: TraceFileIdentity
    var reading: String
    var sha256: String
    var requests: Int
    var droppedZeroSize: Int
    var uniqueKeys: Int
    /// A decimal: `ByteTotal` is 128 bits wide.
    var workingSetBytes: String
    var largestSize: Int
    var computed: Double

    /// The entry when it is of this version, names `wanted` and `wantedReading`, and its
    /// figures are possible: a digest of 64 lowercase hex digits; counts that fit each
    /// other (drops and keys within the requests); a working set of at least one byte per
    /// key and at most the largest size per key; keys exactly when a size was seen. nil
    /// otherwise: a damaged or foreign entry is recomputed, never trusted.
    func validated(for wanted: TraceFileIdentity, reading wantedReading: String) -> TraceFactsEntry? {
        guard version == Self.currentVersion, identity == wanted, reading == wantedReading, hasPossibleFigures else { return nil }
        return self
    }

    /// The working set as a number, when the entry's figures are possible.
    var workingSet: ByteTotal? {
        hasPossibleFigures ? ByteTotal(workingSetBytes) : nil
    }

    private var hasPossibleFigures: Bool {
        guard sha256.utf8.count == 64, sha256.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
              requests >= 0, droppedZeroSize >= 0, droppedZeroSize <= requests, uniqueKeys >= 0, uniqueKeys <= requests - droppedZeroSize,
              largestSize >= 0, computed.isFinite, (uniqueKeys == 0) == (largestSize == 0),
              let workingSet = ByteTotal(workingSetBytes)
        else { return false }
        // uniqueKeys and largestSize are at most Int.max each: their product fits 128 bits.
        return workingSet >= ByteTotal(uniqueKeys) && workingSet <= ByteTotal(uniqueKeys) * ByteTotal(largestSize)
    }
}
