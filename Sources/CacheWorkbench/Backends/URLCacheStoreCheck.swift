import WorkbenchCore
import WorkbenchTraces
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether a store handed to Foundation's `URLCache` reached its folder. corelibs writes
/// each entry as `SECONDS.IDENTIFIER.storedcachedurlresponse` inside
/// `do { … try serialized.write(to:options: .atomic) … } catch { /* Best effort */ }`
/// (URLCache.swift, `storeCachedResponse`): on a full disk the write fails without a word,
/// the entry is gone, and a replay would count it as an eviction. This compares what the
/// folder holds with what was handed.
///
/// Complexity: O(names) for the lookup in a listing the backend reads anyway, one `stat`
/// and, only when a store is lost, one `statvfs`.
enum URLCacheStoreCheck {
    /// One store: the key as the trace wrote it, URLCache's identifier (its file-name part),
    /// the body's bytes and the disk capacity it was stored under.
    struct Store {
        var key: String
        var identifier: String
        var bodyBytes: Int
        var diskCapacity: Int
    }

    /// The length of the file name corelibs gives an entry stored now:
    /// `"\(Int64(date.timeIntervalSinceReferenceDate)).\(identifier).storedcachedurlresponse"`.
    static func fileNameBytes(identifier: String, now: Date = Date()) -> Int {
        String(Int64(now.timeIntervalSinceReferenceDate)).utf8.count + 1 + identifier.utf8.count + 1 + "storedcachedurlresponse".utf8.count
    }

    /// Room an archive may take beyond its body: Foundation writes a keyed archive (binary
    /// plist) of the response, its URL (the key, up to twice) and its headers, and writes
    /// only an archive smaller than the disk capacity. A body within this much of the
    /// capacity may have been left out on purpose, so it is not checked (an assumption:
    /// measured 1,150 bytes of overhead for a 20,000-byte body under a 26-byte URL).
    static func archiveSlack(keyBytes: Int) -> Int { (16 << 10) + 4 * keyBytes }

    /// The error that fails the run when `store` should be on disk and is not (or is
    /// shorter than its body); nil when it is there or might rightly be absent.
    static func lost(_ store: Store, names: [String], directory: String, backend: String) -> DiskError? {
        let slack = archiveSlack(keyBytes: min(store.key.utf8.count, 1 << 40))
        // Overflow-free: bodyBytes + slack < diskCapacity.
        guard store.bodyBytes < store.diskCapacity, slack < store.diskCapacity - store.bodyBytes else { return nil }
        let suffix = "." + store.identifier + ".storedcachedurlresponse"
        let key = ErrorText.quote(store.key)
        let free = freeBytes(directory).map { "\(ByteCount.format($0)) free on its file system" } ?? "its file system's free space unknown"
        guard let name = names.first(where: { $0.hasSuffix(suffix) }) else {
            return DiskError(backend: backend, path: directory, reason:
                "URLCache kept no file for \(key) (a \(ByteCount.format(store.bodyBytes)) body, within its disk capacity of \(ByteCount.format(store.diskCapacity))): Foundation swallows its write errors, so the store was lost; \(free)")
        }
        var status = stat()
        let path = directory + "/" + name
        guard stat(path, &status) == 0 else { return nil }  // evicted by another store since: nothing to compare
        let size = Int(status.st_size)
        guard size < store.bodyBytes else { return nil }
        return DiskError(backend: backend, path: path, reason:
            "URLCache's file for \(key) holds \(ByteCount.format(size)), less than the \(ByteCount.format(store.bodyBytes)) body it was handed: Foundation swallows its write errors; \(free)")
    }

    /// Bytes an unprivileged writer may still use on the file system of `path` (statvfs).
    static func freeBytes(_ path: String) -> Int? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let (bytes, overflow) = Int(clamping: info.f_bavail).multipliedReportingOverflow(by: Int(clamping: info.f_frsize))
        return overflow ? Int.max : bytes
    }
}
