import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// `bench merge --plan FILE RESULTS…`: the shards' results as one CSV in plan order, after
/// checking that every planned point is there exactly once, made by this plan (`plan_id`,
/// `SweepPlan.identity`), with the plan's trace checksum, workbench revision, backend and capacity. What is missing or duplicated is named, with
/// the shard that should have run it; so is a failed point (merged, but exit 1). `--against FILE` then compares the merged rows with
/// another results file of the same plan (a local `bench sweep --plan`), every column but
/// the measured ones.
///
/// Complexity: O(total rows × columns) after reading the files.
public struct ShardMerge {
    /// Columns that differ between two runs of the same point by nature: when and where it
    /// ran (and as part of which plan: a plain sweep of the same points has none), and what
    /// was timed or sampled from the process, and the command line that ran it (a shard's rows
    /// carry the plan's sweep, a serial sweep its own), and how many points ran beside it.
    public static let measuredColumns: Set<String> = {
        var names: Set<String> = [
            "run_id", "plan_id", "throughput_rps", "wall_s", "allocated_peak_bytes", "rss_peak_bytes", "memory_overhead_ratio",
            "clock_overhead_ns", "trace_load_s", "cache_dir", "warning_released_bytes", "hit_ratio_before_warnings",
            "hit_ratio_after_warnings", "disk_footprint_bytes", "space_amplification", "command", "points_at_once",
        ]
        for name in RunResult.columnNames where name.hasSuffix("_ns") || name.hasSuffix("_ns_min") || name.hasSuffix("_ns_max")
            || name.hasPrefix("throughput_rps_") || name.hasPrefix("wall_s_") { names.insert(name) }
        return names
    }()

    public var merged: String
    public var rows: Int
    /// The points whose rows failed (`status` not `ok`), each named with its shard and
    /// error: merged as they are, but the merge is no finished sweep (exit 1).
    public var failed: [String]

    public init(plan: SweepPlan, planPath: String, inputs: [String]) throws {
        guard !inputs.isEmpty else { throw WorkbenchError("bench merge: name the shards' results files") }
        let tables = try inputs.map(ResultsTable.read)
        let planID = try plan.identity()
        var found: [Int: [(table: Int, row: Int)]] = [:]
        for (tableIndex, table) in tables.enumerated() {
            let column = { (name: String) in table.column(name)! }
            for (rowIndex, row) in table.rows.enumerated() {
                let place = "\(table.path):\(table.lines[rowIndex])"
                guard let index = Int(row[column("sweep_point")]), plan.points.indices.contains(index) else {
                    throw WorkbenchError("\(place): sweep_point \(ErrorText.quote(row[column("sweep_point")])) is not a point of \(planPath) (0 to \(plan.points.count - 1))")
                }
                let rowPlan = row[column("plan_id")]
                guard rowPlan == planID else {
                    throw WorkbenchError("\(place): \(rowPlan.isEmpty ? "a row of no plan (plan_id empty: a plain bench run or sweep)" : "a row of another plan (plan_id \(rowPlan.prefix(12))…)"), and \(planPath) is \(planID.prefix(12))…; merge only the results of this plan's shards")
                }
                let point = plan.points[index]
                let backend = ResultsTable.backendLabel(backend: row[column("backend")], variant: row[column("variant")])
                let checks: [(String, String, String)] = [
                    ("trace_sha256", row[column("trace_sha256")], point.traceSHA256), ("git_rev", row[column("git_rev")], plan.revision),
                    ("backend", backend, point.backend), ("capacity_spec", row[column("capacity_spec")], point.capacity),
                    ("seed", row[column("seed")], point.seed), ("mode", row[column("mode")], point.mode),
                ]
                for (name, value, planned) in checks where value != planned {
                    throw WorkbenchError("\(place): point \(index)'s \(name) is \(ErrorText.quote(value)), the plan's is \(ErrorText.quote(planned))")
                }
                if let problem = Self.capacityMismatch(bytes: row[column("capacity_bytes")], spec: point.capacity, workingSet: row[column("working_set_bytes")]) {
                    throw WorkbenchError("\(place): point \(index)'s capacity_bytes \(problem); the row was edited or damaged: run its shard again")
                }
                found[index, default: []].append((tableIndex, rowIndex))
            }
        }
        let shards = Self.shardCount(inputs)
        let assignment = shards.map { plan.assignment(shards: $0) }
        let describe = { (index: Int) -> String in
            let point = plan.points[index]
            return "\(index) (\(point.backend) \(point.capacity)\(assignment.map { ", shard \($0[index])/\(shards!)" } ?? ""))"
        }
        let missing = plan.points.indices.filter { found[$0] == nil }
        let duplicated = found.filter { $0.value.count > 1 }.keys.sorted()
        var problems: [String] = []
        if !missing.isEmpty {
            problems.append("\(missing.count) of \(plan.points.count) planned points missing: \(missing.prefix(8).map(describe).joined(separator: ", "))\(missing.count > 8 ? ", …" : "")")
        }
        if !duplicated.isEmpty {
            let places = duplicated.prefix(8).map { index in
                "\(describe(index)) in \(found[index]!.map { "\(tables[$0.table].path):\(tables[$0.table].lines[$0.row])" }.joined(separator: " and "))"
            }
            problems.append("\(duplicated.count) points more than once: \(places.joined(separator: "; "))\(duplicated.count > 8 ? "; …" : "")")
        }
        guard problems.isEmpty else { throw WorkbenchError("bench merge: \(problems.joined(separator: "; "))") }
        let status = tables[0].column("status")!, error = tables[0].column("error")!
        failed = plan.points.indices.compactMap { index in
            let row = tables[found[index]![0].table].rows[found[index]![0].row]
            return row[status] == "ok" ? nil : "\(describe(index)): \(ErrorText.quote(row[error].isEmpty ? row[status] : row[error]))"
        }
        let lines = plan.points.indices.map { index -> String in
            let at = found[index]![0]
            return tables[at.table].rows[at.row].map(CSVReport.escape).joined(separator: ",")
        }
        merged = ([RunResult.columnNames.joined(separator: ",")] + lines).joined(separator: "\n") + "\n"
        rows = lines.count
    }

