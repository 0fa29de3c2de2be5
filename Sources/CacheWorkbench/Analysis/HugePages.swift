import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
#if canImport(Glibc)
import Glibc
#endif

/// Transparent huge pages for large buffers read at random, where every access would
/// otherwise miss the TLB as well as the cache: a stack-distance curve's trees and index.
/// On Linux a buffer of at least 4 MiB is its own anonymous mapping, advised
/// `MADV_HUGEPAGE` before it is first touched (the allocator's reused pages are already
/// small ones); the kernel may still decline, and elsewhere this is a plain allocation.
/// Results never depend on it, only time.
///
/// Not used by replays: a timed replay's page fault could then wait for the kernel to
/// compact memory (`defrag` is `madvise` on common distributions), a stall a latency
/// percentile would report as the cache's.
enum HugePages {
    static let size = 2 << 20

    /// Memory from `allocate`, freed as it was obtained: a mapping is unmapped, an allocation
    /// (small, not on huge pages, or where the mapping failed) deallocated.
    struct Allocation {
        let base: UnsafeMutableRawPointer
        let byteCount: Int
        let isMapped: Bool

        func deallocate() {
            #if os(Linux)
            if isMapped {
                munmap(base, byteCount)
                return
            }
            #endif
            base.deallocate()
        }
    }

    /// `byteCount` bytes aligned to `alignment` (≤ 4,096), zeroed when mapped; on huge pages
    /// when `hugePages` (else a plain allocation, so callers choose with one argument).
    static func allocate(byteCount: Int, alignment: Int, hugePages: Bool = true) -> Allocation {
        #if os(Linux)
        if hugePages, byteCount >= 2 * size, let mapped = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), mapped != MAP_FAILED {
            // The mapping is page-aligned; the whole huge pages inside it are advised.
            let first = (Int(bitPattern: mapped) + size - 1) & ~(size - 1)
            let end = (Int(bitPattern: mapped) + byteCount) & ~(size - 1)
            if end > first, let pages = UnsafeMutableRawPointer(bitPattern: first) { _ = madvise(pages, end - first, MADV_HUGEPAGE) }
            return Allocation(base: mapped, byteCount: byteCount, isMapped: true)
        }
        #endif
        return Allocation(base: .allocate(byteCount: byteCount, alignment: alignment), byteCount: byteCount, isMapped: false)
    }
}
