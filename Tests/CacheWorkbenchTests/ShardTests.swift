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

/// `bench sweep --plan`, `--shard` and `bench merge`, end to end on a generated trace.
@Suite("Plans, shards and merge", .onTestWorkers)
struct ShardTests {
    /// A generated trace, a plan of 3 backends × 4 capacities, and its folder.
    private func planned() throws -> (folder: TemporaryFolder, trace: String, plan: String) {
        let folder = TemporaryFolder()
        let trace = folder.path + "/t.csv"
        let gen = try bench(["gen", "--requests", "6000", "--images", "800", "--seed", "5"], standardOutput: FileHandle(forWritingAtPath: folder.file("t.csv", "")))
        #expect(gen.status == 0)
        let plan = folder.path + "/plan.json"
        let made = try bench(["sweep", "--trace", trace, "--backend", "lru,arc,nscache[key-hash=full]", "--capacity", "1%..20%", "--points", "4", "--no-timing", "--plan", plan])
        #expect(made.status == 0, "\(made.err)")
        return (folder, trace, plan)
    }

    @Test("plan → 3 shards → merge equals a serial sweep of the same points; a rerun skips finished shards")
    func planShardsMerge() throws {
        let (folder, trace, plan) = try planned()
        let text = try String(contentsOfFile: plan, encoding: .utf8)
        let decoded = try SweepPlan.read([UInt8](text.utf8), path: plan)
        #expect(decoded.points.count == 12 && decoded.points.allSatisfy { $0.trace == trace && $0.traceSHA256.count == 64 })
        #expect(decoded.command.suffix(2) == ["--trace", trace] && !decoded.command.contains("--plan"))
        // Shards split the estimated work evenly (longest first: no two differ by more than
        // the largest point), and nscache's materialized points cost far more than arc's.
        let loads = (0..<3).map { shard in decoded.shard(shard, of: 3).map { decoded.points[$0].estimate }.reduce(0, +) }
        #expect(loads.max()! - loads.min()! <= decoded.points.map(\.estimate).max()!)
        #expect(decoded.points[8].estimate > 10 * decoded.points[4].estimate && decoded.points.allSatisfy { $0.estimate > 0 })
        #expect(Set((0..<3).flatMap { decoded.shard($0, of: 3) }) == Set(0..<12))
        for shard in 0..<3 {
            let run = try bench(["sweep", "--plan", plan, "--shard", "\(shard)/3"])
            #expect(run.status == 0, "\(run.err)")
        }
        let serial = folder.path + "/serial.csv"
        let local = try bench(["sweep", "--trace", trace, "--backend", "lru,arc,nscache[key-hash=full]", "--capacity", "1%..20%", "--points", "4", "--no-timing", "--jobs", "1", "--csv", serial])
        #expect(local.status == 0)
        let shards = (0..<3).map { SweepPlan.shardResultsPath(plan: plan, index: $0, count: 3) }
        let merged = folder.path + "/merged.csv"
        let merge = try bench(["merge", "--plan", plan, "--csv", merged, "--against", serial] + shards)
        #expect(merge.status == 0, "\(merge.err)")
        #expect(merge.err.contains("equal"))
        #expect(try csvRows(merged).map { $0["sweep_point"] } == (0..<12).map(String.init))
        // A finished shard is not run again.
        let before = try String(contentsOfFile: shards[1], encoding: .utf8)
        let rerun = try bench(["sweep", "--plan", plan, "--shard", "1/3"])
        #expect(rerun.status == 0 && rerun.err.contains("nothing to run"))
        #expect(try String(contentsOfFile: shards[1], encoding: .utf8) == before)
        // A merge against a file whose counts differ says where.
        let edited = folder.file("edited.csv", try String(contentsOfFile: serial, encoding: .utf8).replacingOccurrences(of: ",lru,", with: ",lru ,"))
        let differs = try bench(["merge", "--plan", plan, "--against", edited] + shards)
        #expect(differs.status == 1 && differs.err.contains("backend"))
    }

