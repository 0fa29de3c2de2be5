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

/// Issue 21 §7: one `--durability` for every disk backend, its fsyncs counted by hand.
@Suite("Durability: disk caches on equal terms", .serialized, .onTestWorkers)
struct DurabilityTests {
    private static func make(_ name: String, in folder: String, options: [String: String], probe: DiskIOProbe) throws -> any CacheBackend {
        let config = BackendConfig(capacityBytes: 1 << 30, options: options, disk: DiskContext(directory: folder, probe: probe))
        return try BackendRegistry.named(name).make(config)
    }

    private static func store(_ backend: any CacheBackend, _ key: String, _ size: Int) throws {
        try backend.set(Request(time: 0, key: key, size: size), cost: size, payload: Payload(contentFor: key, byteCount: size))
    }

    /// files: `consistent` fsyncs each body before its rename (1 per store); `full` also
    /// fsyncs the folder after the rename (2 per store); `close` writes `.manifest` the
    /// same way. Three stores: none 0, consistent 3 + 1, full 6 + 2.
    @Test("files: fsyncs per store and for the manifest, by level", arguments: [
        ("none", 0, 0), ("consistent", 3, 4), ("full", 6, 8),
    ])
    func filesSyncs(level: String, afterStores: Int, afterClose: Int) throws {
        let folder = TemporaryFolder()
        let probe = DiskIOProbe()
        let backend = try Self.make("files", in: folder.path, options: ["durability": level], probe: probe)
        for key in ["a", "b", "c"] { try Self.store(backend, key, 100) }
        #expect(probe.totals.totalSyncs == afterStores)
        #expect(backend.details.durability == Durability(rawValue: level))
        try backend.close()
        #expect(probe.totals.totalSyncs == afterClose)
        #expect(backend.settings.contains("durability=\(level)"))
    }

    @Test("files: the older fsync option is the level it amounts to (on = consistent, off = none)")
    func filesLegacyOption() throws {
        for (value, level, syncs) in [("on", Durability.consistent, 2), ("off", Durability.none, 0)] {
            let folder = TemporaryFolder()
            let probe = DiskIOProbe()
            let backend = try Self.make("files", in: folder.path, options: ["fsync": value], probe: probe)
            try Self.store(backend, "a", 10)
            try Self.store(backend, "b", 10)
            #expect(backend.details.durability == level)
            #expect(probe.totals.totalSyncs == syncs)
            try backend.close()
        }
    }

