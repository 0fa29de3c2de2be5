import Foundation
import Testing
@testable import CacheWorkbench
@testable import WorkbenchReports
@testable import WorkbenchCommands
@testable import WorkbenchCore
@testable import WorkbenchMetrics
@testable import WorkbenchTraces
@testable import WorkbenchHTTP
@testable import WorkbenchBackends
@testable import WorkbenchSimulation
@testable import WorkbenchExperiments

/// Issue 41 ("Trust, third round"), the durability engineer's items: one writer per results
/// file (3.1), resumed journal rows checked and neutralized (3.2), SIGINT/SIGTERM stop at a
/// safe point leaving nothing unfinished behind (5.2), no cache folder in the root or a
/// system folder (5.3), and one message for a refused cache folder (6).
@Suite("Trust3Durability: locks, resumed rows, signals, cache folders", .serialized, .onTestWorkers)
struct Trust3DurabilityTests {
    /// One line of error, exit 2.
    private func refused(_ run: (status: Int32, out: String, err: String)) -> Bool {
        run.status == 2 && run.err.hasPrefix("bench: error: ") && run.err.filter { $0 == "\n" }.count == 1
    }

    private func traceFile(_ folder: TemporaryFolder, name: String = "t.csv", requests: Int = 6_000) throws -> String {
        let path = folder.path + "/" + name
        try TraceExport.write(InMemoryTrace(label: "zipf", requests: zipfRequests(requests: requests, images: requests / 8)), to: path, shape: .plain)
        return path
    }

