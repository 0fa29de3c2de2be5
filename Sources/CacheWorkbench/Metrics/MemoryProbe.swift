import CJemalloc
import CJemallocConfig
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The process's real heap as jemalloc sees it, and its resident set.
public enum MemoryProbe {
    /// jemalloc's `stats.allocated`: bytes in live allocations, less the traces held in
    /// memory as key records (`holdTrace`). Its statistics are cached per epoch, so the epoch
    /// is advanced first or the number is stale.
    public static func allocatedBytes() -> Int? {
        var epoch: UInt64 = 1
        guard mallctl("epoch", nil, nil, &epoch, MemoryLayout<UInt64>.size) == 0 else { return nil }
        var allocated = 0
        var size = MemoryLayout<Int>.size
        guard mallctl("stats.allocated", &allocated, &size, nil, 0) == 0 else { return nil }
        return max(0, allocated - heldTraceBytes.load(ordering: .relaxed))
    }

    /// Bytes of the preloaded binary traces alive in the process (`PackedRecordTrace`'s
    /// records, as jemalloc counts them): left out of `allocatedBytes`, so that a row's heap
    /// figures are its replay's whether the trace was streamed or read into memory first
    /// (a `bench run` of several points on a binary trace that fits reads it into memory
    /// once). The resident set still includes them.
    private static let heldTraceBytes = Atomic<Int>(0)

    /// A preloaded trace of `bytes` (its allocation's usable size) is alive. O(1).
    public static func holdTrace(bytes: Int) { heldTraceBytes.add(bytes, ordering: .relaxed) }

    /// That trace is freed. O(1).
    public static func releaseTrace(bytes: Int) { heldTraceBytes.subtract(bytes, ordering: .relaxed) }

    /// The bytes jemalloc counts for the allocation at `pointer` (its size class). O(1).
    public static func usableSize(_ pointer: UnsafeMutableRawPointer) -> Int { malloc_usable_size(pointer) }

    /// jemalloc's own account of what it holds, after advancing its epoch: live
    /// allocations, the pages backing them (`active`: live bytes plus the unused rest of
    /// their pages and size classes), its metadata, and what it has resident (active pages,
    /// freed pages it keeps dirty — never returned with `dirty_decay_ms:-1` — and metadata).
    public struct AllocatorStats: Sendable, Equatable {
        public var allocated: Int
        public var active: Int
        public var metadata: Int
        public var resident: Int
    }

    public static func allocatorStats() -> AllocatorStats? {
        var epoch: UInt64 = 1
        guard mallctl("epoch", nil, nil, &epoch, MemoryLayout<UInt64>.size) == 0 else { return nil }
        func read(_ name: String) -> Int? {
            var value = 0
            var size = MemoryLayout<Int>.size
            return mallctl(name, &value, &size, nil, 0) == 0 ? value : nil
        }
        guard let allocated = read("stats.allocated"), let active = read("stats.active"), let metadata = read("stats.metadata"),
              let resident = read("stats.resident") else { return nil }
        return AllocatorStats(allocated: allocated, active: active, metadata: metadata, resident: resident)
    }

    /// Returns every page jemalloc keeps freed (dirty or muzzy, in every arena) to the
    /// kernel now (`arena.<MALLCTL_ARENAS_ALL>.purge`). With `dirty_decay_ms:-1` nothing
    /// else ever does; a long pass calls it where what was freed will not be allocated
    /// again (a finished scan, tables that doubled), so its resident set follows its heap.
    /// Cost: one madvise per kept extent; next to nothing when none are kept.
    public static func releaseFreedPages() {
        _ = mallctl("arena.4096.purge", nil, nil, nil, 0)  // 4096 = MALLCTL_ARENAS_ALL
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

    /// "jemalloc 5.3.0-… (dirty_decay_ms:-1 muzzy_decay_ms:-1 oversize_threshold:0
    /// lg_extent_max_active_fit:20)" when jemalloc is the process allocator: the options in
    /// force, read back from jemalloc (ours from CJemallocConfig, or MALLOC_CONF's).
    public static var allocatorName: String {
        var version: UnsafePointer<CChar>? = nil
        var size = MemoryLayout<UnsafePointer<CChar>?>.size
        guard mallctl("version", &version, &size, nil, 0) == 0, let version else { return "system malloc" }
        var settings: [String] = []
        for name in ["dirty_decay_ms", "muzzy_decay_ms", "oversize_threshold", "lg_extent_max_active_fit"] {
            var value = 0  // ssize_t or size_t: both one machine word
            var valueSize = MemoryLayout<Int>.size
            if mallctl("opt." + name, &value, &valueSize, nil, 0) == 0 { settings.append("\(name):\(value)") }
        }
        return "jemalloc " + String(cString: version) + (settings.isEmpty ? "" : " (" + settings.joined(separator: " ") + ")")
    }
}

/// Live heap bytes tracked cheaply between `stats.allocated` reads: jemalloc keeps
/// per-thread running totals of bytes allocated and freed, readable through pointers
/// with one load each, so a check per request costs nanoseconds. Exact for a
/// single-threaded replay; other threads' allocations are not seen.
public struct HeapTracker {
    private let allocatedCounter: UnsafeMutablePointer<UInt64>?
    private let freedCounter: UnsafeMutablePointer<UInt64>?
    private let base: Int
    private let allocatedAtBase: UInt64
    private let freedAtBase: UInt64

    public init() {
        allocatedCounter = Self.counter("thread.allocatedp")
        freedCounter = Self.counter("thread.deallocatedp")
        base = MemoryProbe.allocatedBytes() ?? 0
        allocatedAtBase = allocatedCounter?.pointee ?? 0
        freedAtBase = freedCounter?.pointee ?? 0
    }

    public var isAvailable: Bool { allocatedCounter != nil && freedCounter != nil }

    /// The process's allocated bytes now (estimated from this thread's activity).
    @inline(__always)
    public var liveBytes: Int {
        guard let allocatedCounter, let freedCounter else { return base }
        return base + Int(truncatingIfNeeded: allocatedCounter.pointee &- allocatedAtBase)
            - Int(truncatingIfNeeded: freedCounter.pointee &- freedAtBase)
    }

    private static func counter(_ name: String) -> UnsafeMutablePointer<UInt64>? {
        var pointer: UnsafeMutablePointer<UInt64>? = nil
        var size = MemoryLayout<UnsafeMutablePointer<UInt64>?>.size
        guard mallctl(name, &pointer, &size, nil, 0) == 0 else { return nil }
        return pointer
    }
}

/// Peaks of the memory figures over one run, sampled every so many requests.
public struct MemoryPeaks: Sendable, Equatable {
    /// The most the backend accounted at any moment (tracked after every store).
    public var accounted = 0
    public var allocated: Int?
    public var resident: Int?
    /// allocated / accounted measured at the same sample, at the sample where the backend
    /// accounted the most (peaks of the two can fall at different moments).
    public var overheadAtPeak: Double?
    private var accountedAtSample = 0

    public init() {}

    public mutating func sample(accounted: Int) {
        let allocatedNow = MemoryProbe.allocatedBytes()
        if let now = allocatedNow { allocated = max(allocated ?? 0, now) }
        if let now = MemoryProbe.residentBytes() { resident = max(resident ?? 0, now) }
        if let allocatedNow, accounted > 0, accounted >= accountedAtSample {
            accountedAtSample = accounted
            overheadAtPeak = Double(allocatedNow) / Double(accounted)
        }
    }
}
