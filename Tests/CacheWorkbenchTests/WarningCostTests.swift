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

/// Issue 21 §4, first bullet: a memory warning's cost measured against the same replay
/// without warnings. Every expectation is computed by hand on small traces.
/// A file of ../shared/data (absent in a clone without it: the test is skipped).
private let warningCostRealTrace = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/data/traces/webcachesim_adaptsize_request.trace.xz").path

@Suite("What memory warnings cost, against a counterfactual replay", .onTestWorkers)
struct WarningCostTests {
    /// `count` requests cycling over 5 keys of 10 bytes, all fitting a 1000-byte cache:
    /// without warnings the first 5 miss and every later one hits.
    static func cycling(_ count: Int) -> InMemoryTrace {
        InMemoryTrace(label: "cycle", requests: (0..<count).map { Request(time: Double($0), key: "k\($0 % 5)", size: 10) })
    }

    static func run(_ backends: String, _ trace: InMemoryTrace, warnings: String) throws -> [RunResult] {
        var options = ReplayOptions()
        options.memoryWarnings = try MemoryWarningSchedule(parsing: warnings)
        options.warningWindow = 5
        let plan = RunPlan(trace: trace, backends: try BackendRegistry.list(parsing: backends), capacities: [.bytes(1_000)], options: options)
        return try plan.execute(environment: RunEnvironment.current())
    }

    static func cell(_ result: RunResult, _ column: String) -> Cell {
        result.cells[RunResult.columnNames.firstIndex(of: column)!]
    }

    @Test("outcome bits find the last difference in a range, across words")
    func lastDifference() {
        var a = OutcomeBits(Array(repeating: false, count: 130))
        var b = a
        #expect(a.lastDifference(from: b, in: 0..<130) == nil)
        a = OutcomeBits((0..<130).map { $0 == 3 || $0 == 64 || $0 == 127 })
        b = OutcomeBits((0..<130).map { $0 == 3 })
        #expect(a.lastDifference(from: b, in: 0..<130) == 127)
        #expect(a.lastDifference(from: b, in: 0..<127) == 64)
        #expect(a.lastDifference(from: b, in: 65..<127) == nil)
        #expect(a.lastDifference(from: b, in: 64..<65) == 64)
        #expect(a.lastDifference(from: b, in: 0..<64) == nil)
        #expect(a[64] && !a[65] && a.count == 130)
    }

    /// 30 requests, a warning before requests 10 and 20 (every:10). Without warnings: 5
    /// misses, 25 hits. A warning empties nscache and autopurge, so requests 10–14 and
    /// 20–24 miss again: 15 hits, 10 lost, 5 per warning; each warning's last difference is
    /// its 5th request (recovery 5), well before the next one (none unrecovered).
    @Test("a clearing cache loses the refill after each warning; one releasing nothing is unaffected")
    func handComputed() throws {
        let results = try Self.run("nscache,autopurge,foundation-nscache,lru", Self.cycling(30), warnings: "every:10")
        for result in results.prefix(2) {
            #expect(result.tally.hits == 15, "\(result.backend)")
            let cost = try #require(result.warningCost)
            #expect(cost.warnings == 2 && cost.hitsLost == 10 && cost.counterfactualHits == 25)
            #expect(cost.hitsLostPerWarning == 5)
            #expect(cost.recoveryRequests == [5, 5] && cost.unrecovered == 0)
            #expect(cost.differingRequests == 10 && cost.differencesBeforeFirstWarning == 0)
            #expect(cost.memoryHitsLost == nil && !cost.unaffected)
            #expect(Self.cell(result, "warning_hits_lost") == .int(10))
            #expect(Self.cell(result, "warning_hits_lost_per_warning") == .double(5))
            #expect(Self.cell(result, "warning_recovery_requests") == .double(5))
            #expect(Self.cell(result, "warning_recovery_max_requests") == .int(5))
            #expect(Self.cell(result, "warnings_unrecovered") == .int(0))
            #expect(Self.cell(result, "warning_memory_hits_lost") == .empty)
            #expect(Self.cell(result, "warning_window") == .int(5))
        }
        // Foundation's NSCache on Linux and the lru policy release nothing on a warning.
        for result in results.suffix(2) {
            #expect(result.tally.hits == 25 && result.tally.warningReleasedBytes == 0, "\(result.backend)")
            let cost = try #require(result.warningCost)
            #expect(cost.unaffected && cost.hitsLost == 0 && cost.recoveryRequests == [0, 0])
            #expect(Self.cell(result, "warning_hits_lost") == .int(0))
        }
        let notes = TableReport.notes(results)
        #expect(notes.contains("2 rows — nscache at 1000B, autopurge at 1000B: 2 memory warnings cost 10 hits (5.00 per warning) against the same replay without warnings (untimed; it had 25 hits); recovered after 5.00 requests on average (up to the last request answered differently from the replay without warnings; longest 5)"), "\(notes)")
        // Both rows have the same sentence: said once, after both (issue 24 §4).
        #expect(notes.contains("2 rows — foundation-nscache at 1000B, lru at 1000B: unaffected by 2 memory warnings (released nothing; every request was answered as in the same replay without warnings (untimed))"), "\(notes)")
    }

