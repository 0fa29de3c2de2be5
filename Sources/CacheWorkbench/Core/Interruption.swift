import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM as a request to stop, not a kill: the handler only records the signal,
/// the long loops (a replay and a fanned-out sweep between chunks, `gen` every few thousand
/// rows, the trace scan between chunks, `report`/`plot` while Python runs) call `check()` at
/// their safe points and throw `Interrupted`, and the command unwinds as on any error —
/// each temporary file and folder is removed by its owner on the way out. What the process
/// made and had not finished is also named here (`created`/`finished`), so whatever an
/// unwinding left behind is removed before exit (`finish`); what it finished and keeps (a
/// results CSV with its finished rows, a sweep's journal) is named by `kept` and said in the
/// one line printed at exit. The process then exits 128 + the signal (130, 143).
///
/// Async-signal-safety: the handler does one atomic compare-and-exchange on a preinitialized
/// `Atomic<Int32>` and, for a second signal, `_exit` — both async-signal-safe; nothing in it
/// allocates, locks or touches Swift runtime state. A second signal while the first is being
/// handled ends the process at once (a stuck safe point must not hold the user hostage).
///
/// Complexity: `check()` is one relaxed atomic load (a few instructions, called once per
/// chunk of thousands of requests); `created`/`finished`/`kept` are O(1) under a mutex;
/// `finish` is O(paths named).
public enum Interruption {
    /// The signal received (0: none).
    private static let received = Atomic<Int32>(0)

    private struct Registry {
        /// Paths this process created and has not finished, with whether each is a folder.
        var unfinished: [String: Bool] = [:]
        /// What was finished and stays, by path, in the order first named.
        var kept: [(path: String, what: String)] = []
    }

    private static let registry = Mutex(Registry())

    /// Installs the SIGINT and SIGTERM handlers (the CLI, once, on the main thread before any
    /// other starts, so every thread inherits the mask). A signal the process was started
    /// with ignored (`nohup`, a background job of a script) stays ignored, as the parent
    /// asked; one it was started with blocked (a mask inherited through exec) is unblocked,
    /// or it would stay pending for the whole run.
    public static func install() {
        _ = received.load(ordering: .relaxed)  // initialized here, never first in the handler
        var stops = sigset_t()
        sigemptyset(&stops)
        sigaddset(&stops, SIGINT)
        sigaddset(&stops, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &stops, nil)
        for signal in [SIGINT, SIGTERM] {
            var current = sigaction()
            #if canImport(Glibc)
            let ignored = sigaction(signal, nil, &current) == 0 && unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == 1  // SIG_IGN
            #else
            let ignored = sigaction(signal, nil, &current) == 0 && unsafeBitCast(current.__sigaction_u.__sa_handler, to: Int.self) == 1
            #endif
            if ignored { continue }
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = { Interruption.handle($0) }
            #else
            action.__sigaction_u.__sa_handler = { Interruption.handle($0) }
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART  // reads and writes in flight go on; the loops look at the flag
            sigaction(signal, &action, nil)
        }
    }

    private static func handle(_ signal: Int32) {
        let (first, _) = received.compareExchange(expected: 0, desired: signal, ordering: .relaxed)
        if !first { _exit(128 + signal) }
    }

    /// The signal received, nil when none.
    public static var signal: Int32? {
        let value = received.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }

    /// Throws `Interrupted` once a signal came: called at the loops' safe points.
    @inline(__always)
    public static func check() throws {
        let value = received.load(ordering: .relaxed)
        if value != 0 { throw Interrupted(signal: value) }
    }

    /// Marks a file or folder this process just created and has not finished: removed at an
    /// interrupted exit unless `finished` first.
    public static func created(_ path: String, folder: Bool = false) {
        registry.withLock { $0.unfinished[path] = folder }
    }

    /// The path is no longer this process's to remove (renamed into place, removed, kept).
    public static func finished(_ path: String) {
        registry.withLock { _ = $0.unfinished.removeValue(forKey: path) }
    }

    /// Names what a command finished and keeps at `path` (a later call for the same path
    /// replaces its text): said at an interrupted exit.
    public static func kept(_ path: String, _ what: String) {
        registry.withLock { registry in
            if let index = registry.kept.firstIndex(where: { $0.path == path }) {
                registry.kept[index].what = what
            } else {
                registry.kept.append((path, what))
            }
        }
    }

    /// Forgets a kept path (its command went on and replaced or removed it).
    public static func forget(_ path: String) {
        registry.withLock { $0.kept.removeAll { $0.path == path } }
    }

    /// Removes what is still unfinished and returns the one line to print at an interrupted
    /// exit (without `bench: `), saying what was kept and what was removed.
    public static func finish(_ interruption: Interrupted) -> String {
        let (unfinished, kept) = registry.withLock { registry in
            let taken = (registry.unfinished, registry.kept)
            registry.unfinished = [:]
            return taken
        }
        var removed = 0
        // Deepest first: a temporary file inside a temporary folder goes before the folder.
        for (path, folder) in unfinished.sorted(by: { $0.key.count > $1.key.count }) {
            if folder ? removeTree(path) : (unlink(path) == 0 || errno == ENOENT) { removed += 1 }
        }
        let keptText = kept.isEmpty
            ? "nothing finished to keep"
            : "kept " + kept.map { "\(ErrorText.quote($0.path, limit: 4096)) (\($0.what))" }.joined(separator: ", ")
        let removedText = removed == 0 ? "" : "; removed \(removed) unfinished temporary \(removed == 1 ? "file or folder" : "files and folders") left by the unwinding"
        return "stopped by \(interruption.name) at a safe point: \(keptText)\(removedText)"
    }

    /// Removes a folder this process made, its entries first, never following a link (a
    /// link inside is removed as a name). Complexity: O(entries).
    private static func removeTree(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT }
        guard info.st_mode & S_IFMT == S_IFDIR else { return unlink(path) == 0 }
        if let directory = opendir(path) {
            var names: [String] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(directory)
            for name in names { _ = removeTree(path + "/" + name) }
        }
        return rmdir(path) == 0
    }
}

/// A command stopped at a safe point by SIGINT or SIGTERM (`Interruption`): the CLI removes
/// what is unfinished, says what was kept and exits 128 + `signal`.
public struct Interrupted: Error, CustomStringConvertible, Sendable {
    public var signal: Int32

    public init(signal: Int32) { self.signal = signal }

    public var name: String { signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)" }
    public var exitStatus: Int32 { 128 + signal }
    public var description: String { "stopped by \(name)" }
}
