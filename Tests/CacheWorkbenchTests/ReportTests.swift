import Foundation
import Testing
@testable import CacheWorkbench

@Suite("Reports")
struct ReportTests {
    static let designColumns = """
        run_id, trace, trace_requests, mode, backend, backend_options, cost_model,
        capacity_bytes, requests, hits, misses, object_hit_ratio, byte_hit_ratio,
        get_p50_ns, get_p99_ns, get_p999_ns, get_max_ns, set_p50_ns, set_p99_ns, set_p999_ns,
        throughput_rps, wall_s, accounted_peak_bytes, allocated_peak_bytes, rss_peak_bytes,
        memory_overhead_ratio, memory_warnings, evictions, logical_write_bytes,
        syscall_write_bytes, page_write_bytes, fsyncs, write_amplification,
        disk_footprint_bytes, git_rev, swift_version, allocator
        """.split(whereSeparator: { $0 == "," || $0 == "\n" || $0 == " " }).map(String.init)

    @Test("DESIGN.md's columns come first, in order, and names are unique")
    func columns() {
        #expect(Array(RunResult.columnNames.prefix(Self.designColumns.count)) == Self.designColumns)
        #expect(Set(RunResult.columnNames).count == RunResult.columnNames.count)
    }

    func sampleResults() throws -> [RunResult] {
        let folder = TemporaryFolder()
        let path = folder.file("t,\"odd\".csv", "1,1,4\n2,2,4\n3,1,4\n")
        let plan = RunPlan(
            trace: try TraceFile(path: path), backends: [try BackendRegistry.named("lru")], capacities: [.bytes(8), .share(0.5)])
        let environment = RunEnvironment(
            gitRevision: "abc", swiftVersion: "6.3.1", allocator: "jemalloc", clockOverheadNanoseconds: 20,
            startedAt: "20261122T000000Z", processID: 1)
        return try plan.execute(environment: environment)
    }

    @Test("CSV: one row per run, cells line up with columns, quoting per RFC 4180")
    func csv() throws {
        let results = try sampleResults()
        let text = CSVReport.render(results)
        let folder = TemporaryFolder()
        let path = folder.file("r.csv", text)
        #expect(results.count == 2)
        #expect(results.allSatisfy { $0.cells.count == RunResult.columnNames.count })
        #expect(text.hasPrefix(RunResult.columnNames.joined(separator: ",") + "\n"))
        #expect(text.contains("\"") && text.contains("\"\"odd\"\""))
        #expect(results[1].capacityBytes == 4 && results[1].tally.hits == 0)
        #expect(results[0].tally.hits == 1)
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test("JSON parses and carries the same values; not applicable is null")
    func json() throws {
        let results = try sampleResults()
        let text = JSONReport.render(results, environment: results[0].environment)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let runs = try #require(object["runs"] as? [[String: Any]])
        #expect(runs.count == 2)
        #expect(runs[0]["hits"] as? Int == 1)
        #expect(runs[0]["logical_write_bytes"] is NSNull)
        #expect((object["environment"] as? [String: Any])?["git_rev"] as? String == "abc")
    }

    @Test("atomic writes leave no partial file and report the path on failure")
    func atomic() throws {
        let folder = TemporaryFolder()
        #expect(throws: WorkbenchError.self) { try OutputFile.check(outputs: [("--csv", folder.path + "/missing/out.csv")], inputs: []) }
        #expect(throws: WorkbenchError.self) { try OutputFile.check(outputs: [("--csv", folder.path)], inputs: []) }
        try OutputFile.write("a,b\n", to: folder.path + "/ok.csv")
        #expect(try String(contentsOfFile: folder.path + "/ok.csv", encoding: .utf8) == "a,b\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["ok.csv"])
    }
}
