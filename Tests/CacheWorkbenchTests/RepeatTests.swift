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

/// Issue 11 §3: `--repeat K` — the median and the spread of every timing figure.
@Suite("--repeat", .onTestWorkers)
struct RepeatTests {
    static func tally(p50: UInt64, wall: Double, hits: Int = 5) -> ReplayTally {
        var tally = ReplayTally()
        tally.requests = 10
        tally.hits = hits
        tally.wallSeconds = wall
        tally.getHit = LatencySummary(count: 5, p50: p50, p90: p50 * 2, p99: p50 * 3, p999: p50 * 4, max: p50 * 5, mean: Double(p50))
        return tally
    }

    @Test("the row keeps the median of each figure and the first replay's counts; min and max go beside; disagreeing counts are counted")
    func combine() {
        let (odd, spread) = RepeatSpread.combine([Self.tally(p50: 30, wall: 2), Self.tally(p50: 10, wall: 1), Self.tally(p50: 20, wall: 4, hits: 6)])
        #expect(odd.getHit?.p50 == 20 && odd.getHit?.max == 100 && odd.wallSeconds == 2 && odd.hits == 5)
        #expect(spread?.repeats == 3 && spread?.disagreements == 1)
        #expect(spread?.ranges["get_hit_p50_ns"]?.min == 10 && spread?.ranges["get_hit_p50_ns"]?.max == 30)
        #expect(spread?.ranges["throughput_rps"]?.min == 2.5 && spread?.ranges["throughput_rps"]?.max == 10)
        #expect(spread?.ranges["set_p50_ns"] == nil)  // not timed: no spread, empty cells
        let (even, _) = RepeatSpread.combine([Self.tally(p50: 10, wall: 1), Self.tally(p50: 21, wall: 3)])
        #expect(even.getHit?.p50 == 16 && even.wallSeconds == 2)  // the mean of the middle two, rounded
        #expect(RepeatSpread.combine([Self.tally(p50: 10, wall: 1)]).1 == nil)
    }

    @Test("CLI: --repeat 3 gives one row per point with repeats = 3, the medians between min and max, counts as one replay's")
    func cli() throws {
        let folder = TemporaryFolder()
        let csv = folder.path + "/r.csv"
        let result = try bench(["run", "--backend", "lru,fifo", "--capacity", "16MiB", "--repeat", "3", "--csv", csv])
        #expect(result.status == 0 && result.out.contains("medians of 3 repeats above"))
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").map { CSVRowText.fields(of: String($0)) }
        #expect(lines.count == 3)
        let header = lines[0]
        func value(_ row: [String], _ name: String) -> Double { Double(row[header.firstIndex(of: name)!]) ?? .nan }
        for row in lines.dropFirst() {
            #expect(value(row, "repeats") == 3)
            for column in ["get_hit_p50_ns", "set_p99_ns", "throughput_rps"] {
                #expect(value(row, column + "_min") <= value(row, column) && value(row, column) <= value(row, column + "_max"), "\(column)")
            }
        }
        let once = try bench(["run", "--backend", "lru,fifo", "--capacity", "16MiB", "--no-timing", "--csv", folder.path + "/one.csv"])
        #expect(once.status == 0)
        let single = try String(contentsOfFile: folder.path + "/one.csv", encoding: .utf8).split(separator: "\n").map { CSVRowText.fields(of: String($0)) }
        #expect(value(single[1], "hits") == value(lines[1], "hits") && value(single[1], "repeats") == 1 && single[1][header.firstIndex(of: "throughput_rps_min")!] == "")
        let bad = try bench(["run", "--repeat", "0"])
        #expect(bad.status == 2 && bad.err.contains("--repeat must be from 1 to 1000"))
    }
}
