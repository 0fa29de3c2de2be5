import WorkbenchCore
import WorkbenchMetrics
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Fills a fresh allocation front to back while another thread prefaults it, so the
/// kernel zeroes pages on the second core instead of in the filler's page faults (they
/// were most of a binary trace's load time: 320 MB of requests for 5M records). Returns
/// once the prefaulting thread has stopped; pages the filler reached first it faulted
/// itself. Where MADV_POPULATE_WRITE is missing (Linux before 5.14, other systems) the
/// thread stops at its first call.
func fillWhilePrefaulting<T>(_ start: UnsafeMutableRawPointer, bytes: Int, _ fill: () throws -> T) rethrows -> T {
    let page = 4096
    let first = (Int(bitPattern: start) + page - 1) & ~(page - 1)
    let last = (Int(bitPattern: start) + bytes) & ~(page - 1)
    guard last - first >= 16 << 20 else { return try fill() }
    let done = DispatchSemaphore(value: 0)
    let stop = StopFlag()
    DispatchQueue.global().async {
        var at = first
        let step = 4 << 20
        while at < last, !stop.value.load(ordering: .relaxed) {
            let length = min(step, last - at)
            #if os(Linux)
            if madvise(UnsafeMutableRawPointer(bitPattern: at), length, 23 /* MADV_POPULATE_WRITE */) != 0 { break }
            #else
            break
            #endif
            at += length
        }
        done.signal()
    }
    defer {
        stop.value.store(true, ordering: .relaxed)
        done.wait()
    }
    return try fill()
}

/// Set when the filler is done, so the prefaulting thread stops early (a relaxed flag: it
/// only saves work).
private final class StopFlag: Sendable {
    let value = Atomic<Bool>(false)
}
