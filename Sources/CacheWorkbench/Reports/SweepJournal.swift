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
/// point run twice) and cuts a last line the interruption left half-written. Removed once `FILE` is written whole.
final class SweepJournal: @unchecked Sendable {
    let path: String
    /// Rows already finished, by point index.
    private(set) var finishedRows: [Int: String] = [:]
    private let descriptor: Int32

    init(path: String, fingerprint: String, resume: Bool, points: Int) throws {
        self.path = path
        let header = RunResult.columnNames.joined(separator: ",")
        guard resume else {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard descriptor >= 0 else {
                if errno == EEXIST {
                    throw WorkbenchError("\(path) exists: an interrupted sweep's finished rows; add --resume to complete it, or remove the file to start again")
                }
                throw WorkbenchError("\(path): cannot create the sweep journal: \(String(cString: strerror(errno)))")
            }
            self.descriptor = descriptor
            try write(fingerprint + "\n" + header + "\n")
            return
        }
        let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            throw WorkbenchError("\(path): --resume found no journal to continue (\(String(cString: strerror(errno)))); a sweep that finished leaves none")
        }
        self.descriptor = descriptor
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw WorkbenchError("\(path): not a regular file, so not a sweep journal")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var read = 0
        while read < bytes.count {
            let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + read, $0.count - read, off_t(read)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            read += count
        }
        bytes.removeLast(bytes.count - read)
        // Whole lines only: a line without its newline was being written when the sweep stopped.
        let complete = (bytes.lastIndex(of: 0x0A).map { $0 + 1 }) ?? 0
        let lines = String(decoding: bytes[..<complete], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        guard lines.count >= 2, lines[lines.startIndex] == fingerprint else {
            close(descriptor)
            throw WorkbenchError("\(path):1: made by a different sweep (trace, backends, capacities or options differ); repeat the same command with --resume, or remove the file")
        }
        guard lines[lines.startIndex + 1] == header else {
            close(descriptor)
            throw WorkbenchError("\(path):2: its columns differ from this version's; remove the file and run the sweep again")
        }
        for (offset, line) in lines.dropFirst(2).enumerated() {
            // A point may appear again: a failed row that a --resume ran once more (the
            // later row is the one kept).
            guard let tab = line.firstIndex(of: "\t"), let index = Int(line[..<tab]), (0..<points).contains(index) else {
                close(descriptor)
                throw WorkbenchError("\(path):\(offset + 3): not a finished point of this sweep (expected `index<TAB>row`)")
            }
            let row = CSVRowText.unescape(String(line[line.index(after: tab)...]))
            guard CSVRowText.fields(of: row).count == RunResult.columnNames.count else {
                close(descriptor)
                throw WorkbenchError("\(path):\(offset + 3): \(CSVRowText.fields(of: row).count) fields, expected \(RunResult.columnNames.count)")
            }
            finishedRows[index] = row
        }
        guard ftruncate(descriptor, off_t(complete)) == 0, lseek(descriptor, 0, SEEK_END) >= 0 else {
            close(descriptor)
            throw WorkbenchError("\(path): cannot cut its unfinished last line: \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(descriptor) }

    /// Appends a finished point's row and syncs it.
    func append(index: Int, row: String) throws {
        try write("\(index)\t\(CSVRowText.escape(row))\n")
    }

    /// Removes the journal (the sweep's CSV is written whole).
    func remove() throws {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw WorkbenchError("\(path): cannot remove the finished sweep's journal: \(String(cString: strerror(errno)))")
        }
    }

    private func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { bytes in try OutputFile.writeAll(descriptor, UnsafeRawBufferPointer(bytes), path: path) }
        guard fsync(descriptor) == 0 else { throw WorkbenchError("\(path): fsync failed: \(String(cString: strerror(errno)))") }
    }
}
