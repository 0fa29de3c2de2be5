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

/// One `bench run`'s worth of replays through the library (no process, so nothing can
/// hang the suite): `backend` at `capacity` over `requests`, timing off.
private func run(
    _ requests: [Request], backend: String, capacity: Int, options: [String: String] = [:],
    warnings: MemoryWarningSchedule? = nil, cacheDirectory: String? = nil
) throws -> [RunResult] {
    var replay = ReplayOptions()
    replay.timing = false
    replay.memoryWarnings = warnings
    var plan = RunPlan(
        trace: InMemoryTrace(label: "t", requests: requests), backends: try BackendRegistry.list(parsing: backend),
        capacities: [.bytes(capacity)], options: replay)
    plan.backendOptions = options
    plan.disk.cacheDirectory = cacheDirectory
    return try plan.execute(environment: RunEnvironment.current())
}

/// A results row's cell by column name (nil when there is no such column).
private func cell(_ result: RunResult, _ column: String) -> Cell? { RunResult.columnNames.firstIndex(of: column).map { result.cells[$0] } }

/// `count` URL keys of 5,000 bytes (above sqlite's inline limit), each requested twice.
private func urlRequests(count: Int = 4) -> [Request] {
    (0..<2 * count).map { Request(time: Double($0), key: "https://img.test/\($0 % count).jpg", size: 5000) }
}

private func names(_ path: String) -> Set<String> { Set((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []) }

/// Replaces the file at `path` with `kind`: a FIFO, a symbolic link or a hard link to
/// `outside`, or a folder.
private func plant(_ kind: String, at path: String, outside: String) throws {
    try FileManager.default.removeItem(atPath: path)
    switch kind {
    case "fifo": #expect(mkfifo(path, 0o644) == 0)
    case "symlink": try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: outside)
    case "hardlink": #expect(link(outside, path) == 0)
    default: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    }
}

/// What each planted kind is called in the failure.
private let plantedReason = [
    "fifo": "is a FIFO, not a regular file", "symlink": "is a symbolic link, not a regular file",
    "folder": "is a folder, not a regular file", "hardlink": "has 2 hard links",
]

/// The adversarial review of the issue-20 fixes, the disk findings (5, 7, 14).
@Suite("20 review: disk backends", .onTestWorkers)
struct R20DiskTests {
    // MARK: 5 a tier counts only what its disk tier stored

    @Test("20 review 5: flush-to-disk counts only bodies the disk stored; 2,000-byte objects over a 1,000-byte disk are disk_refused (the review's command, hand-computed)")
    func flushRefusedByDisk() throws {
        let folder = TemporaryFolder()
        // 40 requests for k0…k9 (2,000 bytes): a warning after every 5 clears memory, and
        // the disk holds nothing, so all 40 miss. The 7 warnings before the end (after
        // requests 5, 10, …, 35) each try to flush the 5 stored since the last: 35
        // refusals, 0 flushed, 0 disk writes.
        let requests = (0..<40).map { Request(time: Double($0), key: "k\($0 % 10)", size: 2000) }
        let results = try run(
            requests, backend: "tier:lru+files,lru", capacity: 100 * 1024,
            options: ["disk-capacity": "1000", "write": "back", "on-warning": "flush-to-disk"], warnings: .every(5), cacheDirectory: folder.path)
        let tier = results[0]
        #expect(!tier.failed, "\(tier.tally.failure ?? "")")
        #expect(tier.tally.hits == 0 && tier.tally.memoryWarnings == 7)
        #expect(cell(tier, "flushed_to_disk") == .int(0) && cell(tier, "disk_writes") == .int(0) && cell(tier, "disk_entries") == .int(0))
        #expect(cell(tier, "disk_refused") == .int(35))
        #expect(cell(results[1], "disk_refused") == .empty)  // not a tier
        // Appended after the columns that were there (plan_id's and the warnings' come before it).
        let columns = RunResult.columnNames
        #expect((columns.firstIndex(of: "disk_refused") ?? 0) > (columns.firstIndex(of: "plan_id") ?? Int.max) && tier.cells.count == columns.count)
        let notes = TableReport.notes(results).joined(separator: "\n")
        #expect(notes.contains("0 bodies written to disk, 35 kept off the disk (over the disk tier's capacity"), "\(notes)")
        #expect(!notes.contains("flushed on memory warnings"), "\(notes)")
    }

    @Test("20 review 5: a write-through store that fits memory but not the disk tier is disk_refused, not silently skipped")
    func writeThroughRefusedByDisk() throws {
        let folder = TemporaryFolder()
        // a (2,000 bytes) fits memory, not the 1,000-byte disk: 1 refusal; b (400) goes to
        // both: 1 disk write. The second pass hits both in memory.
        let requests = ["a", "b", "a", "b"].enumerated().map { Request(time: Double($0.offset), key: $0.element, size: $0.element == "a" ? 2000 : 400) }
        let results = try run(requests, backend: "tier:lru+files", capacity: 100 * 1024, options: ["disk-capacity": "1000"], cacheDirectory: folder.path)
        let tier = results[0]
        #expect(!tier.failed && tier.tally.hits == 2 && tier.tally.tooLarge == 0)
        #expect(cell(tier, "disk_writes") == .int(1) && cell(tier, "disk_entries") == .int(1) && cell(tier, "disk_refused") == .int(1))
        #expect(TableReport.notes(results).contains { $0.contains("1 bodies written to disk, 1 kept off the disk") }, "\(TableReport.notes(results))")
    }

