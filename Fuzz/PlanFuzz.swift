// libFuzzer entry for the sharding parsers (scripts/fuzz plan): a sweep plan's JSON
// (SweepPlan.read, then the command helpers on what it holds), --shard's I/N with the
// Slurm and Kubernetes index variables, and results CSVs read back for `bench merge`. The
// first byte picks the parser. An error is a correct answer; a crash, or a value outside
// the documented limits, is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlan(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let text = String(decoding: bytes, as: UTF8.self)
    switch data[0] % 3 {
    case 0:
        guard let plan = try? SweepPlan.read(bytes, path: "plan.json") else { return 0 }
        precondition(!plan.points.isEmpty && plan.points.enumerated().allSatisfy { $0.offset == $0.element.index }, "points out of order")
        precondition(plan.points.allSatisfy { $0.estimate.isFinite && $0.estimate >= 0 }, "an estimate out of range")
        let command = SweepPlan.command(from: plan.command, trace: "/t")
        precondition(command.suffix(2) == ["--trace", "/t"], "the trace is not the command's last option")
        precondition(SweepPlan.planOptions(in: command).allSatisfy { !SweepPlan.runOptions.contains($0) }, "a run option kept in a plan")
    case 1:
        let parts = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        var environment: [String: String] = [:]
        if parts.count > 1 { environment["SLURM_ARRAY_TASK_ID"] = parts[1] }
        if parts.count > 2 { environment["JOB_COMPLETION_INDEX"] = parts[2] }
        if let shard = try? ShardSpec.parse(parts[0], environment: environment) {
            precondition(shard.count >= 1 && shard.count <= 1_000_000 && (0..<shard.count).contains(shard.index), "shard out of range")
        }
    default:
        let columns = ["a", "b", "c"]
        if let table = try? ResultsTable.parse(text, path: "r.csv", columns: columns) {
            precondition(table.header == columns && table.rows.allSatisfy { $0.count == columns.count }, "a row of the wrong width")
            precondition(table.rows.count == table.lines.count && table.lines == table.lines.sorted(), "row lines out of order")
        }
    }
    return 0
}
