import WorkbenchCore
import WorkbenchMetrics
/// The longest line a text trace may have (`--max-line-bytes`). A trace row is a few dozen
/// bytes; without a limit, one line with no line break (a 2 GB line in a small `.gz`, a
/// `.zst` of NULs) would be buffered whole, memory growing with it for minutes. With it,
/// a line reader holds a few times the limit at most (its buffer doubles; CSV keeps an
/// unquoting scratch as large) and stops with
/// `FILE:LINE: line longer than N bytes` as soon as that many bytes have no line end.
/// The limit counts the bytes before the line feed (a CSV row whose quoted fields hold
/// line breaks counts them all). Binary formats and HAR are not read by lines.
public enum LineLengthLimit {
    /// 16 MiB: far above any row of the supported formats (the longest keys are URLs of a
    /// few KiB; rows of a few MiB stay readable, as they always were), far below what a
    /// machine can hold (the reader's buffers then stay under about 64 MiB).
    public static let defaultBytes = 16 << 20
    /// `--max-line-bytes` in `ReadOptions.formatOptions`.
    public static let optionName = "max-line-bytes"
    /// Formats not read line by line, where the option would be silently ignored.
    static let formatsWithoutLines: Set<String> = ["har", "oracle-general", "vscsi", "lcs"]

    /// The limit `formatOptions` sets: the default when absent; a size (`4MiB` or bytes) of
    /// at least 1 byte, at most 2^40 (1 TiB: the reader's buffer doubles past it).
    public static func bytes(_ formatOptions: [String: String]) throws(WorkbenchError) -> Int {
        guard let text = formatOptions[optionName] else { return defaultBytes }
        guard let bytes = Capacity.bytes(parsing: text), bytes >= 1, bytes <= 1 << 40 else {
            throw WorkbenchError("--\(optionName) takes a size from 1 byte to 1TiB (e.g. 4MiB or 4194304), not \(ErrorText.quote(text))")
        }
        return bytes
    }

    /// Called by a line reader before it reads more for a line (or row) that has not ended
    /// within the `available` bytes it holds: past the limit, the error naming its line.
    @inline(__always)
    static func check(available: Int, limit: Int, path: String, line: Int) throws(TraceError) {
        guard available > limit else { return }
        throw TraceError(path: path, line: line, reason: "line longer than \(limit) bytes (no line end within them; --\(optionName) raises the limit)")
    }
}
