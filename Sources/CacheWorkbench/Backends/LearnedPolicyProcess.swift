import WorkbenchCore
import WorkbenchTraces
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// libCacheSim's learned policies — GLCache (Yang et al., FAST 2023), LRB (Song et al.,
/// NSDI 2020) and 3L-Cache (libCacheSim's `3LCache`) — run by libCacheSim's own code. Its PyPI
/// package builds them with XGBoost and LightGBM, gradient-boosted-tree libraries no Swift
/// package serves, so a Python process (`scripts/learned_policy.py`, in `.venv`) holds the
/// cache and answers each request over a socket pair. A get is libCacheSim's `cache->get` (a
/// miss inserts the object, evicting as the policy decides), so the replayer's `set` after
/// that miss has nothing left to do; a set of any other object, or a removal (`--mode ops`,
/// `--mode http`), is refused as a failed row: they have no separate insert, and LRB aborts
/// on a removal.
///
/// The counts are libCacheSim's by construction (the same calls as
/// `scripts/reference_libcachesim.py`); latencies measure a round trip to the process, not
/// the policy, and the table says so.
///
/// Complexity: one round trip per request (tens of µs) plus the policy's own work, its
/// training included; `facts` is a round trip too.
package final class LearnedPolicyProcess: CacheBackend {
    package static var needsKeyNames: Bool { false }
    package static var holdsPayloads: Bool { false }

    /// The backends' names and libCacheSim's classes (the package's `libcachesim` module).
    package static let classes: KeyValuePairs<String, String> = ["glcache": "GLCache", "lrb": "LRB", "3lcache": "ThreeLCache"]

    /// The rule evictions rest on when the policy cannot say whether a missed object went in.
    static let assumedInsertion = "missed objects no larger than the cache were taken to have gone in, for the evictions column (asking would change the run: libCacheSim's LRB has no find, and GLCache's changes its state; hits are unaffected)"

    let name: String
    let capacity: Int
    private let process: Process
    /// Our end of the socket pair (a socket, not a pipe: `send` with `MSG_NOSIGNAL` turns a
    /// process that died into an error instead of a SIGPIPE that would end the workbench).
    private let socket: Int32
    /// The id of the last get that missed: its `set` is already done.
    private var missed: UInt64?
    private var lastCounts = BackendFacts(entries: 0, accountedBytes: 0, evictions: 0)
    /// Set once the socket is closed (by `close()` or deinit, whichever comes first): a
    /// descriptor closed twice could be another file's by then.
    private var isShutDown = false

    package init(name: String, capacity: Int) throws {
        guard let className = Self.classes.first(where: { $0.key == name })?.value else {
            throw WorkbenchError("\(name) is not one of libCacheSim's learned policies here (\(Self.classes.map(\.key).joined(separator: ", ")))")
        }
        self.name = name
        self.capacity = capacity
        let python = try PythonEnvironment.ensure(purpose: "\(name) (libCacheSim's \(className))")
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else {
            throw WorkbenchError("\(name): cannot make a socket pair for libCacheSim's process (errno \(errno))")
        }
        socket = ends[0]
        let child = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [SourceCheckout.root.path + "/scripts/learned_policy.py", name, String(capacity)]
        process.standardInput = child
        process.standardOutput = child
        do {
            try process.run()
        } catch {
            Glibc.close(socket)
            isShutDown = true
            throw WorkbenchError("\(name): cannot start \(python) for libCacheSim's \(className): \(error)")
        }
        try? child.close()
        let first: String
        do {
            first = try readLine()
        } catch {
            shutDown()
            throw WorkbenchError("\(name): libCacheSim's \(className) did not start: its process ended (exit status \(process.terminationStatus)) before saying it was ready")
        }
        guard first == "ok" else {
            shutDown()
            throw WorkbenchError("\(name): libCacheSim's \(className) did not start: \(first.hasPrefix("error: ") ? String(first.dropFirst(7)) : "it said \(ErrorText.quote(first))")")
        }
    }

    deinit { shutDown() }

    private func shutDown() {
        guard !isShutDown else { return }
        isShutDown = true
        Glibc.shutdown(socket, Int32(SHUT_RDWR))
        Glibc.close(socket)
        // The script ends when its input does.
        if process.isRunning { process.waitUntilExit() }
    }

    package var settings: String { "" }

    package func get(_ request: Request) throws -> Bool {
        try send(op: 0, request)
        let hit = try receive(1)[0] == 1
        missed = hit ? nil : request.id
        return hit
    }

    package func set(_ request: Request, cost: Int, payload: Payload?) throws {
        guard missed == request.id else {
            throw WorkbenchError("\(name) replays demand fill only (--mode cache): libCacheSim's learned policies store an object only on the miss of a get, and this replay stored one otherwise")
        }
        missed = nil
    }

    /// Refused: libCacheSim's LRB aborts on a removal (its process ends with SIGABRT), and the
    /// only replays that remove (`--mode ops`, `--mode http`) also set outside a get's miss.
    package func remove(_ request: Request) throws {
        throw WorkbenchError("\(name) replays demand fill only (--mode cache): libCacheSim's learned policies store an object only on the miss of a get, and have no removal")
    }

    /// libCacheSim's learned policies have no response to memory pressure.
    package func didReceiveMemoryWarning() throws -> Int { 0 }

    package var facts: BackendFacts {
        // A failed round trip keeps the last counts; the next request's error ends the run.
        guard (try? send(op: 2, Request(time: 0, id: 0, size: 0))) != nil, let bytes = try? receive(32) else { return lastCounts }
        let words = bytes.withUnsafeBytes { raw in (0..<4).map { Int(truncatingIfNeeded: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self))) } }
        lastCounts = BackendFacts(entries: words[0], accountedBytes: words[1], evictions: words[2], fallbacks: words[3],
                                  fallbackRule: words[3] > 0 ? Self.assumedInsertion : nil)
        return lastCounts
    }

    package func close() throws { shutDown() }

    // MARK: - The protocol (scripts/learned_policy.py's docstring)

    private func send(op: UInt8, _ request: Request) throws {
        var message = [UInt8](repeating: 0, count: 25)
        message[0] = op
        withUnsafeBytes(of: request.id.littleEndian) { message.replaceSubrange(1..<9, with: $0) }
        withUnsafeBytes(of: UInt64(request.size).littleEndian) { message.replaceSubrange(9..<17, with: $0) }
        // Whole seconds, as libCacheSim's readers keep them (a time beyond Int64 saturates).
        let seconds = request.time.isFinite ? Int64(exactly: request.time.rounded(.towardZero)) ?? (request.time < 0 ? .min : .max) : 0
        withUnsafeBytes(of: seconds.littleEndian) { message.replaceSubrange(17..<25, with: $0) }
        var sent = 0
        while sent < message.count {
            let count = message.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw ended() }
            sent += count
        }
    }

    private func receive(_ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var received = 0
        while received < count {
            let got = bytes.withUnsafeMutableBytes { recv(socket, $0.baseAddress! + received, count - received, 0) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw ended() }
            received += got
        }
        return bytes
    }

    /// The first line (at most 4 KiB).
    private func readLine() throws -> String {
        var line: [UInt8] = []
        while line.count < 4096 {
            let byte = try receive(1)[0]
            if byte == 0x0A { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }

    private func ended() -> WorkbenchError {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return WorkbenchError("\(name): libCacheSim's process ended mid-run (exit status \(process.terminationStatus))")
    }
}
