import WorkbenchCore
import WorkbenchTraces
#if canImport(Glibc)
import Glibc
#endif

/// The key bytes of string-keyed entries, packed into one growable buffer.
///
/// Why not a `String` per entry: each is its own heap object, so removing an entry
/// releases it — an atomic write to a cold cache line (a full barrier on x86) and a
/// `free` — and a purge of 40,000 entries paid that 40,000 times. Here a removal only
/// pushes the span on a free list (a hot array); nothing of the key is touched.
///
/// Space is handed out in 16-byte granules; a freed span is reused by the next key that
/// rounds to the same size, so a cache whose keys have similar lengths (URLs) settles
/// without compaction.
struct KeyArena {
    /// Where one key lives: `offset` in granules, `length` in bytes.
    struct Span {
        var offset: UInt32
        var length: UInt32
    }

    static let granule = 16
    private var storage: [UInt8] = []
    /// Free spans' offsets, indexed by size in granules.
    private var freeOffsets: [[UInt32]] = []

    private static func granules(_ length: Int) -> Int { max(1, (length + granule - 1) / granule) }

    /// Copies the key in and returns where it lives; spans address at most 64 GiB of keys,
    /// and a store past that is an error (the run fails with it), never a trap.
    mutating func store(_ key: UnsafeRawBufferPointer) throws(WorkbenchError) -> Span {
        let size = Self.granules(key.count)
        if size < freeOffsets.count, let reused = freeOffsets[size].popLast() {
            storage.withUnsafeMutableBytes { bytes in
                if let source = key.baseAddress, key.count > 0 {
                    (bytes.baseAddress! + Int(reused) * Self.granule).copyMemory(from: source, byteCount: key.count)
                }
            }
            return Span(offset: reused, length: UInt32(key.count))
        }
        let offset = storage.count / Self.granule
        guard offset + size <= Int(UInt32.max), key.count <= Int(UInt32.max) else {
            throw WorkbenchError("the cache's keys take more than 64 GiB (KeyArena's limit)")
        }
        storage.append(contentsOf: key)
        let padding = size * Self.granule - key.count
        if padding > 0 { storage.append(contentsOf: repeatElement(0, count: padding)) }
        return Span(offset: UInt32(offset), length: UInt32(key.count))
    }

    /// Makes the span's space reusable (its bytes are not touched).
    mutating func release(_ span: Span) {
        let size = Self.granules(Int(span.length))
        if size >= freeOffsets.count { freeOffsets += Array(repeating: [], count: size + 1 - freeOffsets.count) }
        freeOffsets[size].append(span.offset)
    }

    @inline(__always)
    func bytesEqual(_ span: Span, _ key: UnsafeRawBufferPointer) -> Bool {
        guard Int(span.length) == key.count else { return false }
        guard key.count > 0 else { return true }
        return storage.withUnsafeBytes { memcmp($0.baseAddress! + Int(span.offset) * Self.granule, key.baseAddress!, key.count) == 0 }
    }

    func string(_ span: Span) -> String {
        storage.withUnsafeBytes { bytes in
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[Int(span.offset) * Self.granule ..< Int(span.offset) * Self.granule + Int(span.length)]), as: UTF8.self)
        }
    }
}