    @Test("a missing and a duplicated shard are named, with the shard that should have run them")
    func missingAndDuplicated() throws {
        let (folder, _, plan) = try planned()
        for shard in 0..<2 { #expect(try bench(["sweep", "--plan", plan, "--shard", "\(shard)/2"]).status == 0) }
        let shards = (0..<2).map { SweepPlan.shardResultsPath(plan: plan, index: $0, count: 2) }
        let missing = try bench(["merge", "--plan", plan, shards[0]])
        #expect(missing.status == 2 && missing.err.contains("planned points missing") && missing.err.contains("shard 1/2"))
        #expect(missing.err.split(separator: "\n").count == 1)
        let copy = folder.path + "/copy.shard-0-of-2.csv"
        try FileManager.default.copyItem(atPath: shards[0], toPath: copy)
        let duplicated = try bench(["merge", "--plan", plan, shards[0], shards[1], copy])
        #expect(duplicated.status == 2 && duplicated.err.contains("more than once") && duplicated.err.contains("copy.shard-0-of-2.csv"))
        // A row from another trace is refused by its checksum.
        let foreign = folder.file("foreign.csv", try String(contentsOfFile: shards[1], encoding: .utf8)
            .replacingOccurrences(of: try SweepPlan.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: plan))), path: plan).points[0].traceSHA256, with: String(repeating: "0", count: 64)))
        let refused = try bench(["merge", "--plan", plan, shards[0], foreign])
        #expect(refused.status == 2 && refused.err.contains("trace_sha256"))
    }

    @Test("the shard index comes from I/N, SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX")
    func shardIndex() throws {
        #expect(try ShardSpec.parse("2/5", environment: [:]) == ShardSpec(index: 2, count: 5))
        #expect(try ShardSpec.parse("5", environment: ["SLURM_ARRAY_TASK_ID": "4"]) == ShardSpec(index: 4, count: 5))
        #expect(try ShardSpec.parse("5", environment: ["JOB_COMPLETION_INDEX": "0"]) == ShardSpec(index: 0, count: 5))
        #expect(try ShardSpec.parse("5", environment: ["SLURM_ARRAY_TASK_ID": "1", "JOB_COMPLETION_INDEX": "1"]) == ShardSpec(index: 1, count: 5))
        for (text, environment) in [("5", [:]), ("5/5", [:]), ("-1/5", [:]), ("1/0", [:]), ("x", [:]), ("5", ["SLURM_ARRAY_TASK_ID": "7"]),
                                    ("5", ["SLURM_ARRAY_TASK_ID": "1", "JOB_COMPLETION_INDEX": "2"]), ("1/2/3", [:])] as [(String, [String: String])] {
            #expect(throws: WorkbenchError.self) { try ShardSpec.parse(text, environment: environment) }
        }
        // End to end: the index from the environment of a Slurm array task.
        let (folder, _, plan) = try planned()
        var environment = ProcessInfo.processInfo.environment
        environment["SLURM_ARRAY_TASK_ID"] = "1"
        let run = try bench(["sweep", "--plan", plan, "--shard", "2"], environment: environment)
        #expect(run.status == 0, "\(run.err)")
        #expect(FileManager.default.fileExists(atPath: SweepPlan.shardResultsPath(plan: plan, index: 1, count: 2)))
        #expect(!FileManager.default.fileExists(atPath: SweepPlan.shardResultsPath(plan: plan, index: 0, count: 2)))
        withExtendedLifetime(folder) {}
    }

    @Test("a plan is not overwritten, its options are fixed, and a changed trace is refused")
    func planRefusals() throws {
        let (folder, trace, plan) = try planned()
        let again = try bench(["sweep", "--trace", trace, "--backend", "lru", "--plan", plan, "--shard", "0/2"])
        #expect(again.status == 2 && again.err.contains("--backend"))
        let noPlan = try bench(["sweep", "--plan", folder.path + "/none.json", "--shard", "0/2"])
        #expect(noPlan.status == 2)
        let whole = try bench(["sweep", "--plan", plan])
        #expect(whole.status == 2 && whole.err.contains("--csv"))
        try "time,key,size\n1,a,10\n".write(toFile: trace, atomically: true, encoding: .utf8)
        let changed = try bench(["sweep", "--plan", plan, "--shard", "0/2"])
        #expect(changed.status == 2 && changed.err.contains("changed"))
    }
}
