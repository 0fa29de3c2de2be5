import CDiskIO
import CSQLite
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

private func object(_ key: String, _ size: Int, at time: Double = 0) -> Request { Request(time: time, key: key, size: size) }

/// A disk backend in `folder` with its own probe.
private func disk(_ name: String, _ capacity: Int, in folder: String, options: [String: String] = [:],
                  verify: Bool = true, probe: DiskIOProbe = DiskIOProbe()) throws -> any CacheBackend {
    let config = BackendConfig(capacityBytes: capacity, options: options, disk: DiskContext(directory: folder, probe: probe, verify: verify))
    return try BackendRegistry.named(name).make(config)
}

private func store(_ backend: any CacheBackend, _ request: Request) throws {
    try backend.set(request, cost: request.size, payload: Payload(contentFor: request.keyText, byteCount: request.size))
}

@Suite("Disk backends", .onTestWorkers)
struct DiskBackendTests {
    static let names = ["files", "sqlite"]
    /// sqlite with all bodies inline, and with all bodies as files.
    static let variants: [(String, [String: String])] = [
        ("files", [:]), ("sqlite", [:]), ("sqlite", ["inline-limit": "inf"]), ("sqlite", ["inline-limit": "0", "journal-mode": "delete"]),
    ]

    @Test("payloads round trip and verify, across inline and file bodies", arguments: 0..<variants.count)
    func roundTrip(variant: Int) throws {
        let folder = TemporaryFolder()
        let (name, options) = Self.variants[variant]
        let backend = try disk(name, 1 << 30, in: folder.path, options: options)
        for (index, size) in [1, 7, 8, 4095, 4096, 4097, 100_000].enumerated() {
            try store(backend, object("https://x.example/\(index)", size))
        }
        for index in 0..<7 { #expect(try backend.get(object("https://x.example/\(index)", 1))) }
        #expect(try !backend.get(object("https://x.example/missing", 1)))
        try backend.close()
    }

    @Test("files names an entry by the SHA-256 of its key (libcrypto), as sha256sum prints it")
    func fileNamesAreSHA256() {
        // `printf 'd' | sha256sum` and `printf '' | sha256sum`.
        #expect(FileStore.fileName(for: "d") == "18ac3e7343f016890c510e93f935261169d9e3f565436429830faf0934f4f8e4")
        #expect(FileStore.fileName(for: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let piecewise = SHA256Digest.Stream()
        "d".utf8.withContiguousStorageIfAvailable { piecewise.update(UnsafeRawBufferPointer($0)) }
        let digest = piecewise.finalize().map { HexText.encode($0) }
        #expect(digest == FileStore.fileName(for: "d"))
    }

    @Test("files: over capacity, sweep the least recently read down to half")
    func filesSweep() throws {
        let folder = TemporaryFolder()
        let backend = try disk("files", 1000, in: folder.path) as! FileStore
        for key in ["a", "b", "c"] { try store(backend, object(key, 300)) }
        #expect(try backend.get(object("a", 300)))
        try store(backend, object("d", 300))  // 1200 > 1000: b, c, a go (600, 300 ≤ 500)
        #expect(backend.facts.entries == 1)
        #expect(try backend.get(object("d", 300)))
        for key in ["a", "b", "c"] { #expect(try !backend.get(object(key, 300))) }
        #expect(backend.facts.evictions == 3)
        // Their files are gone too (64 hex digits each; only d's is left).
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != CacheFolder.markerName }
        #expect(names == [FileStore.fileName(for: "d")])
    }

    @Test("sqlite: oldest time_stamp first, or least recently read with sqlite-evict lru")
    func sqliteEviction() throws {
        for (order, survivor) in [("oldest", "b"), ("lru", "a")] {
            let folder = TemporaryFolder()
            let backend = try disk("sqlite", 700, in: folder.path, options: ["sqlite-evict": order])
            try store(backend, object("a", 300, at: 1))
            try store(backend, object("b", 300, at: 2))
            #expect(try backend.get(object("a", 300, at: 3)))
            try store(backend, object("c", 300, at: 4))  // 900 > 700: one goes
            #expect(try backend.get(object(survivor, 300)))
            #expect(try !backend.get(object(survivor == "a" ? "b" : "a", 300)))
            #expect(backend.facts.evictions == 1)
            try backend.close()
        }
    }

    @Test("files: entries older than max-age are misses")
    func maxAge() throws {
        let folder = TemporaryFolder()
        let backend = try disk("files", 1 << 20, in: folder.path, options: ["max-age": "10"])
        try store(backend, object("a", 10, at: 0))
        #expect(try backend.get(object("a", 10, at: 10)))
        #expect(try !backend.get(object("a", 10, at: 10.5)))
        #expect(backend.facts.entries == 0)
    }

    @Test("accounted bytes never above capacity once a store returns", arguments: 0..<variants.count)
    func capacityHolds(variant: Int) throws {
        let folder = TemporaryFolder()
        let (name, options) = Self.variants[variant]
        let backend = try disk(name, 50_000, in: folder.path, options: options, verify: true)
        var random = SeededRandom(seed: 5)
        for step in 0..<400 {
            let request = object("k\(random.next() % 60)", Int(random.next() % 9_000) + 1, at: Double(step))
            if try !backend.get(request) { try store(backend, request) }
            #expect(backend.facts.accountedBytes <= 50_000)
        }
        try backend.close()
    }

    @Test("close and reopen: a second run starts warm", arguments: 0..<variants.count)
    func reopen(variant: Int) throws {
        let folder = TemporaryFolder()
        let (name, options) = Self.variants[variant]
        let first = try disk(name, 1 << 20, in: folder.path, options: options)
        for index in 0..<20 { try store(first, object("key/\(index)", 1_000 + index * 300, at: Double(index))) }
        try first.close()
        // A real close even while the backend object lives: the WAL is checkpointed away.
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/Cache.db-wal"))
        let second = try disk(name, 1 << 20, in: folder.path, options: options)
        #expect(second.facts.entries == 20)
        #expect(second.facts.accountedBytes == (0..<20).reduce(0) { $0 + 1_000 + $1 * 300 })
        for index in 0..<20 { #expect(try second.get(object("key/\(index)", 1))) }
        try second.close()
    }

    @Test("hostile keys stay inside the folder")
    func hostileKeys() throws {
        let outer = TemporaryFolder()
        let inside = outer.path + "/cache"
        let backend = try disk("files", 1 << 20, in: inside)
        for key in ["../../etc/x", "../escape", "/absolute/path", "a/b/c", ".manifest", ""] { try store(backend, object(key, 5)) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outer.path) == ["cache"])
        let names = try FileManager.default.contentsOfDirectory(atPath: inside).filter { $0 != CacheFolder.markerName }
        #expect(names.count == 6)
        #expect(names.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) })
        try backend.close()
    }

    @Test("write counts equal the bytes in the files, in controlled cases")
    func countsMatchFiles() throws {
        let folder = TemporaryFolder()
        let probe = DiskIOProbe()
        let files = try disk("files", 1 << 30, in: folder.path, probe: probe)
        for index in 0..<10 { try store(files, object("f\(index)", 1_000 * index + 1)) }
        let sizes = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != CacheFolder.markerName }.map {
            try FileManager.default.attributesOfItem(atPath: folder.path + "/" + $0)[.size] as! Int
        }
        #expect(probe.totals.writeBytes(.data) == sizes.reduce(0, +))
        #expect(probe.totals.totalWriteBytes == sizes.reduce(0, +))

        // SQLite without a journal, one transaction into a fresh database: every page is
        // written once, so the VFS's db bytes are the file's size.
        let sqliteProbe = DiskIOProbe()
        let path = folder.path + "/plain.db"
        let database = try SQLiteDatabase(path: path, backend: "test", probe: sqliteProbe)
        try database.execute("PRAGMA journal_mode=OFF; BEGIN; CREATE TABLE t(b BLOB); INSERT INTO t VALUES (zeroblob(100000)); COMMIT;")
        database.close()
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        #expect(sqliteProbe.totals.writeBytes(.database) == size)
        #expect(sqliteProbe.totals.writeBytes(.journal) == 0)
    }

