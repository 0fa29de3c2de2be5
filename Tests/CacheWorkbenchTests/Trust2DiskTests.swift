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

/// `bench` run with a deadline: a hang is a failure (`timedOut`), never a stuck suite.
private func benchWithin(
    _ seconds: Double, _ arguments: [String], environment: [String: String]? = nil
) throws -> (status: Int32, output: String, timedOut: Bool) {
    let result = try runBounded(Int(seconds.rounded(.up)), try builtBench, arguments, environment: environment ?? [:])
    let timedOut = result.status == 124 || result.status == 137
    return (timedOut ? -1 : result.status, result.out + result.err, timedOut)
}

private func isLink(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
}

private func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
}

private func names(_ path: String) -> Set<String> { Set((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []) }

/// A trace of `count` URL keys of `size` bytes (bodies above sqlite's 4 KiB inline limit
/// go to files), each requested twice.
private func urlTrace(in folder: TemporaryFolder, count: Int = 4, size: Int = 5000) -> String {
    var text = "time,key,size\n"
    for pass in 0..<2 { for item in 0..<count { text += "\(pass * count + item),https://img.test/\(item).jpg,\(size)\n" } }
    return folder.file("t.csv", text)
}

/// Issue 20 ("Trust, second round"), the disk backends' items.
@Suite("Trust 2: disk backends", .onTestWorkers)
struct Trust2DiskTests {
    // MARK: 1.2 foundation-urlcache checks every entry of its reused folder

    /// A warm foundation-urlcache folder (`cache/foundation-urlcache`) and its entry names.
    private func warmURLCache(_ folder: TemporaryFolder, trace: String) throws -> (path: String, entries: [String]) {
        let warm = try benchWithin(20, ["run", "--trace", trace, "--backend", "foundation-urlcache", "--cache-dir", folder.path + "/cache", "--capacity", "1MiB"])
        #expect(warm.status == 0, "\(warm.output)")
        let path = folder.path + "/cache/foundation-urlcache"
        let entries = names(path).filter { $0.hasSuffix(".storedcachedurlresponse") }.sorted()
        #expect(!entries.isEmpty)
        return (path, entries)
    }

    @Test("20 §1.2: an entry of a warm foundation-urlcache folder replaced by a symlink is refused with its path; the target is not read")
    func urlCacheSymlinkedEntry() throws {
        let folder = TemporaryFolder()
        let trace = urlTrace(in: folder)
        let (path, entries) = try warmURLCache(folder, trace: trace)
        let outside = folder.file("outside.txt", "not the workbench's")
        let entry = path + "/" + entries[0]
        try FileManager.default.removeItem(atPath: entry)
        try FileManager.default.createSymbolicLink(atPath: entry, withDestinationPath: outside)
        let rerun = try benchWithin(20, ["run", "--trace", trace, "--backend", "foundation-urlcache", "--cache-dir", folder.path + "/cache", "--capacity", "1MiB"])
        #expect(rerun.status == 1, "\(rerun.output)")
        #expect(rerun.output.contains(entries[0]) && rerun.output.contains("a symbolic link, not a regular file"), "\(rerun.output)")
        #expect(isLink(entry))
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "not the workbench's")
    }

    @Test("20 §1.2: a foreign name, a hard link or a FIFO among foundation-urlcache's entries is refused before Foundation opens it",
          arguments: ["foreign", "hardlink", "fifo"])
    func urlCacheOtherEntries(kind: String) throws {
        let folder = TemporaryFolder()
        let trace = urlTrace(in: folder, count: 2)
        let (path, entries) = try warmURLCache(folder, trace: trace)
        var planted = path + "/notes.txt"
        switch kind {
        case "foreign":
            _ = folder.file("cache/foundation-urlcache/notes.txt", "mine")
        case "hardlink":
            let outside = folder.file("outside.bin", "someone else's")
            planted = path + "/" + entries[0]
            try FileManager.default.removeItem(atPath: planted)
            #expect(link(outside, planted) == 0)
        default:
            // Named like an entry of a key the trace looks up, so Foundation would read it.
            planted = path + "/" + entries[0]
            try FileManager.default.removeItem(atPath: planted)
            #expect(mkfifo(planted, 0o644) == 0)
        }
        let rerun = try benchWithin(10, ["run", "--trace", trace, "--backend", "foundation-urlcache", "--cache-dir", folder.path + "/cache", "--capacity", "1MiB"])
        #expect(!rerun.timedOut)
        #expect(rerun.status == 1, "\(rerun.output)")
        let expected = ["foreign": "is not a file of this backend's name shape", "hardlink": "hard links", "fifo": "a FIFO, not a regular file"][kind]!
        #expect(rerun.output.contains(planted) && rerun.output.contains(expected), "\(rerun.output)")
        #expect(exists(planted))
    }

    // MARK: 1.3 a symlinked --cache-dir or TMPDIR

    @Test("20 §1.3: a --cache-dir that is a symbolic link is refused (exit 2, one line naming it) and nothing is written into its target",
          arguments: ["files", "sqlite", "foundation-urlcache", "tier:lru+files"])
    func symlinkedCacheDir(backend: String) throws {
        let folder = TemporaryFolder()
        let trace = urlTrace(in: folder, count: 2)
        try FileManager.default.createDirectory(atPath: folder.path + "/target", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link", withDestinationPath: folder.path + "/target")
        let result = try benchWithin(20, ["run", "--trace", trace, "--backend", backend, "--cache-dir", folder.path + "/link", "--capacity", "1MiB"])
        #expect(result.status == 2, "\(result.output)")
        #expect(result.output.hasPrefix("bench: error: --cache-dir '\(folder.path)/link' is a symbolic link"), "\(result.output)")
        #expect(result.output.contains("pass the real folder, '\(folder.path)/target'"))
        #expect(result.output.split(separator: "\n").count == 1)
        #expect(names(folder.path + "/target").isEmpty)
    }

    @Test("20 §1.3: a cache folder under a symbolic link is refused by the claim itself (every disk backend, tiers too), nothing written")
    func claimUnderLink() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/target", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link", withDestinationPath: folder.path + "/target")
        for backend in ["files", "sqlite", "foundation-urlcache", "tier:lru+sqlite"] {
            let config = BackendConfig(capacityBytes: 1 << 20, disk: DiskContext(directory: folder.path + "/link/deeper/" + backend, probe: DiskIOProbe()))
            #expect {
                _ = try BackendRegistry.named(backend).make(config)
            } throws: { error in
                "\(error)".contains("has a symbolic link in its path, '\(folder.path)/link'")
                    && "\(error)".contains("pass the real folder, '\(folder.path)/target/deeper/\(backend)'")
            }
        }
        #expect(names(folder.path + "/target").isEmpty)
    }

    @Test("20 §1.3: a TMPDIR that is a symbolic link is resolved before use: the temporary folder's path has no link")
    func symlinkedTMPDIR() throws {
        let folder = TemporaryFolder()
        let trace = urlTrace(in: folder, count: 2)
        try FileManager.default.createDirectory(atPath: folder.path + "/realtmp", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/tmplink", withDestinationPath: folder.path + "/realtmp")
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = folder.path + "/tmplink"
        let csv = folder.path + "/r.csv"
        for backend in ["files", "sqlite"] {
            let result = try benchWithin(
                20, ["run", "--trace", trace, "--backend", backend, "--capacity", "1MiB", "--keep", "--csv", csv], environment: environment)
            #expect(result.status == 0, "\(result.output)")
            let cacheDir = try csvRows(csv).first?["cache_dir"] ?? ""
            #expect(cacheDir.hasPrefix(folder.path + "/realtmp/cwb-\(backend)-"), "\(cacheDir)")
            #expect(exists(cacheDir + "/" + CacheFolder.markerName))
        }
    }

    // MARK: 1.4 a FIFO named like a cache file

    @Test("20 §1.4: a FIFO named like a cache file fails the row at once (exit 1, the path named), no hang",
          arguments: ["files/.manifest", "sqlite/Cache.db", "sqlite/Cache.db-wal", "sqlite/Cache.db-journal", "sqlite/Cache.db-shm"])
    func fifoAtCacheFileName(name: String) throws {
        let folder = TemporaryFolder()
        let trace = urlTrace(in: folder, count: 2)
        let backend = String(name.split(separator: "/")[0])
        let arguments = ["run", "--trace", trace, "--backend", backend, "--cache-dir", folder.path + "/cache", "--capacity", "1MiB"]
        let warm = try benchWithin(20, arguments)
        #expect(warm.status == 0, "\(warm.output)")
        let fifo = folder.path + "/cache/" + name
        if exists(fifo) { try FileManager.default.removeItem(atPath: fifo) }
        #expect(mkfifo(fifo, 0o644) == 0)
        let rerun = try benchWithin(10, arguments)
        #expect(!rerun.timedOut, "the run hung on the FIFO")
        #expect(rerun.status == 1, "\(rerun.output)")
        #expect(rerun.output.contains(fifo) && rerun.output.contains("a FIFO, not a regular file"), "\(rerun.output)")
    }

    // MARK: 1.5 sqlite removes orphaned bodies on reopen

    @Test("20 §1.5: sqlite removes bodies no row names on reopen and counts them (orphans_removed, a note); other names and links stay",
          arguments: ["sqlite", "tier:lru+sqlite"])
    func sqliteOrphans(backend: String) throws {
        let folder = TemporaryFolder()
        let trace = urlTrace(in: folder, count: 3)
        let csv = folder.path + "/r.csv"
        let arguments = ["run", "--trace", trace, "--backend", backend, "--cache-dir", folder.path + "/cache", "--capacity", "1MiB", "--csv", csv]
        let warm = try benchWithin(20, arguments)
        #expect(warm.status == 0, "\(warm.output)")
        let data = folder.path + "/cache/\(backend)/fsCachedData"
        let bodies = names(data)
        #expect(bodies.count == 3)
        for _ in 0..<4 { _ = folder.file("cache/\(backend)/fsCachedData/" + UUID().uuidString, String(repeating: "x", count: 5000)) }
        _ = folder.file("cache/\(backend)/fsCachedData/notes.txt", "mine")
        let outside = folder.file("outside.bin", "precious")
        let linked = data + "/" + UUID().uuidString
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: outside)
        let rerun = try benchWithin(20, arguments)
        #expect(rerun.status == 0, "\(rerun.output)")
        #expect(try csvRows(csv).first?["orphans_removed"] == "4")
        #expect(rerun.output.contains("4 body files that no entry named"), "\(rerun.output)")
        #expect(rerun.output.contains("2 entries of fsCachedData/ were not body files of the store's shape"), "\(rerun.output)")
        #expect(names(data) == bodies.union(["notes.txt", (linked as NSString).lastPathComponent]))
        #expect(isLink(linked))
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "precious")
        // A clean reopen removes nothing and says so with a 0.
        #expect(try benchWithin(20, arguments).status == 0)
        #expect(try csvRows(csv).first?["orphans_removed"] == "0")
    }
}