    /// every:3 over the same 30 requests: warnings before requests 3, 6, …, 27 (9). After
    /// the first, every request misses (the cache never holds the next key): 0 hits against
    /// 25, 25/9 per warning. Each warning's last difference is the last request before the
    /// next warning (request 5 is k0, a hit without warnings; 3 and 4 miss either way), so
    /// every recovery is 3 and all 9 are unrecovered.
    @Test("warnings closer than the refill never recover")
    func unrecovered() throws {
        let result = try #require(try Self.run("nscache", Self.cycling(30), warnings: "every:3").first)
        let cost = try #require(result.warningCost)
        #expect(result.tally.hits == 0 && cost.warnings == 9 && cost.hitsLost == 25)
        #expect(cost.recoveryRequests == Array(repeating: 3, count: 9) && cost.unrecovered == 9)
        #expect(Self.cell(result, "warning_hits_lost_per_warning") == .double(25.0 / 9.0))
        #expect(TableReport.notes([result]).contains { $0.contains("cost 25 hits") && $0.contains("9 of 9 still differing at the next warning or the end") })
    }

    /// A tier over files, every:10: a warning clears the memory tier, so requests 10–14 and
    /// 20–24 are disk hits (promoted) instead of memory hits. Hits are unchanged (25), so no
    /// hit is lost, but 10 memory hits moved to disk: not unaffected.
    @Test("a tier's warning moves memory hits to disk without losing hits")
    func tierMovesHitsToDisk() throws {
        let result = try #require(try Self.run("tier:nscache+files", Self.cycling(30), warnings: "every:10").first)
        #expect(!result.failed, "\(result.tally.failure ?? "")")
        let cost = try #require(result.warningCost)
        #expect(result.tally.hits == 25 && cost.hitsLost == 0)
        #expect(cost.memoryHitsLost == 10 && cost.diskHitsGained == 10)
        #expect(cost.differingRequests == 0 && !cost.unaffected)
        #expect(Self.cell(result, "warning_memory_hits_lost") == .int(10))
        #expect(Self.cell(result, "warning_disk_hits_gained") == .int(10))
        #expect(TableReport.notes([result]).contains { $0.contains("cost 0 hits") && $0.contains("memory hits lost 10: 10 became disk hits (read and decoded again) and 0 misses") })
    }

    @Test("no schedule, no counterfactual: the columns stay empty")
    func unwarned() throws {
        let plan = RunPlan(trace: Self.cycling(30), backends: try BackendRegistry.list(parsing: "nscache"), capacities: [.bytes(1_000)])
        let result = try #require(try plan.execute(environment: RunEnvironment.current()).first)
        // Outcomes are kept all the same, for the report's paired test (issue 43 §4): 30 requests, 30 bits.
        #expect(result.warningCost == nil && result.tally.requests == 30 && result.tally.outcomes.count == 30)
        for column in RunResult.warningCostColumnNames.dropLast() { #expect(Self.cell(result, column) == .empty, "\(column)") }
        #expect(RunResult.columnNames.count == result.cells.count)
    }

    /// A real recording: the cost equals the hits of a separate run without warnings minus
    /// the warned run's (two `bench run`s, compared through their CSVs).
    @Test("on a real trace, the cost is the difference from a separate run without warnings",
          .enabled(if: FileManager.default.fileExists(atPath: warningCostRealTrace), "needs a trace of ../shared/data; absent in a clone without it"))
    func realTrace() throws {
        let folder = TemporaryFolder()
        let common = ["run", "--trace", warningCostRealTrace, "--format", "webcachesim", "--backend", "nscache,autopurge", "--capacity", "20MiB", "--no-timing"]
        let warned = try bench(common + ["--memory-warning", "every:10000", "--csv", folder.path + "/w.csv"])
        #expect(warned.status == 0, "\(warned.err)")
        let plain = try bench(common + ["--csv", folder.path + "/p.csv"])
        #expect(plain.status == 0, "\(plain.err)")
        let warnedRows = try csvRows(folder.path + "/w.csv"), plainRows = try csvRows(folder.path + "/p.csv")
        for (w, p) in zip(warnedRows, plainRows) {
            let lost = Int(p["hits"]!)! - Int(w["hits"]!)!
            #expect(w["warning_hits_lost"] == String(lost), "\(w["backend"]!)")
            #expect(lost > 0)
            #expect(w["memory_warnings"] == "6")  // 66,987 requests: before 10000, 20000, …, 60000
            #expect(p["warning_hits_lost"] == "")
        }
    }

}
