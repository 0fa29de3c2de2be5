import Foundation
import Testing
@testable import CacheWorkbench

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

/// The adversarial review of the issue-20 fixes, the disk findings (5; 7 and 14 follow).
@Suite("20 review: disk backends")
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
        #expect(RunResult.columnNames.last == "disk_refused" && tier.cells.count == RunResult.columnNames.count)
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
}
