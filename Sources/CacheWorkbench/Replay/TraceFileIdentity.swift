import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// What identifies a trace file without reading it: its absolute path, device, inode,
/// size, and modification and status-change times to the nanosecond. Facts computed from
/// the file's bytes (`TraceFacts`: its SHA-256, its working set) are kept under this and
/// trusted again only while all of it is unchanged. Rewriting the file changes its size,
/// mtime or ctime; `touch -d`, `cp -p` or `rsync -t` can put an old mtime back, but not
/// an old ctime (the kernel sets it to now on every write, chmod or utime), so a change
/// is missed only if the file's blocks are edited beneath the file system or the clock is
/// set back to the nanosecond. O(1): one `stat`.
public struct TraceFileIdentity: Codable, Sendable, Equatable {
    public var path: String
    public var device: UInt64
    public var inode: UInt64
    public var size: Int
    public var modifiedSeconds: Int
    public var modifiedNanoseconds: Int
    public var changedSeconds: Int
    public var changedNanoseconds: Int

    /// The identity of the regular file at `path` (following links, as a reader does), or
    /// nil when it is not one.
    public static func of(path: String) -> TraceFileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return TraceFileIdentity(
            path: URL(fileURLWithPath: path).standardizedFileURL.path, device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
            size: Int(info.st_size), modifiedSeconds: Int(info.st_mtim.tv_sec), modifiedNanoseconds: Int(info.st_mtim.tv_nsec),
            changedSeconds: Int(info.st_ctim.tv_sec), changedNanoseconds: Int(info.st_ctim.tv_nsec))
    }

    /// The identity as one line of text, hashed into the cache entry's file name.
    var key: String {
        "\(path)\n\(device):\(inode):\(size):\(modifiedSeconds).\(modifiedNanoseconds):\(changedSeconds).\(changedNanoseconds)"
    }
}
