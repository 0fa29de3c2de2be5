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

private func disk(_ name: String, _ capacity: Int, in folder: String, probe: DiskIOProbe = DiskIOProbe()) throws -> any CacheBackend {
    let config = BackendConfig(capacityBytes: capacity, disk: DiskContext(directory: folder, probe: probe, verify: true))
    return try BackendRegistry.named(name).make(config)
}

private func store(_ backend: any CacheBackend, _ request: Request) throws {
    try backend.set(request, cost: request.size, payload: Payload(contentFor: request.keyText, byteCount: request.size))
}

private func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
}

/// Issue 9 §1: the disk backends never touch what the workbench did not make.
@Suite("Disk safety", .onTestWorkers)
struct DiskSafetyTests {
    @Test("a folder holding someone else's file is refused and the file stays", arguments: ["files", "sqlite"])
    func foreignFolderRefused(backend: String) throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/u/" + backend, withIntermediateDirectories: true)
        let notes = folder.file("u/\(backend)/notes.txt", "mine")
        #expect {
            _ = try disk(backend, 1 << 20, in: folder.path + "/u/" + backend)
        } throws: { error in
            "\(error)".contains("holds files the workbench did not make") && "\(error)".contains(folder.path + "/u/" + backend)
        }
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "mine")
        // Through the CLI: a failed row, exit 1, the file still there.
        let trace = folder.file("t.csv", "time,key,size\n0,a,10\n1,b,10\n")
        let result = try bench(["run", "--trace", trace, "--backend", backend, "--cache-dir", folder.path + "/u", "--capacity", "1MiB"])
        #expect(result.status == 1)
        #expect(result.out.contains("holds files the workbench did not make") || result.err.contains("holds files the workbench did not make"))
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "mine")
    }

    @Test("a symbolic link as the cache folder is refused; the folder it points to is untouched", arguments: ["files", "sqlite"])
    func symlinkFolderRefused(backend: String) throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/precious", withIntermediateDirectories: true)
        let keep = folder.file("precious/keep.txt", "keep")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link", withDestinationPath: folder.path + "/precious")
        #expect { _ = try disk(backend, 1 << 20, in: folder.path + "/link") } throws: { "\($0)".contains("symbolic link") }
        // Even an empty target is not adopted through a link.
        try FileManager.default.removeItem(atPath: keep)
        #expect { _ = try disk(backend, 1 << 20, in: folder.path + "/link") } throws: { "\($0)".contains("symbolic link") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/precious").isEmpty)
    }

    @Test("an empty --cache-dir is refused before anything runs")
    func emptyCacheDirRefused() throws {
        let result = try bench(["run", "--backend", "files", "--cache-dir", "", "--capacity", "1MiB"])
        #expect(result.status == 2)
        #expect(result.err.hasPrefix("bench: error: ") && result.err.contains("--cache-dir"))
        #expect(!exists("/files"))
    }

    @Test("a new or empty folder is claimed with a marker; a marked one reopens; a second claim is refused while held")
    func claimAndLock() throws {
        let folder = TemporaryFolder()
        let first = try CacheFolder.claim(folder.path + "/new/files", backend: "files")
        // The marker's name and text as earlier runs wrote them (literal: a changed constant
        // would orphan every folder they made).
        #expect(try String(contentsOfFile: folder.path + "/new/files/.cacheworkbench", encoding: .utf8) == "CacheWorkbench cache folder, format 1\n")
        #expect { _ = try CacheFolder.claim(folder.path + "/new/files", backend: "files") } throws: { "\($0)".contains("in use by another bench process") }
        first.release()
        _ = try CacheFolder.claim(folder.path + "/new/files", backend: "files")
        folder.file("new/files/" + CacheFolder.markerName, "something else\n")
        #expect { _ = try CacheFolder.claim(folder.path + "/new/files", backend: "files") } throws: { "\($0)".contains("unknown folder format") }
    }

    @Test("a release frees the folder while a copy of the lock's descriptor is still open (a child spawned meanwhile holds one until its exec)")
    func releaseWhileDuplicated() throws {
        let folder = TemporaryFolder()
        let path = folder.path + "/c/files"
        let first = try CacheFolder.claim(path, backend: "files")
        // The copy a concurrent posix_spawn leaves in its child until exec: the same open
        // file description, found through /proc/self/fd.
        let marker = path + "/" + CacheFolder.markerName
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap(Int32.init)
        let held = try #require(descriptors.first { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == marker })
        let copy = dup(held)
        #expect(copy >= 0)
        defer { close(copy) }
        first.release()
        let second = try CacheFolder.claim(path, backend: "files")
        second.release()
    }

    @Test("two bench processes on one --cache-dir: the second is refused at once")
    func twoProcesses() throws {
        let folder = TemporaryFolder()
        let held = try CacheFolder.claim(folder.path + "/c/files", backend: "files")
        defer { held.release() }
        let trace = folder.file("t.csv", "time,key,size\n0,a,10\n")
        let result = try bench(["run", "--trace", trace, "--backend", "files", "--cache-dir", folder.path + "/c", "--capacity", "1MiB"])
        #expect(result.status == 1)
        #expect((result.out + result.err).contains("in use by another bench process"))
    }

    @Test("new files are created exclusively and never through a link")
    func exclusiveCreation() throws {
        let folder = TemporaryFolder()
        let victim = folder.file("victim.txt", "important")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/planted", withDestinationPath: victim)
        let files = CountingFiles(backend: "test", probe: DiskIOProbe())
        let bytes: [UInt8] = Array("cache body".utf8)
        #expect(throws: DiskError.self) { try bytes.withUnsafeBytes { try files.writeNew(folder.path + "/planted", $0) } }
        // The atomic write's temporary name: a planted link there is removed, not followed.
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/body.tmp", withDestinationPath: victim)
        try bytes.withUnsafeBytes { try files.writeAtomically(folder.path + "/body", $0, fsync: false) }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "important")
        var read: [UInt8] = []
        #expect(throws: DiskError.self) { _ = try files.read(folder.path + "/planted", into: &read) }
    }

    @Test("sqlite body files have random UUID names: two runs with one seed share none")
    func unpredictableNames() throws {
        var seen: [Set<String>] = []
        for _ in 0..<2 {
            let folder = TemporaryFolder()
            let backend = try disk("sqlite", 1 << 20, in: folder.path)
            for index in 0..<5 { try store(backend, object("k\(index)", 5000)) }
            try backend.close()
            let names = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/fsCachedData"))
            #expect(names.count == 5 && names.allSatisfy(CacheFileName.isUUID))
            seen.append(names)
        }
        #expect(seen[0].isDisjoint(with: seen[1]))
    }

    @Test("a Cache.db row naming a file outside fsCachedData/ fails the run and removes nothing")
    func hostileRowName() throws {
        let folder = TemporaryFolder()
        let victim = folder.file("important.txt", "important")
        let cache = folder.path + "/cache"
        let backend = try disk("sqlite", 1 << 20, in: cache)
        try store(backend, object("a", 5000))
        try backend.close()
        var handle: OpaquePointer?
        #expect(sqlite3_open(cache + "/Cache.db", &handle) == SQLITE_OK)
        #expect(sqlite3_exec(handle, "UPDATE cfurl_cache_receiver_data SET isDataOnFS=1, receiver_data='../../important.txt'", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(handle)
        #expect { _ = try disk("sqlite", 10, in: cache) } throws: { error in
            "\(error)".contains("not a UUID file name") && "\(error)".contains("Cache.db")
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "important")
    }

    @Test("a files manifest with bad sizes, times or keys fails the run, never traps", arguments: [
        "99999999999999999999\t0\t0\t61", "-5\t0\t0\t61", "\(1 << 40)\t0\t0\t61", "5\tnan\t0\t61", "5\t0\t0\tzz", "5\t0\t0", "5\t0\t0\tff",
    ])
    func hostileManifest(line: String) throws {
        let folder = TemporaryFolder()
        let cache = folder.path + "/cache"
        let backend = try disk("files", 1 << 20, in: cache)
        try store(backend, object("a", 5))
        try backend.close()
        folder.file("cache/.manifest", line + "\n")
        #expect { _ = try disk("files", 1 << 20, in: cache) } throws: { "\($0)".contains("manifest") }
    }

    @Test("warm starts are correct: a second run with another trace verifies every hit", arguments: ["files", "sqlite"])
    func warmStartVerifies(backend: String) throws {
        let folder = TemporaryFolder()
        var first = ImageFeedSpec()
        first.requests = 1500
        first.seed = 1
        var second = first
        second.seed = 2
        let traceA = folder.path + "/a.csv", traceB = folder.path + "/b.csv"
        try TraceExport.write(ImageFeedGenerator(spec: first), to: traceA, shape: .native(withOp: false))
        try TraceExport.write(ImageFeedGenerator(spec: second), to: traceB, shape: .native(withOp: false))
        for trace in [traceA, traceB, traceA] {
            let result = try bench(["run", "--trace", trace, "--backend", backend, "--cache-dir", folder.path + "/c", "--capacity", "20MiB",
                                    "--verify", "--no-timing", "--csv", folder.path + "/r.csv"])
            #expect(result.status == 0, "\(result.out)\(result.err)")
            let row = try csvRows(folder.path + "/r.csv")[0]
            #expect(row["status"] == "ok")
        }
    }

    @Test("a store evicts before it writes, so a full disk frees space first")
    func evictBeforeWrite() throws {
        let name = "files"
        let folder = TemporaryFolder()
        let probe = DiskIOProbe(failWritesAfterBytes: 600)
        let backend = try disk(name, 1000, in: folder.path, probe: probe)
        try store(backend, object("a", 600))
        #expect(throws: DiskError.self) { try store(backend, object("b", 600)) }
        #expect(backend.facts.evictions == 1)
        #expect(backend.facts.accountedBytes == 0)
        if name == "files" { #expect(!exists(folder.path + "/" + FileStore.fileName(for: "a"))) }
    }

    @Test("a warm reopen at a smaller capacity evicts at once", arguments: ["files", "sqlite"])
    func reopenSmaller(backend name: String) throws {
        let folder = TemporaryFolder()
        let backend = try disk(name, 100_000, in: folder.path)
        for index in 0..<10 { try store(backend, object("k\(index)", 8000, at: Double(index))) }
        try backend.close()
        let smaller = try disk(name, 20_000, in: folder.path)
        #expect(smaller.facts.accountedBytes <= 20_000)
        #expect(smaller.facts.entries > 0)
        #expect(try smaller.get(object("k9", 8000)))
        try smaller.close()
    }
}
