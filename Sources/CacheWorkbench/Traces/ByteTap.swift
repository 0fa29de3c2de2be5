import Crypto

/// SHA-256 of the bytes a trace's reader reads from its file, as it reads them, so the
/// pass that decodes the requests also yields the file's checksum (no second read). Set
/// for the readers opened inside `ByteTap.$current.withValue(tap) { … }`: a
/// `ChunkedFileReader` made there feeds every block it reads. A compressed file is read
/// through its decompressor, whose output is not the file's bytes: such a reader does not
/// feed the tap and marks it (`missedCompressed`), and the caller checksums the file apart.
/// O(bytes read).
public final class ByteTap: @unchecked Sendable {
    @TaskLocal public static var current: ByteTap?

    private var hasher = SHA256()
    /// Bytes fed so far: the whole file when it equals the file's size.
    public private(set) var count = 0
    /// A reader of a compressed file was opened with this tap set.
    public internal(set) var missedCompressed = false

    public init() {}

    func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
        count += bytes.count
    }

    /// The digest, as `sha256sum` prints it. Call once.
    public func finish() -> String {
        hasher.finalize().withUnsafeBytes { HexText.encode($0) }
    }
}