    @Test("page rounding counts the 4 KiB pages each write touches")
    func pageRounding() {
        let probe = DiskIOProbe()
        for (offset, bytes) in [(0, 4096), (0, 4097), (4000, 100), (8192, 1), (0, 0)] { probe.countWrite(.data, offset: offset, bytes: bytes) }
        #expect(probe.totals.writeBytes(.data) == 4096 + 4097 + 100 + 1)
        #expect(probe.totals.pageBytes[DiskIOProbe.FileKind.data.rawValue] == 4096 + 8192 + 8192 + 4096)
        #expect(probe.totals.writeCalls[DiskIOProbe.FileKind.data.rawValue] == 4)
    }

    @Test("verify: a body changed on disk is an error naming backend and path")
    func verifyCatchesCorruption() throws {
        let folder = TemporaryFolder()
        let backend = try disk("files", 1 << 20, in: folder.path)
        try store(backend, object("k", 64))
        let file = folder.path + "/" + FileStore.fileName(for: "k")
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        bytes[10] ^= 1
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        #expect(throws: DiskError.self) { try backend.get(object("k", 64)) }
        do { _ = try backend.get(object("k", 64)) } catch let error as DiskError {
            #expect(error.backend == "files")
            #expect(error.path == file)
        }
    }

    // MARK: failures: one failed row each, other rows still written

