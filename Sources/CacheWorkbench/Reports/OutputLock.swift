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

/// A results file claimed by one process for as long as it writes it: `FILE.lock` beside the
/// output, holding an exclusive `flock` (the sweep journal's lock, `SweepJournal`, on a file
/// of its own). Two `bench run --csv same.csv` at once would otherwise both exit 0 with only
/// the second's rows in the file; the second is refused at once, naming the file and the
/// holder's pid. `bench run` and `bench sweep` take it for their outputs, so a run and a sweep
/// on one CSV exclude each other too.
///
/// The lock file is created exclusively and removed when the lock is given up; one a killed
/// process left (an empty regular file that nobody holds) is taken over. Anything else at
/// that name is refused. Outputs to standard output, a device or a FIFO take no lock.
///
/// Complexity: O(1) system calls to take or give up; naming the holder reads /proc/locks
/// once, O(locks on the system).
public final class OutputLock {
    public let output: String
    let path: String
    private var descriptor: Int32

    /// Claims `output` (a regular file or a new name) or throws `busy`.
    public init(output: String) throws {
        self.output = output
        path = output + ".lock"
        descriptor = try Self.claim(path, output: output)
        Interruption.created(path)  // removed at a SIGINT/SIGTERM exit too
    }

    deinit { release() }

    /// Gives up the claim: the lock file is removed while still held, then closed.
    public func release() {
        guard descriptor >= 0 else { return }
        unlink(path)
        // Unlocked before the close: a child being spawned holds a copy until its exec.
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
        Interruption.finished(path)
    }

    /// Locks for each regular-file output of `outputs` (standard output, devices, FIFOs need
    /// none), taken in order; the first busy one throws and releases those already taken.
    public static func claim(_ outputs: [String?]) throws -> [OutputLock] {
        var locks: [OutputLock] = []
        for output in outputs.compactMap({ $0 }) where !OutputFile.standardOutputNames.contains(output) {
            guard try OutputFile.kind(of: output) != .special else { continue }
            locks.append(try OutputLock(output: output))
        }
        return locks
    }

    private static func claim(_ path: String, output: String) throws -> Int32 {
        // A few tries: a holder finishing between our open and our lock unlinks the name, and
        // the next try creates it afresh.
        for _ in 0..<3 {
            var descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if descriptor < 0 {
                guard errno == EEXIST else { throw WorkbenchError("\(output): cannot create its lock \(path): \(errnoText())") }
                descriptor = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                guard descriptor >= 0 else {
                    if errno == ENOENT { continue }
                    throw WorkbenchError("\(output): \(path) exists and cannot be opened as a lock (\(errnoText())); remove it if no bench process is writing \(output)")
                }
                var info = stat()
                guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size == 0, info.st_nlink == 1 else {
                    close(descriptor)
                    throw WorkbenchError("\(output): \(path) exists and is not a lock the workbench made (an empty regular file); remove or rename it")
                }
            }
            do {
                try lock(descriptor, path: path, busy: { holder in
                    WorkbenchError("\(output): another bench process\(holder.map { " (pid \($0))" } ?? "") is writing this file (it holds \(path)); wait for it to finish or stop it, or name another file")
                })
            } catch {
                close(descriptor)
                throw error
            }
            // Still the file at the name (not one a finishing holder just unlinked)?
            var held = stat(), named = stat()
            if fstat(descriptor, &held) == 0, lstat(path, &named) == 0, held.st_dev == named.st_dev, held.st_ino == named.st_ino {
                return descriptor
            }
            close(descriptor)
        }
        throw WorkbenchError("\(output): its lock \(path) kept changing hands; another bench process is writing this file")
    }

    /// Takes the exclusive `flock` without waiting; a holder is refused with `busy(pid)`.
    static func lock(_ descriptor: Int32, path: String, busy: (Int?) -> WorkbenchError) throws {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK { throw busy(holder(descriptor)) }
            throw WorkbenchError("\(path): cannot lock: \(errnoText())")
        }
    }

    /// The process holding a `flock` on the file open at `descriptor`, from Linux's
    /// /proc/locks (`1: FLOCK ADVISORY WRITE PID MAJOR:MINOR:INODE 0 EOF`, the device in
    /// hex); nil where that is unavailable. O(locks on the system).
    static func holder(_ descriptor: Int32) -> Int? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return nil }
        let device = UInt64(info.st_dev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        for line in table.split(separator: "\n") where !line.contains("->") {
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK" else { continue }
            let file = fields[5].split(separator: ":")
            guard file.count == 3, UInt64(file[0], radix: 16) == major, UInt64(file[1], radix: 16) == minor,
                  UInt64(file[2]) == UInt64(info.st_ino) else { continue }
            return Int(fields[4])
        }
        return nil
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