    private func names(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    // MARK: 3.1

    @Test("41 §3.1: a second run --csv on a file another process writes is refused at once, naming the file and the holder's pid; its rows survive")
    func runLock() throws {
        let folder = TemporaryFolder()
        let trace = try traceFile(folder)
        let csv = folder.path + "/same.csv"
        let holder = try OutputLock(output: csv)  // what a running `bench run --csv same.csv` holds
        let second = try runBounded(30, builtBench, ["run", "--trace", trace, "--backend", "lru", "--capacity", "10%", "--no-timing", "--csv", csv])
        #expect(refused(second), "\(second)")
        #expect(second.err == "bench: error: \(csv): another bench process (pid \(getpid())) is writing this file (it holds \(csv).lock); wait for it to finish or stop it, or name another file\n")
        #expect(!FileManager.default.fileExists(atPath: csv))  // nothing written by the refused run
        // A sweep on the same CSV is refused the same way (run and sweep share the lock).
        let sweep = try runBounded(30, builtBench, ["sweep", "--trace", trace, "--backend", "lru", "--capacity", "10%,20%", "--no-timing", "--csv", csv])
        #expect(refused(sweep) && sweep.err.contains("(pid \(getpid()))") && sweep.err.contains("\(csv).lock"), "\(sweep)")
        #expect(!FileManager.default.fileExists(atPath: csv + ".partial"))  // no journal left by the refused sweep
        holder.release()
        #expect(!FileManager.default.fileExists(atPath: csv + ".lock"))
        // Free again: the run writes its one row and leaves no lock behind.
        let free = try runBounded(30, builtBench, ["run", "--trace", trace, "--backend", "lru", "--capacity", "10%", "--no-timing", "--csv", csv])
        #expect(free.status == 0, "\(free.err)")
        #expect(try csvRows(csv).count == 1)
        #expect(names(folder.path) == ["same.csv", "t.csv"])
    }

    @Test("41 §3.1: two runs at once on one --csv: the second is refused while the first runs, the first's rows are all kept")
    func concurrentRuns() throws {
        let folder = TemporaryFolder()
        let trace = try traceFile(folder, requests: 200_000)
        let csv = folder.path + "/same.csv"
        let arguments = ["run", "--trace", trace, "--backend", "arc,sieve,lru", "--capacity", "1%,5%,10%", "--no-timing", "--csv", csv]
        let first = try Spawned(arguments, in: folder.path)
        #expect(first.waitFor { FileManager.default.fileExists(atPath: csv + ".lock") })
        let second = try runBounded(30, builtBench, arguments)
        #expect(refused(second) && second.err.contains("another bench process (pid \(first.pid))"), "\(second)")
        let status = first.wait()
        #expect(status == 0, "\(first.err)")
        #expect(try csvRows(csv).count == 9)  // the first run's 9 points, none lost
    }

    @Test("41 §3.1: a lock a killed run left (an empty file) is taken over; anything else at its name is refused")
    func staleLock() throws {
        let folder = TemporaryFolder()
        let trace = try traceFile(folder)
        let csv = folder.path + "/r.csv"
        folder.file("r.csv.lock", "")
        let run = try runBounded(30, builtBench, ["run", "--trace", trace, "--backend", "lru", "--capacity", "10%", "--no-timing", "--csv", csv])
        #expect(run.status == 0, "\(run.err)")
        #expect(!FileManager.default.fileExists(atPath: csv + ".lock"))
        folder.file("r.csv.lock", "notes\n")
        let other = try runBounded(30, builtBench, ["run", "--trace", trace, "--backend", "lru", "--capacity", "10%", "--no-timing", "--csv", csv])
        #expect(refused(other) && other.err.contains("\(csv).lock exists and is not a lock the workbench made"), "\(other)")
        #expect(try String(contentsOfFile: csv + ".lock", encoding: .utf8) == "notes\n")
        // gen --out takes the same lock.
        try FileManager.default.removeItem(atPath: csv + ".lock")
        let holder = try OutputLock(output: folder.path + "/g.csv")
        let gen = try runBounded(30, builtBench, ["gen", "--requests", "10", "--out", folder.path + "/g.csv"])
        #expect(refused(gen) && gen.err.contains("(pid \(getpid()))"), "\(gen)")
        withExtendedLifetime(holder) {}
    }

    // MARK: 3.2

    /// A finished 15-point sweep's lines and a journal of `rows` for a `--resume` into r.csv.
    private func journal(_ folder: TemporaryFolder, edit: (inout [String], [String]) -> Void) throws -> (csv: String, resume: SweepRun.Arguments) {
        let trace = try traceFile(folder)
        let whole = folder.path + "/whole.csv"
        _ = try SweepRun(SweepTests.arguments(trace: trace, csv: whole, jobs: 1)).execute(progress: ProgressLine(enabled: false))
        let lines = try String(contentsOfFile: whole, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = CSVRowText.fields(of: lines[0])
        var fields = CSVRowText.fields(of: lines[2])  // point 1
        edit(&fields, header)
        let resume = SweepTests.arguments(trace: trace, csv: folder.path + "/r.csv", jobs: 1, resume: true)
        var setup = resume.run
        setup.parsedCapacities = try CapacitySweep.capacities(parsing: resume.run.capacities, points: resume.points, spacing: .log)
        let fingerprint = SweepRun.fingerprint(try RunSetup(setup).plan, arguments: resume.run)
        // Written as the journal writes rows: fields joined raw (an edit by hand), escaped onto one line.
        let row = fields.map { CSVReport.quote($0) }.joined(separator: ",")
        _ = folder.file("r.csv.partial", [fingerprint, lines[0], "0\t\(lines[1])", "1\t\(CSVRowText.escape(row))"].joined(separator: "\n") + "\n")
        return (folder.path + "/r.csv", resume)
    }

    @Test("41 §3.2: a resumed row whose trace (or mode, cost_model, capacity_bytes, seed, backend_options) was edited is refused, naming the journal line and the column")
    func determinedCellsChecked() throws {
        let cases: [(column: String, value: String)] = [
            ("trace", "=HYPERLINK(\"x\")"), ("mode", "http"), ("cost_model", "pixels"), ("capacity_bytes", "1"), ("seed", "2"), ("trace_sha256", "00"),
            ("backend_options", "hashpower=30"),  // lru's own settings are empty: compared since it is made without a replay
        ]
        for (column, value) in cases {
            let folder = TemporaryFolder()
            let (csv, resume) = try journal(folder) { fields, header in fields[header.firstIndex(of: column)!] = value }
            #expect { try SweepRun(resume).execute(progress: ProgressLine(enabled: false)) } throws: {
                let text = "\($0)"
                return text.hasPrefix("\(csv).partial:4: the row journaled as point 1 has \(column) ") && text.contains(ErrorText.quote(CSVReport.neutralized(value)))
            }
            #expect(!FileManager.default.fileExists(atPath: csv))
        }
    }

    @Test("41 §3.2: a resumed row's other text cells go through the neutralizing writer: an edited formula is text in the final CSV")
    func resumedRowsNeutralized() throws {
        let folder = TemporaryFolder()
        let (csv, resume) = try journal(folder) { fields, header in fields[header.firstIndex(of: "backend_remarks")!] = "=HYPERLINK(\"x\")" }
        let outcome = try SweepRun(resume).execute(progress: ProgressLine(enabled: false))
        #expect(outcome.resumedRows == 2)
        let text = try String(contentsOfFile: csv, encoding: .utf8)
        #expect(!text.contains(",=HYPERLINK"))
        #expect(try csvRows(csv)[1]["backend_remarks"] == "'=HYPERLINK(\"x\")")
        // A row the workbench wrote comes back unchanged (rewriting is the identity on it).
        let whole = try String(contentsOfFile: folder.path + "/whole.csv", encoding: .utf8).split(separator: "\n").map(String.init)
        for line in whole.dropFirst() { #expect(CSVRowText.rewritten(CSVRowText.fields(of: line)) == line) }
    }

    @Test("41 §3.2: backend_options is compared only for backends made without side effects: an in-process policy yes; a learned policy (a Python process), a disk backend and Belady no")
    func settingsOnlyWithoutSideEffects() throws {
        func point(_ name: String) throws -> RunPlan.PreparedPoint {
            RunPlan.PreparedPoint(
                backend: try BackendRegistry.named(name), capacity: .bytes(1 << 20), bytes: 1 << 20, model: .encoded, summary: TraceSummary(),
                config: BackendConfig(capacityBytes: 1 << 20), options: ReplayOptions(), warmedKeys: 0)
        }
        #expect(SweepRun.settingsWithoutReplay(try point("s3fifo")) == "fifo-size-ratio=0.1;ghost-size-ratio=0.9;move-to-main-threshold=2")
        // Making these would start a Python process, need a cache folder, or the trace's future.
        for name in ["glcache", "files", "belady"] { #expect(SweepRun.settingsWithoutReplay(try point(name)) == nil, "\(name)") }
    }

    // MARK: 5.2

    /// `bench` started in the background with its own TMPDIR, to be signalled.
    final class Spawned {
        let process = Process()
        private let errFile: String
        private let capture = TemporaryFolder()

        init(_ arguments: [String], in folder: String, tmpdir: String? = nil) throws {
            // Through Python's exec, with SIGINT and SIGTERM at their defaults: a test runner's
            // children may start with them ignored, which bench (rightly) keeps.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-c", "import os, signal, sys\nsignal.signal(signal.SIGINT, signal.SIG_DFL)\nsignal.signal(signal.SIGTERM, signal.SIG_DFL)\nos.execv(sys.argv[1], sys.argv[1:])", try builtBench] + arguments
            process.currentDirectoryURL = URL(fileURLWithPath: folder)
            var environment = ProcessInfo.processInfo.environment
            if let tmpdir { environment["TMPDIR"] = tmpdir }
            process.environment = environment
            errFile = capture.file("err", "")
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errFile))
            try process.run()
        }

        var pid: Int32 { process.processIdentifier }

        /// Polls `condition` every 10 ms for up to `seconds`; false when it never held or the process ended first.
        func waitFor(seconds: Double = 60, _ condition: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if condition() { return true }
                if !process.isRunning { return condition() }
                usleep(10_000)
            }
            return false
        }

        /// Waits up to 60 s for the exit (then kills it) and returns the status.
        func wait() -> Int32 {
            if !waitFor({ !process.isRunning }) { kill(pid, SIGKILL) }
            process.waitUntilExit()
            return process.terminationStatus
        }

        var err: String { (try? String(contentsOfFile: errFile, encoding: .utf8)) ?? "" }
    }

