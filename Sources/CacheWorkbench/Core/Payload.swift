#if canImport(Glibc)
import Glibc
#endif

/// A stored object's memory, as a decoded bitmap would hold it: a heap block of the
/// object's cost with every page written, so both jemalloc's allocated bytes and the
/// resident set see what an app would hold. The replayer makes it before the timed
/// `set`, so latency measures the cache, not the "decode". Freed when the cache drops it.
public final class Payload: @unchecked Sendable {
    public let byteCount: Int
    private let storage: UnsafeMutableRawPointer?

    /// Throws when the memory cannot be had (the run then fails with that reason).
    public init(byteCount: Int) throws {
        self.byteCount = byteCount
        guard byteCount > 0 else {
            storage = nil
            return
        }
        let storage = try Self.allocate(byteCount)
        // One write per 4 KiB page makes the pages resident without the cost of a full fill.
        var offset = 0
        while offset < byteCount {
            storage.storeBytes(of: UInt8(truncatingIfNeeded: offset >> 12), toByteOffset: offset, as: UInt8.self)
            offset += 4096
        }
        self.storage = storage
    }

    /// A disk object's body: the full `PayloadContent` for `key`, which a disk backend
    /// writes and `--verify` checks on every hit.
    /// Throws above `SizeLimits.largestDiskBody` or when the memory cannot be had.
    public init(contentFor key: String, byteCount: Int) throws {
        self.byteCount = max(byteCount, 0)
        guard byteCount > 0 else {
            storage = nil
            return
        }
        guard byteCount <= SizeLimits.largestDiskBody else {
            throw WorkbenchError("an object of \(byteCount) bytes is larger than the largest body a disk backend writes (1GiB)")
        }
        let storage = try Self.allocate(byteCount)
        PayloadContent.fill(UnsafeMutableRawBufferPointer(start: storage, count: byteCount), key: key)
        self.storage = storage
    }

    /// The payload's bytes (valid while the payload lives).
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage, count: storage == nil ? 0 : byteCount) }

    deinit { storage.map { free($0) } }

    /// malloc, which says no (rather than trapping as `allocate` does) when memory runs out.
    private static func allocate(_ byteCount: Int) throws -> UnsafeMutableRawPointer {
        guard let storage = aligned_alloc(16, (byteCount + 15) & ~15) else {
            throw WorkbenchError("cannot allocate \(byteCount) bytes for an object's payload (out of memory)")
        }
        return storage
    }
}
