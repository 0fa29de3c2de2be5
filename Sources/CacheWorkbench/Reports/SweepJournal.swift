import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A sweep's finished rows as they finish, in `FILE.partial` next to the `--csv FILE`:
/// line 1 identifies the sweep (`SweepRun.fingerprint`), line 2 is the CSV header, then one
/// line per finished point, `index<TAB>row` (the row's line breaks escaped), each synced to
/// disk before the next point's progress is shown.
///
/// The journal is created exclusively (an existing one is an interrupted sweep: `--resume`
/// continues it, nothing overwrites it); `--resume` opens it without following a link,
/// checks the identity line and the header, keeps every well-formed row (the last one of a
/// point run twice) whose sweep point, backend and capacity are its index's planned ones,
/// and cuts a last line the interruption left half-written. Removed once `FILE` is written whole.
///
/// A new journal's first two lines may wait for the sweep's first row (`identify`): the
/// fingerprint holds the trace's checksum, which the pass that runs the first points gives
/// (`TraceFactsPass`); the file is made and locked at once all the same, and removed when
/// the sweep stops before any row (`removeIfUnidentified`).
///
/// The sweep holds an exclusive `flock` on the journal for its whole life (taken before
/// anything is read or written), so a second sweep on the same `--csv` (with or without
/// `--resume`) is refused at once instead of interleaving its rows with the first's.
package final class SweepJournal: @unchecked Sendable {
    package let path: String
    /// Rows already finished, by point index.
    package private(set) var finishedRows: [Int: String] = [:]
    /// The journal line each resumed row was read from, by point index.
    package private(set) var finishedLines: [Int: Int] = [:]
    private let descriptor: Int32

    /// Whether lines 1 and 2 are written (`identify`): rows may follow.
    package private(set) var identified = false

    /// `fingerprint` nil: a new journal whose lines 1 and 2 wait for `identify` (not with `resume`).
    package init(path: String, fingerprint: String?, resume: Bool, points: [SweepJournalText.PlannedPoint]) throws {
        self.path = path
        guard resume else {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard descriptor >= 0 else {
                if errno == EEXIST {
                    try Self.refuseIfLocked(path)
                    throw WorkbenchError("\(path) exists: an interrupted sweep's finished rows; add --resume to complete it, or remove the file to start again")
                }
                throw WorkbenchError("\(path): cannot create the sweep journal: \(String(cString: strerror(errno)))")
            }
            self.descriptor = descriptor  // closed by deinit from here on
            // Until its first point is journaled it holds nothing worth keeping: a SIGINT/SIGTERM
            // exit removes it (`append` hands it over as kept).
            Interruption.created(path)
            try Self.lock(descriptor, path: path)
            if let fingerprint { try identify(fingerprint) }
            return
        }
        guard let fingerprint else { throw WorkbenchError("\(path): --resume needs the sweep's fingerprint before the journal is read") }
        let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw WorkbenchError("\(path): --resume found no journal to continue (\(String(cString: strerror(errno)))); a sweep that finished leaves none")
        }
        // From here on a throw closes the descriptor in deinit (the object is whole).
        self.descriptor = descriptor
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw WorkbenchError("\(path): not a regular file, so not a sweep journal")
        }
        try Self.lock(descriptor, path: path)
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var read = 0
        while read < bytes.count {
            let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + read, $0.count - read, off_t(read)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            read += count
        }
        bytes.removeLast(bytes.count - read)
        let parsed = try SweepJournalText.parse(bytes, path: path, fingerprint: fingerprint, columns: RunResult.columnNames, points: points)
        finishedRows = parsed.rows
        finishedLines = parsed.lines
        journaled = Set(parsed.rows.keys)
        identified = true
        sayKept()
        let complete = parsed.completeBytes
        guard ftruncate(descriptor, off_t(complete)) == 0, lseek(descriptor, 0, SEEK_END) >= 0 else {
            throw WorkbenchError("\(path): cannot cut its unfinished last line: \(String(cString: strerror(errno)))")
        }
    }

    // Unlocked before the close: a child being spawned holds a copy until its exec.
    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Takes the exclusive lock without waiting: another sweep holding it is refused.
    private static func lock(_ descriptor: Int32, path: String) throws {
        try OutputLock.lock(descriptor, path: path) { busy(path, holder: $0) }
    }

    /// Throws `busy` when a running sweep holds the lock on the existing `path`.
    package static func refuseIfLocked(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK { throw busy(path, holder: OutputLock.holder(descriptor)) }
    }

    private static func busy(_ path: String, holder: Int?) -> WorkbenchError {
        WorkbenchError("\(path): another sweep is writing this journal\(holder.map { " (pid \($0))" } ?? ""); wait for it to finish or stop it, then run again (with --resume to continue it)")
    }

    /// Writes a new journal's identity line (the sweep's fingerprint) and the CSV header,
    /// synced; once, before any row.
    package func identify(_ fingerprint: String) throws {
        guard !identified else { return }
        try write(fingerprint + "\n" + RunResult.columnNames.joined(separator: ",") + "\n")
        identified = true
    }

    /// Removes a new journal that never got its identity line (the sweep stopped before its
    /// first row): empty, made by this sweep, and otherwise left for the next to trip on.
    package func removeIfUnidentified() {
        guard !identified else { return }
        if unlink(path) == 0 { Interruption.forget(path) }
    }

    /// Appends a finished point's row and syncs it (after `identify`).
    package func append(index: Int, row: String) throws {
        guard identified else { throw WorkbenchError("\(path): a row before the sweep's identity line (the trace's facts were not known yet)") }
        try write("\(index)\t\(CSVRowText.escape(row))\n")
        journaled.insert(index)
        Interruption.finished(path)
        sayKept()
    }

    /// Points with a row in the journal (resumed or appended): said at an interrupted exit.
    private var journaled: Set<Int> = []

    private func sayKept() {
        Interruption.kept(path, "the sweep's journal, \(journaled.count) finished \(journaled.count == 1 ? "point" : "points"); the same command with --resume continues it")
    }

    /// Journals rows finished by an earlier run (a shard's results file) as if this sweep
    /// had: they are kept, and the failed ones run again, as on `--resume`.
    package func carry(_ rows: [Int: String]) throws {
        for (index, row) in rows.sorted(by: { $0.key < $1.key }) {
            let row = CSVRowText.rewritten(CSVRowText.fields(of: row))  // neutralized as a fresh row is
            try append(index: index, row: row)
            finishedRows[index] = row
        }
    }

    /// Removes the journal (the sweep's CSV is written whole).
    package func remove() throws {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw WorkbenchError("\(path): cannot remove the finished sweep's journal: \(String(cString: strerror(errno)))")
        }
        Interruption.finished(path)
        Interruption.forget(path)
    }

    private func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { bytes in try OutputFile.writeAll(descriptor, UnsafeRawBufferPointer(bytes), path: path) }
        guard fsync(descriptor) == 0 else { throw WorkbenchError("\(path): fsync failed: \(String(cString: strerror(errno)))") }
    }
}