    /// Starts `arguments`, waits for `ready`, sends `signal`, and returns the exit status and stderr.
    private func interrupt(_ arguments: [String], in folder: String, tmpdir: String, signal: Int32, ready: () -> Bool) throws -> (status: Int32, err: String, caught: Bool) {
        let spawned = try Spawned(arguments, in: folder, tmpdir: tmpdir)
        let caught = spawned.waitFor(ready)
        if caught { kill(spawned.pid, signal) }
        let status = spawned.wait()
        return (status, spawned.err, caught)
    }

    @Test("41 §5.2: SIGINT and SIGTERM to run --backend files,sqlite: exit 130/143, the temporary cache folders gone from TMPDIR, the finished rows kept", arguments: [SIGINT, SIGTERM])
    func signalRun(_ signal: Int32) throws {
        let folder = TemporaryFolder()
        let tmpdir = folder.path + "/tmp"
        try FileManager.default.createDirectory(atPath: tmpdir, withIntermediateDirectories: true)
        let trace = try traceFile(folder, requests: 30_000)
        let csv = folder.path + "/r.csv"
        // lru's point finishes at once (a row is kept); then files' folder appears and the signal comes mid-replay.
        let run = try interrupt(["run", "--trace", trace, "--backend", "lru,files,sqlite", "--capacity", "20%", "--csv", csv], in: folder.path, tmpdir: tmpdir, signal: signal) {
            names(tmpdir).contains { $0.hasPrefix("cwb-files-") || $0.hasPrefix("cwb-sqlite-") }
        }
        #expect(run.caught)
        #expect(run.status == 128 + signal, "\(run.err)")
        let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
        let lines = run.err.split(separator: "\n").filter { $0.hasPrefix("bench: ") }
        #expect(lines == ["bench: stopped by \(name) at a safe point: kept '\(csv)' (1 finished row)"], "\(run.err)")
        #expect(names(tmpdir) == [], "TMPDIR after: \(names(tmpdir))")
        #expect(try csvRows(csv).map { $0["backend"] } == ["lru"])
        #expect(names(folder.path) == ["r.csv", "t.csv", "tmp"])  // no lock, no temporary file
    }

