import CJemalloc
#if canImport(Glibc)
import Glibc
#endif

/// The process's real heap as jemalloc sees it, and its resident set.
public enum MemoryProbe {
    /// jemalloc's `stats.allocated`: bytes in live allocations. Its statistics are cached
    /// per epoch, so the epoch is advanced first or the number is stale.
    public static func allocatedBytes() -> Int? {
        var epoch: UInt64 = 1
        guard mallctl("epoch", nil, nil, &epoch, MemoryLayout<UInt64>.size) == 0 else { return nil }
        var allocated = 0
        var size = MemoryLayout<Int>.size
        guard mallctl("stats.allocated", &allocated, &size, nil, 0) == 0 else { return nil }
        return allocated
    }

    /// Resident set size from /proc/self/statm (pages × page size).
    public static func residentBytes() -> Int? {
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 127) }
        guard count > 0 else { return nil }
        let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// "jemalloc 5.3.0-…" when jemalloc is the process allocator, else "system malloc".
    public static var allocatorName: String {
        var version: UnsafePointer<CChar>? = nil
        var size = MemoryLayout<UnsafePointer<CChar>?>.size
        guard mallctl("version", &version, &size, nil, 0) == 0, let version else { return "system malloc" }
        return "jemalloc " + String(cString: version)
    }
}

/// Peaks of the memory figures over one run, sampled every so many requests.
public struct MemoryPeaks: Sendable, Equatable {
    public var accounted = 0
    public var allocated: Int?
    public var resident: Int?

    public init() {}

    public mutating func sample() {
        if let now = MemoryProbe.allocatedBytes() { allocated = max(allocated ?? 0, now) }
        if let now = MemoryProbe.residentBytes() { resident = max(resident ?? 0, now) }
    }
}
