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

/// Issue 11 §2: the same backend with different options side by side in one run.
@Suite("Backend variants", .onTestWorkers)
struct VariantTests {
    @Test("a list mixes names, groups and variants; each variant once, labelled by its options")
    func parsing() throws {
        let kinds = try BackendRegistry.list(parsing: "lru,s3fifo[fifo-size-ratio=0.05],s3fifo[ fifo-size-ratio = 0.2 ; ghost-size-ratio=0 ],s3fifo,s3fifo[fifo-size-ratio=0.05]")
        #expect(kinds.map(\.label) == ["lru", "s3fifo[fifo-size-ratio=0.05]", "s3fifo[fifo-size-ratio=0.2;ghost-size-ratio=0]", "s3fifo"])
        #expect(kinds[2].variantOptions == ["fifo-size-ratio": "0.2", "ghost-size-ratio": "0"])
        for (text, reason) in [("nscache[bogus=1]", "nscache has no option 'bogus' (it takes key-hash"), ("lru[]", "give options"),
                               ("nscache[key-hash=cf", "end with ']'"), ("nscache[key-hash]", "expected option=value"),
                               ("nscache[key-hash=cf;key-hash=full]", "given twice"), ("nope[a=b]", "nope")] {
            #expect { _ = try BackendRegistry.list(parsing: text) } throws: { "\($0)".contains(reason) }
        }
    }

    @Test("each variant's row equals a run with its options given globally; the variant's options win over global ones")
    func rows() throws {
        let folder = TemporaryFolder()
        let trace = folder.path + "/t.csv"
        try TraceExport.write(InMemoryTrace(label: "zipf", requests: zipfRequests(requests: 20_000, images: 3_000)), to: trace, shape: .plain)
        func run(_ backends: String, options: [String: String] = [:]) throws -> [RunResult] {
            var arguments = RunSetup.Arguments()
            arguments.trace = trace
            arguments.backends = backends
            arguments.capacities = "10%"
            arguments.timing = false
            arguments.backendOptions = options
            return try RunSetup(arguments).execute(progress: ProgressLine(enabled: false)).results
        }
        let side = try run("s3fifo[fifo-size-ratio=0.05],s3fifo[fifo-size-ratio=0.3],s3fifo", options: ["fifo-size-ratio": "0.3", "move-to-main-threshold": "1"])
        let small = try run("s3fifo", options: ["fifo-size-ratio": "0.05", "move-to-main-threshold": "1"])[0]
        let large = try run("s3fifo", options: ["fifo-size-ratio": "0.3", "move-to-main-threshold": "1"])[0]
        #expect(side[0].tally.hits == small.tally.hits && side[0].backendOptions == small.backendOptions)
        #expect(side[1].tally.hits == large.tally.hits && side[2].tally.hits == large.tally.hits)
        #expect(side[0].tally.hits != side[1].tally.hits)
        #expect(side.map(\.variant) == ["fifo-size-ratio=0.05", "fifo-size-ratio=0.3", ""])
        #expect(side.map(\.backendLabel) == ["s3fifo[fifo-size-ratio=0.05]", "s3fifo[fifo-size-ratio=0.3]", "s3fifo"])
        let csv = CSVReport.render(side).split(separator: "\n").map { CSVRowText.fields(of: String($0)) }
        let column = try #require(csv[0].firstIndex(of: "variant"))
        #expect(csv.dropFirst().map { $0[column] } == ["fifo-size-ratio=0.05", "fifo-size-ratio=0.3", ""])
        #expect(TableReport.render(side, environment: RunEnvironment.current()).contains("s3fifo[fifo-size-ratio=0.05]"))
    }

    @Test("CLI: a variant's bad value is one line and exit 2; --cache-dir takes one variant per backend")
    func cli() throws {
        let bad = try bench(["run", "--backend", "nscache[key-hash=zzz]", "--capacity", "1MiB"])
        #expect(bad.status == 2 && bad.err.hasPrefix("bench: error: ") && bad.err.split(separator: "\n").count == 1)
        let folder = TemporaryFolder()
        let twice = try bench(["run", "--backend", "files[fsync=on],files[fsync=off]", "--capacity", "1MiB", "--cache-dir", folder.path + "/c"])
        #expect(twice.status == 2 && twice.err.contains("one variant of each"))
    }
}