    @Test("41 §5.2: SIGTERM to a sweep keeps its journal (finished points) and removes its lock; --resume then finishes it")
    func signalSweep() throws {
        let folder = TemporaryFolder()
        let tmpdir = folder.path + "/tmp"
        try FileManager.default.createDirectory(atPath: tmpdir, withIntermediateDirectories: true)
        let trace = try traceFile(folder, requests: 60_000)
        let csv = folder.path + "/s.csv"
        let command = ["sweep", "--trace", trace, "--backend", "arc,sieve", "--capacity", "1%..50%", "--points", "8", "--jobs", "1", "--no-timing", "--no-fan-out", "--csv", csv]
        let run = try interrupt(command, in: folder.path, tmpdir: tmpdir, signal: SIGTERM) {
            ((try? String(contentsOfFile: csv + ".partial", encoding: .utf8)) ?? "").split(separator: "\n").count >= 3
        }
        #expect(run.caught && run.status == 143, "\(run.err)")
        let journaled = try String(contentsOfFile: csv + ".partial", encoding: .utf8).split(separator: "\n").count - 2
        #expect(journaled >= 1 && journaled < 16)
        #expect(run.err.contains("bench: stopped by SIGTERM at a safe point: kept '\(csv).partial' (the sweep's journal, \(journaled) finished point"), "\(run.err)")
        #expect(names(folder.path) == ["s.csv.partial", "t.csv", "tmp"] && names(tmpdir) == [])
        let resumed = try runBounded(120, builtBench, command + ["--resume"], in: folder.path)
        #expect(resumed.status == 0, "\(resumed.err)")
        #expect(try csvRows(csv).count == 16)
    }

    @Test("41 §5.2: SIGINT to gen removes its hidden partial output; nothing else is left", arguments: [SIGINT, SIGTERM])
    func signalGen(_ signal: Int32) throws {
        let folder = TemporaryFolder()
        let tmpdir = folder.path + "/tmp"
        try FileManager.default.createDirectory(atPath: tmpdir, withIntermediateDirectories: true)
        let run = try interrupt(["gen", "--requests", "50000000", "--out", folder.path + "/g.csv"], in: folder.path, tmpdir: tmpdir, signal: signal) {
            names(folder.path).contains { $0.hasPrefix(".g.csv.partial-") }
        }
        #expect(run.caught && run.status == 128 + signal, "\(run.err)")
        #expect(run.err.hasSuffix("at a safe point: nothing finished to keep\n"), "\(run.err)")
        #expect(names(folder.path) == ["tmp"] && names(tmpdir) == [])
    }

