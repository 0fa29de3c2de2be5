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

/// Issue 22 §8: the report's configuration lists what a paper quotes — the command line,
/// capacities and the working set in the run's unit (objects under --ignore-obj-size),
/// the warm-up and every policy parameter (an admission policy included).
@Suite("report configuration", .serialized, .onTestWorkers)
struct ReportConfigurationTests {
    /// The configuration table of a report page: heading → cell, unescaped.
    static func configuration(_ page: String) -> [String: String] {
        guard let start = page.range(of: "<h2>Configuration") else { return [:] }
        let table = page[start.upperBound...]
        let end = table.range(of: "</table>")?.lowerBound ?? table.endIndex
        var cells: [String: String] = [:]
        for row in table[..<end].components(separatedBy: "<tr><th>").dropFirst() {
            let parts = row.components(separatedBy: "</th><td>")
            guard parts.count == 2 else { continue }
            let value = parts[1].components(separatedBy: "</td>")[0]
            let unescape = { (text: String) in
                text.replacingOccurrences(of: "&#x27;", with: "'").replacingOccurrences(of: "&quot;", with: "\"")
                    .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
            }
            cells[unescape(parts[0])] = unescape(value)
        }
        return cells
    }

    @Test("objects, warm-up, command line and the admission parameter, as run")
    func objectsWarmupAndParameters() throws {
        let folder = TemporaryFolder()
        // 3 distinct keys: the working set is 3 objects under --ignore-obj-size.
        let trace = folder.file("t.csv", "0,1,10\n1,2,10\n2,1,10\n3,3,10\n4,1,10\n5,2,10\n6,2,10\n7,3,10\n")
        let csv = folder.path + "/r.csv"
        let run = try bench(["run", "--trace", trace, "--backend", "lru[admission=bloomfilter],s3fifo", "--capacity", "2",
                             "--ignore-obj-size", "--warmup", "4", "--no-timing", "--csv", csv])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("working set 3 objects;"), "\(run.out)")
        let command = try #require(try csvRows(csv).first?["command"])
        let page = folder.path + "/r.html"
        let report = try bench(["report", csv, "--out", page])
        #expect(report.status == 0, "\(report.err)")
        let config = Self.configuration(try String(contentsOfFile: page, encoding: .utf8))
        #expect(config["command line"] == command && command.hasPrefix("bench run --trace"))
        #expect(config["capacities"] == "2 objects" && config["working set"] == "3 objects")
        #expect(config["capacities in"]?.hasPrefix("objects (--ignore-obj-size") == true)
        #expect(config["warm-up"] == "4 requests replayed first and left out of the figures")
        #expect(config["backend parameters"] == "lru[admission=bloomfilter]: admission=bloomfilter; s3fifo: fifo-size-ratio=0.1;ghost-size-ratio=0.9;move-to-main-threshold=2")
    }
}