    /// Why a row's `capacity_bytes` is not what its capacity makes, nil when it is: a size
    /// writes as the spec (`capacity_spec` is `ByteCount.format` of it), a share is its part
    /// of the row's working set, within the spec's rounding (0.01 of a percent).
    static func capacityMismatch(bytes text: String, spec: String, workingSet: String) -> String? {
        guard let bytes = Int(text), bytes >= 1 else { return "\(ErrorText.quote(text)) is not a whole number of 1 or more" }
        guard let capacity = try? Capacity(parsing: spec) else { return nil }  // the spec is checked against the plan
        guard case .share(let share) = capacity else {
            return ByteCount.format(bytes) == spec ? nil : "is \(bytes), which is \(ByteCount.format(bytes)), not its capacity_spec \(ErrorText.quote(spec))"
        }
        guard let total = ByteTotal(workingSet) else { return "cannot be checked: working_set_bytes \(ErrorText.quote(workingSet)) is not a number" }
        let rounding = 0.000051  // half of 0.01%, and a little for floating point
        let low = Capacity.share(max(0, share - rounding)).resolve(workingSetBytes: total)
        let high = Capacity.share(share + rounding).resolve(workingSetBytes: total)
        return (low...high).contains(bytes) ? nil : "is \(bytes), and \(spec) of its working set (\(workingSet) bytes) is \(capacity.resolve(workingSetBytes: total))"
    }

    /// An input of the merge as an output's clash names it: `--csv` must not overwrite it.
    public static func inputName(_ path: String) -> String { "\(path), one of the merge's inputs (the plan, a shard's results or --against)" }

    /// Checks `--csv` before merging: it may be none of the merge's inputs and not the
    /// plan's trace, which every shard reads (`bench sweep --plan FILE --csv TRACE` is
    /// refused the same way).
    public static func checkOutput(_ csv: String?, plan: SweepPlan, planPath: String, results: [String], against: String?) throws {
        guard let csv else { return }
        let traces = Set(plan.points.map(\.trace))
        try OutputFile.check(
            outputs: [("--csv", csv)], inputs: [planPath] + results + (against.map { [$0] } ?? []) + traces.sorted(),
            inputName: { traces.contains($0) ? "the trace" : inputName($0) })
    }

    /// N when every input is named `….shard-I-of-N.csv` with one N.
    static func shardCount(_ inputs: [String]) -> Int? {
        let counts = Set(inputs.map { path -> Int? in
            let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            guard let range = name.range(of: "-of-", options: .backwards) else { return nil }
            return Int(name[range.upperBound...])
        })
        guard counts.count == 1, let count = counts.first ?? nil, (1...ShardSpec.largestCount).contains(count) else { return nil }
        return count
    }

    /// The differences between the merged rows and `other`'s (a results file of the same
    /// plan), the measured columns aside: one line per differing cell, at most `limit`.
    public func differences(from other: String, limit: Int = 10) throws -> [String] {
        let mine = try ResultsTable.parse(merged, path: "(merged)", columns: RunResult.columnNames)
        let theirs = try ResultsTable.read(other)
        let point = mine.column("sweep_point")!
        let byPoint = Dictionary(theirs.rows.map { ($0[point], $0) }, uniquingKeysWith: { first, _ in first })
        var differences: [String] = []
        if theirs.rows.count != mine.rows.count { differences.append("\(other): \(theirs.rows.count) rows, the merge has \(mine.rows.count)") }
        for row in mine.rows {
            guard let their = byPoint[row[point]] else {
                differences.append("\(other): no row for point \(row[point])")
                continue
            }
            for (column, name) in mine.header.enumerated() where !Self.measuredColumns.contains(name) && row[column] != their[column] {
                differences.append("point \(row[point]): \(name) is \(ErrorText.quote(row[column])) merged, \(ErrorText.quote(their[column])) in \(other)")
            }
            if differences.count >= limit { break }
        }
        return Array(differences.prefix(limit))
    }
}

extension ResultsTable {
    /// A results file of this workbench (its columns, in order).
    package static func read(_ path: String) throws -> ResultsTable {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
              let data = FileManager.default.contents(atPath: path) else {
            throw WorkbenchError("\(path): cannot read it (missing, a folder, or unreadable)")
        }
        return try parse(String(decoding: data, as: UTF8.self), path: path, columns: RunResult.columnNames)
    }
}
