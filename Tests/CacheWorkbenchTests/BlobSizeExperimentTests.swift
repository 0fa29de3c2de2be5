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

@Suite("Blob-size experiment", .onTestWorkers)
struct BlobSizeExperimentTests {
    private func row(_ backend: String, _ size: Int, read: Double) -> BlobSizeExperiment.Row {
        .init(backend: backend, blobBytes: size, blobs: 1, reads: 1, writeMicroseconds: 1, readMicroseconds: read,
              writeAmplification: 1, footprintBytes: 1, spaceAmplification: 1, fsyncs: 0)
    }

    @Test("crossover: the smallest size from which files stay at least 10% faster")
    func crossover() {
        let rows = [row("sqlite", 1, read: 10), row("files", 1, read: 9.5),  // within 10%: not faster
                    row("sqlite", 2, read: 10), row("files", 2, read: 5),
                    row("sqlite", 3, read: 10), row("files", 3, read: 11),  // SQLite again: resets
                    row("sqlite", 4, read: 10), row("files", 4, read: 8), row("sqlite", 5, read: 10), row("files", 5, read: 2)]
        #expect(BlobSizeExperiment.readCrossover(rows) == 4)
        #expect(BlobSizeExperiment.readCrossover(Array(rows.prefix(6))) == nil)
    }

    @Test("a small run measures both stores at every size")
    func smallRun() throws {
        let rows = try BlobSizeExperiment(sizes: [512, 8192], count: 20, reads: 40).run()
        #expect(rows.map(\.backend) == ["sqlite", "files", "sqlite", "files"])
        #expect(rows.map(\.blobs) == [20, 20, 20, 20])
        for row in rows {
            #expect(row.writeAmplification >= 1)
            #expect(row.footprintBytes >= row.blobBytes * row.blobs)
            #expect(row.readMicroseconds > 0 && row.writeMicroseconds > 0)
        }
    }
}
