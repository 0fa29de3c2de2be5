import Crypto

/// SHA-256 of a trace file's bytes, so a results row names exactly what was replayed
/// (`sha256sum FILE` prints the same digest).
public enum TraceChecksum {
    public static func sha256(path: String) throws(TraceError) -> String {
        let reader = try ChunkedFileReader(path: path)
        var hasher = SHA256()
        while try reader.refill() {
            hasher.update(bufferPointer: UnsafeRawBufferPointer(start: reader.buffer, count: reader.end))
            reader.start = reader.end
        }
        return hasher.finalize().withUnsafeBytes { HexText.encode($0) }
    }
}
