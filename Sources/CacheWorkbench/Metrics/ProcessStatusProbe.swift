import Foundation

/// Two whole-process figures the kernel keeps, for claims about a pass over a trace: bytes
/// the process has read through `read`-family calls (`rchar` of `/proc/self/io`: what a
/// sweep's "one read" promise is checked by) and its peak resident set (`VmHWM` of
/// `/proc/self/status`). nil where `/proc` does not give them (not Linux).
public enum ProcessStatusProbe {
    /// `rchar`, bytes read by this process (page cache or disk alike): `seen` is the count
    /// this call read, `after` the count once this call's own read of `/proc/self/io` is
    /// added. Bytes read between two calls: the second's `seen` less the first's `after`.
    public static func bytesRead() -> (seen: Int, after: Int)? {
        guard let (value, own) = field("/proc/self/io", "rchar:") else { return nil }
        return (value, value + own)
    }

    /// `VmHWM`: the most this process has had resident, in bytes.
    public static func peakResidentBytes() -> Int? { field("/proc/self/status", "VmHWM:").map { $0.value * 1024 } }

    /// The number after `name` on its line of `path` (`VmHWM` is in kB), and the bytes read.
    private static func field(_ path: String, _ name: String) -> (value: Int, own: Int)? {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            guard let value = Int(line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") else { return nil }
            return (value, data.count)
        }
        return nil
    }
}