    // MARK: 7 files' reopen checks every own entry before it removes anything

    @Test("20 review 7, 14: a body of a warm files folder replaced by a FIFO, link, folder or hard link fails the row with its path, removes nothing; once it is gone the folder is still warm",
          arguments: ["fifo", "symlink", "folder", "hardlink"])
    func plantedBody(kind: String) throws {
        let folder = TemporaryFolder()
        let requests = urlRequests()
        let cache = folder.path + "/files"
        let warm = try run(requests, backend: "files", capacity: 1 << 20, cacheDirectory: folder.path)
        #expect(!warm[0].failed && warm[0].tally.hits == 4)
        let bodies = names(cache).filter(CacheFileName.isDigest).sorted()
        #expect(bodies.count == 4 && names(cache).contains(FileStore.manifestName))
        let outside = folder.file("outside.bin", String(repeating: "x", count: 5000))
        let planted = cache + "/" + bodies[0]
        try plant(kind, at: planted, outside: outside)
        let before = names(cache)

        let rerun = try run(requests, backend: "files", capacity: 1 << 20, cacheDirectory: folder.path)[0]
        #expect(rerun.failed)
        let failure = rerun.tally.failure ?? ""
        #expect(failure.contains(planted) && failure.contains(plantedReason[kind]!), "\(failure)")
        #expect(names(cache) == before, "the failed reopen removed \(before.subtracting(names(cache)))")
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == String(repeating: "x", count: 5000))

        // The planted entry gone, the manifest and the other three bodies are still there:
        // 3 warm hits on the first pass, 4 on the second.
        try FileManager.default.removeItem(atPath: planted)
        let recovered = try run(requests, backend: "files", capacity: 1 << 20, cacheDirectory: folder.path)[0]
        #expect(!recovered.failed && recovered.tally.hits == 7, "\(recovered.tally.failure ?? "") hits \(recovered.tally.hits)")
    }

    @Test("20 review 7: a FIFO or link at files' other own names (.manifest.tmp, a body's .tmp) fails the reopen and removes nothing",
          arguments: ["fifo", "symlink"])
    func plantedTemporary(kind: String) throws {
        let folder = TemporaryFolder()
        let cache = folder.path + "/files"
        #expect(try !run(urlRequests(), backend: "files", capacity: 1 << 20, cacheDirectory: folder.path)[0].failed)
        let outside = folder.file("outside.bin", "precious")
        let body = names(cache).filter(CacheFileName.isDigest).sorted()[0]
        for name in [FileStore.manifestName + ".tmp", body + ".tmp"] {
            let planted = cache + "/" + name
            folder.file("files/" + name, "")
            try plant(kind, at: planted, outside: outside)
            let before = names(cache)
            let rerun = try run(urlRequests(), backend: "files", capacity: 1 << 20, cacheDirectory: folder.path)[0]
            #expect(rerun.failed && (rerun.tally.failure ?? "").contains(planted), "\(rerun.tally.failure ?? "")")
            #expect(names(cache) == before)
            try FileManager.default.removeItem(atPath: planted)
        }
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "precious")
    }

    // MARK: 14 a hard link is never read back

    @Test("20 review 14: a body replaced by a hard link to a file outside during a run is not read: the get fails naming the path",
          arguments: ["files", "sqlite"])
    func hardLinkedBodyDuringRun(backend: String) throws {
        let folder = TemporaryFolder()
        let config = BackendConfig(capacityBytes: 1 << 20, disk: DiskContext(directory: folder.path + "/cache", probe: DiskIOProbe()))
        let cache = try BackendRegistry.named(backend).make(config)
        let request = Request(time: 0, key: "https://img.test/a.jpg", size: 5000)
        try cache.set(request, cost: 5000, payload: nil)
        let data = backend == "files" ? folder.path + "/cache" : folder.path + "/cache/fsCachedData"
        let body = try #require(names(data).first { CacheFileName.isDigest($0) || CacheFileName.isUUID($0) })
        let outside = folder.file("outside.bin", String(repeating: "s", count: 5000))
        try plant("hardlink", at: data + "/" + body, outside: outside)
        #expect {
            _ = try cache.get(request)
        } throws: { error in
            "\(error)".contains(data + "/" + body) && "\(error)".contains("has 2 hard links")
        }
    }

    @Test("20 review 14: CountingFiles.read refuses a file with a second hard link, and reads it again once it has one name")
    func readRefusesHardLink() throws {
        let folder = TemporaryFolder()
        let file = folder.file("body", "cache body")
        #expect(link(file, folder.path + "/elsewhere") == 0)
        let files = CountingFiles(backend: "test", probe: DiskIOProbe())
        var bytes: [UInt8] = []
        #expect { _ = try files.read(file, into: &bytes) } throws: { "\($0)".contains(file) && "\($0)".contains("has 2 hard links") }
        #expect(unlink(folder.path + "/elsewhere") == 0)
        #expect(try files.read(file, into: &bytes) && bytes == Array("cache body".utf8))
    }
}
