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

@Suite("Similar-keys experiment", .onTestWorkers)
struct SimilarKeysTests {
    @Test("similar keys all share one CFStringHash; control keys all differ; both are long URLs")
    func keySets() {
        let similar = (0..<300).map { SimilarKeysExperiment.key($0, in: .similar) }
        let control = (0..<300).map { SimilarKeysExperiment.key($0, in: .control) }
        #expect(Set(similar).count == 300 && Set(control).count == 300)
        #expect(Set(similar.map(CFStringHash.hash)).count == 1)
        #expect(Set(control.map(CFStringHash.hash)).count == 300)
        #expect((similar + control).allSatisfy { $0.utf16.count == 173 && $0.hasPrefix("https://") })
    }

    @Test("every variant finds every key; rows cover each N, key set and variant")
    func rows() throws {
        let rows = try SimilarKeysExperiment(sizes: [50, 120], lookups: 40).run()
        #expect(rows.count == 2 * 2 * SimilarKeysExperiment.variants.count)
        #expect(rows.allSatisfy { $0.lookups == 40 && $0.get.count == 40 })
        #expect(rows.filter { $0.keySet == .similar }.allSatisfy { $0.distinctCFHashes == 1 })
        #expect(rows.filter { $0.keySet == .control }.allSatisfy { $0.distinctCFHashes == $0.n })
        let csv = SimilarKeysExperiment.csv(rows, environment: RunEnvironment(
            gitRevision: "x", swiftVersion: "6.3.1", allocator: "jemalloc", clockOverheadNanoseconds: 20,
            startedAt: "t", processID: 1))
        #expect(csv.split(separator: "\n").count == rows.count + 1)
        #expect(SimilarKeysExperiment.table(rows).contains("n=120: nscache --key-hash cf"))
    }
}

@Suite("Purge experiment", .onTestWorkers)
struct PurgeExperimentTests {
    @Test("both variants purge the same entries down to the preferred 60%")
    func rows() throws {
        let rows = try PurgeExperiment(entries: 1_000, rounds: 2).run()
        #expect(rows.map(\.backend) == ["autopurge", "autopurge-o1"])
        // 1,001 × 1,000 bytes over a 1,000,000-byte capacity: purge 401,000 bytes = 401 entries.
        #expect(rows.allSatisfy { $0.removed == 401 && $0.purgeNanoseconds.count == 2 })
        #expect(PurgeExperiment.table(rows).contains("cheaper (medians)"))
    }
}
