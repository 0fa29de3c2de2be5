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

/// Issue 9 §4: the allocator keeps freed pages (so replays don't time page faults), but
/// RSS stays bounded by the live heap, not by the trace's length.
@Suite("Memory stays bounded", .serialized, .onTestWorkers)
struct MemoryBoundTests {
    @Test("nscache on 150,000 unique 2 KB keys: RSS ≤ 2 × the allocated peak + 64 MiB")
    func boundedRSS() throws {
        let folder = TemporaryFolder()
        let path = folder.path + "/unique.csv"
        let file = try OutputFile(path)
        try file.write("time,key,size\n")
        let padding = String(repeating: "x", count: 2_000)
        for index in 0..<150_000 { try file.write("\(index),https://k.example/\(index)/\(padding),1000\n") }
        try file.commit()
        let result = try bench(["run", "--trace", path, "--backend", "nscache", "--no-materialize", "--capacity", "1MB",
                                "--no-timing", "--csv", folder.path + "/r.csv"])
        #expect(result.status == 0, "\(result.err)")
        let row = try csvRows(folder.path + "/r.csv")[0]
        let allocated = Int(row["allocated_peak_bytes"] ?? "") ?? 0
        let resident = Int(row["rss_peak_bytes"] ?? "") ?? .max
        #expect(allocated > 0)
        // With jemalloc's default lg_extent_max_active_fit the RSS here was ~300 MiB.
        #expect(resident <= 2 * allocated + 64 << 20, "RSS \(resident >> 20) MiB, allocated \(allocated >> 20) MiB")
    }
}