    private func plan(_ folder: String?, failAfter: Int? = nil) throws -> [RunResult] {
        let trace = InMemoryTrace(label: "t", requests: (0..<300).map { object("https://x.example/\($0 % 40)", 5_000 + $0, at: Double($0)) })
        var plan = RunPlan(trace: trace, backends: try BackendRegistry.list(parsing: "lru,sqlite,files"), capacities: [.bytes(100_000)])
        plan.disk.cacheDirectory = folder
        plan.disk.failWritesAfterBytes = failAfter
        return try plan.execute(environment: RunEnvironment.current())
    }

    @Test("an unwritable folder fails the disk rows only")
    func unwritableFolder() throws {
        let folder = TemporaryFolder()
        let file = folder.file("plain-file", "x")
        let results = try plan(file + "/below")
        #expect(results.map(\.failed) == [false, true, true])
        for result in results.dropFirst() {
            #expect(result.tally.failure?.contains(result.backend + ": " + file) == true)
        }
    }

    @Test("a full disk (injected) fails the disk rows only, naming backend and path")
    func diskFull() throws {
        let results = try plan(nil, failAfter: 50_000)
        #expect(results.map(\.failed) == [false, true, true])
        #expect(results[1].tally.failure?.hasPrefix("sqlite: ") == true)
        #expect(results[2].tally.failure?.contains("write failed (injected): No space left on device") == true)
    }

    @Test("a locked or corrupt Cache.db fails the sqlite row only")
    func lockedAndCorrupt() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/sqlite", withIntermediateDirectories: true)
        folder.file("sqlite/" + CacheFolder.markerName, CacheFolder.markerText)
        let path = folder.path + "/sqlite/Cache.db"
        var holder: OpaquePointer?
        #expect(sqlite3_open(path, &holder) == SQLITE_OK)
        #expect(sqlite3_exec(holder, "CREATE TABLE x(y); BEGIN EXCLUSIVE; INSERT INTO x VALUES (1);", nil, nil, nil) == SQLITE_OK)
        let locked = try plan(folder.path)
        sqlite3_exec(holder, "ROLLBACK", nil, nil, nil)
        sqlite3_close(holder)
        #expect(locked.map(\.failed) == [false, true, false])
        #expect(locked[1].tally.failure?.contains("locked") == true)
        #expect(locked[1].tally.failure?.contains(path) == true)

        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        let corrupt = try plan(folder.path)
        #expect(corrupt.map(\.failed) == [false, true, false])
        #expect(corrupt[1].tally.failure?.contains("not a database") == true)
    }
}
