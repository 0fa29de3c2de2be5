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

    /// `byteCount` bytes aligned to `alignment` (≤ 4,096), zeroed when mapped.
    static func allocate(byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer {
        #if os(Linux)
        if byteCount >= 2 * size, let mapped = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), mapped != MAP_FAILED {
            // The mapping is page-aligned; the whole huge pages inside it are advised.
            let first = (Int(bitPattern: mapped) + size - 1) & ~(size - 1)
            let end = (Int(bitPattern: mapped) + byteCount) & ~(size - 1)
            if end > first, let pages = UnsafeMutableRawPointer(bitPattern: first) { _ = madvise(pages, end - first, MADV_HUGEPAGE) }
            return mapped
        }
        #endif
        return .allocate(byteCount: byteCount, alignment: alignment)
    }

    /// Frees what `allocate` returned for the same `byteCount`.
    static func deallocate(_ pointer: UnsafeMutableRawPointer, byteCount: Int) {
        #if os(Linux)
        if byteCount >= 2 * size {
            munmap(pointer, byteCount)
            return
        }
        #endif
        pointer.deallocate()
    }
}
