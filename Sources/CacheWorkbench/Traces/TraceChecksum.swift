import WorkbenchCore
import WorkbenchMetrics
/// SHA-256 of a trace file's bytes, so a results row names exactly what was replayed
/// (`sha256sum FILE` prints the same digest).
public enum TraceChecksum {
    public static func sha256(path: String) throws(TraceError) -> String {
        let reader = try ChunkedFileReader(path: path)
        let hasher = SHA256Digest.Stream()
        while try reader.refill() {
            hasher.update(UnsafeRawBufferPointer(start: reader.buffer, count: reader.end))
            reader.start = reader.end
        }
        guard let digest = hasher.finalize() else { throw TraceError(path: path, line: nil, reason: "cannot hash: libcrypto could not make a SHA-256 context") }
        return HexText.encode(digest)
    }
}