    /// sqlite, per store once the WAL exists (sqlite.org/pragma.html#pragma_synchronous and
    /// wal.html): an inline body is one commit; OFF and NORMAL never sync at a commit (NORMAL
    /// syncs at checkpoints, which a few small stores never reach), FULL syncs the WAL once.
    /// A body in `fsCachedData/` adds its own fsync (consistent, full) and the folder's
    /// (full). Per store: none 0/0, consistent 0/1, full 1/3 (inline / file).
    /// The PRAGMA each level sets, as SQLite names it (literal, not `sqliteSynchronous`).
    @Test("sqlite: fsyncs per store, inline and as files, by level", arguments: [
        ("none", 0, 0, "off"), ("consistent", 0, 1, "normal"), ("full", 1, 3, "full"),
    ])
    func sqliteSyncs(level: String, perInlineStore: Int, perFileStore: Int, synchronous: String) throws {
        for (inlineLimit, perStore) in [("inf", perInlineStore), ("0", perFileStore)] {
            let folder = TemporaryFolder()
            let probe = DiskIOProbe()
            let backend = try Self.make("sqlite", in: folder.path, options: ["durability": level, "inline-limit": inlineLimit], probe: probe)
            try Self.store(backend, "warm", 100)  // the WAL's first frames (and FULL's header sync) are behind us
            let before = probe.totals.totalSyncs
            for key in ["a", "b", "c", "d"] { try Self.store(backend, key, 100) }
            #expect(probe.totals.totalSyncs - before == 4 * perStore, "inline-limit \(inlineLimit)")
            #expect(backend.details.durability == Durability(rawValue: level))
            #expect(backend.settings.contains("synchronous=\(synchronous)"), "\(backend.settings)")
            try backend.close()
            if level == "none" { #expect(probe.totals.totalSyncs == 0, "synchronous=OFF never syncs, not even at the closing checkpoint") }
        }
    }

    @Test("sqlite: the older synchronous option sets the PRAGMA and the level it amounts to")
    func sqliteLegacyOption() throws {
        for (value, level) in [("full", Durability.full), ("normal", Durability.consistent), ("off", Durability.none)] {
            let folder = TemporaryFolder()
            let backend = try Self.make("sqlite", in: folder.path, options: ["synchronous": value], probe: DiskIOProbe()) as! URLCacheStore
            #expect(backend.durability == level)
            #expect(backend.synchronous == value)
            try backend.close()
        }
    }

    @Test("a tier's disk takes the level: tier:lru+files at full syncs each written body twice")
    func tierDisk() throws {
        let folder = TemporaryFolder()
        let probe = DiskIOProbe()
        let backend = try Self.make("tier:lru+files", in: folder.path, options: ["durability": "full"], probe: probe)
        for key in ["a", "b", "c"] { try Self.store(backend, key, 100) }
        #expect(probe.totals.totalSyncs == 6)
        #expect(backend.details.durability == .full)
        try backend.close()
    }

    @Test("a bad level, or durability with the older option, is an error naming both")
    func badOptions() throws {
        let folder = TemporaryFolder()
        #expect(throws: WorkbenchError.self) { try Self.make("files", in: folder.path, options: ["durability": "sometimes"], probe: DiskIOProbe()) }
        #expect(throws: WorkbenchError.self) { try Self.make("files", in: folder.path, options: ["durability": "uncontrolled"], probe: DiskIOProbe()) }
        #expect(throws: WorkbenchError.self) { try Self.make("sqlite", in: folder.path, options: ["durability": "full", "synchronous": "normal"], probe: DiskIOProbe()) }
        #expect(throws: WorkbenchError.self) { try Self.make("files", in: folder.path, options: ["durability": "none", "fsync": "on"], probe: DiskIOProbe()) }
    }

    /// Three misses (A, B, C) and one hit at a capacity that holds all: files writes 3 bodies
    /// and the manifest.
    static let trace = "time,key,size\n0,A,400\n1,B,400\n2,A,400\n3,C,400\n"

    @Test("bench run: the durability and fsyncs columns, and the note on what the latencies rest on")
    func endToEnd() throws {
        let folder = TemporaryFolder()
        let tracePath = folder.file("t.csv", Self.trace)
        for (level, filesSyncs) in [("none", "0"), ("consistent", "4"), ("full", "8")] {
            let csv = folder.path + "/\(level).csv"
            let result = try bench(["run", "--trace", tracePath, "--backend", "sqlite,files,sdwebimage", "--capacity", "1MiB",
                                    "--durability", level, "--no-timing", "--csv", csv])
            #expect(result.status == 0, "\(result.err)")
            let rows = try csvRows(csv)
            #expect(rows.map { $0["durability"] } == [level, level, level])
            #expect(rows[1]["fsyncs"] == filesSyncs)
            // sdwebimage's disk is files: the same three bodies and manifest.
            #expect(rows[2]["fsyncs"] == filesSyncs)
            if level == "none" { #expect(rows[0]["fsyncs"] == "0") }
            #expect(result.out.contains("note: disk latencies, writes and fsyncs rest on durability \(level) for every disk backend"))
        }
    }

    @Test("bench run: a backend at another level is said to be off equal terms")
    func unequalTerms() throws {
        let folder = TemporaryFolder()
        let tracePath = folder.file("t.csv", Self.trace)
        let csv = folder.path + "/r.csv"
        let result = try bench(["run", "--trace", tracePath, "--backend", "sqlite[synchronous=full],files", "--capacity", "1MiB", "--no-timing", "--csv", csv])
        #expect(result.status == 0, "\(result.err)")
        #expect(try csvRows(csv).map { $0["durability"] } == ["full", "none"])
        #expect(result.out.contains("disk rows ran under different durability (sqlite[synchronous=full] full, files none)"))
    }

    @Test("bench run: a bad --durability is one error line and exit 2")
    func badLevelExit() throws {
        let folder = TemporaryFolder()
        let tracePath = folder.file("t.csv", Self.trace)
        let result = try bench(["run", "--trace", tracePath, "--backend", "files", "--capacity", "1MiB", "--durability", "fsync"])
        #expect(result.status == 2)
        #expect(result.err.hasPrefix("bench: error: "))
        #expect(result.err.contains("durability must be none, consistent, full, not 'fsync'"))
        #expect(result.err.split(separator: "\n").count == 1)
    }
}