    @Test("41 §5.2: SIGTERM to report stops its Python child and removes the staging folder from TMPDIR",
          .enabled(if: FileManager.default.fileExists(atPath: SourceCheckout.root.path + "/.venv/bin/python")))
    func signalReport() throws {
        let folder = TemporaryFolder()
        let tmpdir = folder.path + "/tmp"
        try FileManager.default.createDirectory(atPath: tmpdir, withIntermediateDirectories: true)
        let trace = try traceFile(folder)
        let csv = folder.path + "/r.csv"
        #expect(try runBounded(60, builtBench, ["run", "--trace", trace, "--backend", "lru,arc", "--capacity", "5%,20%", "--no-timing", "--csv", csv]).status == 0)
        var staging = ""
        let run = try interrupt(["report", csv, "--out", folder.path + "/r.html"], in: folder.path, tmpdir: tmpdir, signal: SIGTERM) {
            guard let found = names(tmpdir).first(where: { $0.hasPrefix(".cwb-staging-") }) else { return false }
            staging = tmpdir + "/" + found
            return true
        }
        #expect(run.caught && run.status == 143, "\(run.err)")
        #expect(names(tmpdir) == [], "TMPDIR after: \(names(tmpdir))")
        #expect(names(folder.path) == ["r.csv", "t.csv", "tmp"])
        // No process is left running the report script on that staging folder (its --out is in it).
        let left = names("/proc").filter { Int($0) != nil }.filter { pid in
            let command = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
            return String(decoding: command, as: UTF8.self).contains(staging)
        }
        #expect(!staging.isEmpty && left.isEmpty, "\(left)")
    }

    // MARK: 5.3

    @Test("41 §5.3: --cache-dir names the root, a system folder (resolved through '..') or the home folder itself: refused before anything is made")
    func systemFolders() throws {
        let folder = TemporaryFolder()
        let trace = try traceFile(folder, requests: 200)
        let home = folder.path + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let cases: [(dir: String, reason: String)] = [
            ("/", "names the file-system root"),
            ("/tmp/../etc", "names ('/etc' once its links and '..' are resolved) the system folder /etc"),
            ("/usr/local/cache", "is inside /usr, a system folder"),
            ("/proc/sys", "is inside /proc"),
            ("/var", "names the system folder /var"),
            (home, "names your home folder itself"),
        ]
        for (dir, reason) in cases {
            // lru stores no bytes: a build that does not refuse the folder makes nothing there.
            let run = try runBounded(30, builtBench, ["run", "--trace", trace, "--backend", "lru", "--capacity", "1MB", "--no-timing", "--cache-dir", dir],
                                     environment: ["HOME": home])
            #expect(refused(run) && run.err.hasPrefix("bench: error: --cache-dir \(ErrorText.quote(dir, limit: 4096)) \(reason)"), "\(dir): \(run)")
        }
        #expect(names(home) == [])
        #expect(SystemFolders.resolve("/a/./b/../c") == "/a/c")
        #expect(SystemFolders.refusal("/tmp/cwb-cache") == nil && SystemFolders.refusal(home + "/cache", home: home) == nil)
    }

    @Test("41 §5.3: the folders a --cache-dir run created are named under the table, and said to be kept")
    func createdFoldersSaid() throws {
        let folder = TemporaryFolder()
        let trace = try traceFile(folder, requests: 200)
        let run = try runBounded(60, builtBench, ["run", "--trace", trace, "--backend", "files", "--capacity", "1MB", "--no-timing", "--cache-dir", "new/c"], in: folder.path)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("created 'new', 'new/c', 'new/c/files' under --cache-dir; kept"), "\(run.out)")
        let again = try runBounded(60, builtBench, ["run", "--trace", trace, "--backend", "files", "--capacity", "1MB", "--no-timing", "--cache-dir", "new/c"], in: folder.path)
        #expect(again.status == 0 && !again.out.contains("under --cache-dir; kept"), "\(again.out)")  // nothing new made
    }

    // MARK: 6

    @Test("41 §6: a refused DIR/files link says only the refusal: no 'cold start', no 'trace: 0 requests'")
    func oneMessage() throws {
        let folder = TemporaryFolder()
        let trace = try traceFile(folder, requests: 200)
        let dir = folder.path + "/c"
        try FileManager.default.createDirectory(atPath: folder.path + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/files", withDestinationPath: folder.path + "/elsewhere")
        let run = try runBounded(60, builtBench, ["run", "--trace", trace, "--backend", "files", "--capacity", "1MB", "--no-timing", "--cache-dir", dir])
        let all = run.out + run.err
        #expect(all.contains("\(dir)/files") && all.contains("is a symbolic link"), "\(all)")
        #expect(!all.contains("cold start") && !all.contains("trace: 0 requests"), "\(all)")
        #expect(names(folder.path + "/elsewhere") == [])
    }
}
