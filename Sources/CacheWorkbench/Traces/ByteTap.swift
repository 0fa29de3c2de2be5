import WorkbenchCore
import WorkbenchMetrics
/// SHA-256 of the bytes a trace's reader reads from its file, as it reads them, so the
/// pass that decodes the requests also yields the file's checksum (no second read). Set
/// for the readers opened inside `ByteTap.$current.withValue(tap) { … }`: a
/// `ChunkedFileReader` made there feeds every block it reads, for a compressed file the
/// decompressed ones (the digest `TraceChecksum` has always given such a file).
/// O(bytes read).
public final class ByteTap: @unchecked Sendable {
    @TaskLocal public static var current: ByteTap?

    private let hasher = SHA256Digest.Stream()
    /// Bytes fed so far.
    public private(set) var count = 0
    /// A compressed file's reader fed it: its bytes are the decompressed stream.
    public internal(set) var readDecompressed = false

    public init() {}

    /// Time spent hashing (one clock read either side of a block's update, blocks being
    /// large), so a replay whose reader this tap hashes can leave it out of its wall time.
    public private(set) var nanoseconds: UInt64 = 0

    func update(_ bytes: UnsafeRawBufferPointer) {
        let began = MonotonicClock.now()
        hasher.update(bytes)
        count += bytes.count
        nanoseconds += MonotonicClock.now() - began
    }

    /// The digest, as `sha256sum` prints it, or nil when libcrypto had no context to give
    /// (the caller then reads the file again). Call once.
    public func finish() -> String? {
        hasher.finalize().map { HexText.encode($0) }
    }
}
