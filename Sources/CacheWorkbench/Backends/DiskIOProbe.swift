import WorkbenchCore
import WorkbenchTraces
import CDiskIO

/// Counts what a disk backend hands to the operating system: bytes per write call, the
/// 4 KiB pages each call touches, and fsyncs, split by file kind. The counting happens in
/// the I/O layer the backend writes through (`CountingFiles` for its own files, the
/// counting SQLite VFS for the database), so the backend itself never measures.
///
/// Not `/proc/self/io` `write_bytes`: on current kernels large folios inflate that several
/// fold (DESIGN.md).
public final class DiskIOProbe: @unchecked Sendable {  // one replay thread uses it
    public enum FileKind: Int, CaseIterable, Sendable {
        case database, journal, wal, data, other

        public var name: String { ["db", "journal", "wal", "data", "other"][rawValue] }
    }

    /// Totals at one moment.
    public struct Totals: Sendable, Equatable {
        public var writeCalls: [Int]
        public var writeBytes: [Int]
        public var pageBytes: [Int]
        public var syncs: [Int]

        public var totalWriteBytes: Int { writeBytes.reduce(0, +) }
        public var totalPageBytes: Int { pageBytes.reduce(0, +) }
        public var totalSyncs: Int { syncs.reduce(0, +) }
        public func writeBytes(_ kind: FileKind) -> Int { writeBytes[kind.rawValue] }
    }

    let counters: UnsafeMutablePointer<cwb_io_counters>

    /// `failWritesAfterBytes`: fault injection for tests; writes fail as on a full disk once
    /// the total would pass it.
    public init(failWritesAfterBytes: Int? = nil) {
        counters = .allocate(capacity: 1)
        counters.initialize(to: cwb_io_counters())
        counters.pointee.fail_writes_after_bytes = Int64(failWritesAfterBytes ?? -1)
    }

    deinit { counters.deallocate() }

    public var totals: Totals {
        func array<T>(_ tuple: T) -> [Int] {
            withUnsafeBytes(of: tuple) { Array($0.bindMemory(to: Int64.self).prefix(FileKind.allCases.count)).map(Int.init) }
        }
        let c = counters.pointee
        return Totals(writeCalls: array(c.write_calls), writeBytes: array(c.write_bytes), pageBytes: array(c.page_bytes), syncs: array(c.syncs))
    }

    func countWrite(_ kind: FileKind, offset: Int, bytes: Int) {
        cwb_io_count_write(counters, Int32(kind.rawValue), Int64(offset), Int64(bytes))
    }

    func countSync(_ kind: FileKind) { cwb_io_count_sync(counters, Int32(kind.rawValue)) }

    func writeShouldFail(bytes: Int) -> Bool { cwb_io_write_should_fail(counters, Int64(bytes)) != 0 }
}
