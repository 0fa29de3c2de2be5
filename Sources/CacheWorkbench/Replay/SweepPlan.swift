import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// A sweep's job matrix, written by `bench sweep … --plan FILE` without running anything:
/// the command that makes the sweep (so every shard runs exactly it), the workbench
/// revision, and every point with its trace, checksum, backend, capacity, seed, mode and
/// a relative cost estimate. `bench sweep --plan FILE --shard I/N` runs the points of
/// shard I (`shard(_:of:)`); `bench merge` checks shard results against it.
///
/// Complexity: reading and writing O(points) (`ShardAssignment.swift` splits it).
public struct SweepPlan: Codable, Sendable, Equatable {
    public static let formatName = "cacheworkbench-sweep-plan-1"

    public var format: String
    /// `git describe` of the workbench that wrote it; shards and merges must match it.
    public var revision: String
    /// `bench sweep`'s arguments, the trace made absolute, without --plan, --csv, --jobs,
    /// --resume and --shard.
    public var command: [String]
    public var points: [Point]
    /// The trace's checksum and working set as the plan's writer had them, so a shard on a
    /// machine that has not kept them reads the trace once (`PlannedTraceFacts`); absent
    /// from plans written before.
    public var traceFacts: PlannedTraceFacts?

    public struct Point: Codable, Sendable, Equatable {
        public var index: Int
        public var trace: String
        public var traceSHA256: String
        /// As the results' `backend` and `variant` columns write it (`nscache[key-hash=cf]`).
        public var backend: String
        /// As the results' `capacity_spec` column writes it (`64MiB`, `10%`).
        public var capacity: String
        public var seed: String
        public var mode: String
        /// Relative cost of the point (`SweepPlan.estimate`), for balancing shards.
        public var estimate: Double

        public init(
            index: Int, trace: String, traceSHA256: String, backend: String, capacity: String, seed: String, mode: String, estimate: Double
        ) {
            (self.index, self.trace, self.traceSHA256, self.backend) = (index, trace, traceSHA256, backend)
            (self.capacity, self.seed, self.mode, self.estimate) = (capacity, seed, mode, estimate)
        }

        /// As synthesized, except that an index that is a number but no `Int` (1e20, 2.5)
        /// is named as out of range, not as a JSON error.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            do {
                index = try container.decode(Int.self, forKey: .index)
            } catch {
                guard let number = try? container.decode(Double.self, forKey: .index) else { throw error }
                throw DecodingError.dataCorrupted(.init(
                    codingPath: container.codingPath + [CodingKeys.index],
                    debugDescription: "\(number) is out of range: an index is a whole number from 0, the point's position in points"))
            }
            trace = try container.decode(String.self, forKey: .trace)
            traceSHA256 = try container.decode(String.self, forKey: .traceSHA256)
            backend = try container.decode(String.self, forKey: .backend)
            capacity = try container.decode(String.self, forKey: .capacity)
            seed = try container.decode(String.self, forKey: .seed)
            mode = try container.decode(String.self, forKey: .mode)
            estimate = try container.decode(Double.self, forKey: .estimate)
        }
    }

    public init(revision: String, command: [String], points: [Point], traceFacts: PlannedTraceFacts? = nil) {
        self.format = Self.formatName
        self.revision = revision
        self.command = command
        self.points = points
        self.traceFacts = traceFacts
    }

    /// Where shard `index` of `count` writes its results by default: beside the plan,
    /// `plan.shard-3-of-8.csv` for `plan.json`.
    public static func shardResultsPath(plan path: String, index: Int, count: Int) -> String {
        let url = URL(fileURLWithPath: path)
        let stem = url.deletingPathExtension().lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent("\(stem).shard-\(index)-of-\(count).csv").path
    }

    /// Options that belong to one run of a plan, not to the plan: `--plan`, `--shard`,
    /// `--csv`, `--jobs` (with a value) and `--resume`.
    static let runOptions = ["--plan", "--shard", "--csv", "--jobs"]
    static let runFlags = ["--resume"]

    /// The plan's command from `bench sweep`'s arguments: the run options dropped, and the
    /// trace given as the absolute path `trace` (so a shard finds it from any folder).
    public static func command(from arguments: [String], trace: String) -> [String] {
        dropping(runOptions + ["--trace"], from: arguments) + ["--trace", trace]
    }

    /// The options in `arguments` that a plan fixes (anything but the run options): running
    /// an existing plan with them would be ambiguous.
    public static func planOptions(in arguments: [String]) -> [String] {
        dropping(runOptions, from: arguments).filter { $0.hasPrefix("-") }.map(optionName)
    }

    /// `arguments` without the run flags and without the options `names` and their values
    /// (`--csv x` or `--csv=x`).
    static func dropping(_ names: [String], from arguments: [String]) -> [String] {
        var kept: [String] = []
        var position = arguments.startIndex
        while position < arguments.endIndex {
            let argument = arguments[position]
            position += 1
            if runFlags.contains(argument) { continue }
            if names.contains(optionName(argument)) {
                if !argument.contains("=") { position += 1 }  // its value follows
                continue
            }
            kept.append(argument)
        }
        return kept
    }

    /// `--csv` of `--csv=x`.
    static func optionName(_ argument: String) -> String { String(argument.prefix { $0 != "=" }) }

    /// The plan as JSON: keys sorted, one field per line.
    public func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// Reads and checks the plan at `path`.
    public static func read(path: String) throws -> SweepPlan {
        guard let data = FileManager.default.contents(atPath: path) else { throw WorkbenchError("\(path): cannot read it") }
        return try read([UInt8](data), path: path)
    }

    /// Reads and checks a plan: its format, points numbered 0… in order, finite estimates,
    /// a command to run. Errors name the file and what is wrong.
    public static func read(_ bytes: [UInt8], path: String) throws -> SweepPlan {
        let plan: SweepPlan
        do {
            plan = try JSONDecoder().decode(SweepPlan.self, from: Data(bytes))
        } catch {
            throw WorkbenchError("\(path):1: not a sweep plan (\(Self.reason(error)))")
        }
        guard plan.format == formatName else {
            throw WorkbenchError("\(path):1: format \(ErrorText.quote(plan.format)) is not \(formatName)")
        }
        guard !plan.points.isEmpty, plan.points.count <= 10_000_000 else { throw WorkbenchError("\(path):1: a plan has 1 to 10,000,000 points, not \(plan.points.count)") }
        guard !plan.command.isEmpty else { throw WorkbenchError("\(path):1: the plan has no command") }
        for (position, point) in plan.points.enumerated() {
            guard point.index == position else { throw WorkbenchError("\(path):1: point \(position) is numbered \(point.index)") }
            guard point.estimate.isFinite, point.estimate >= 0 else { throw WorkbenchError("\(path):1: point \(position)'s estimate is not a finite number of 0 or more") }
        }
        return plan
    }

    /// A field's place as JSON paths write it: `points[3].index`.
    private static func field(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
    }

    private static func reason(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing \(ErrorText.quote(key.stringValue))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "\(field(context.codingPath)): \(context.debugDescription)"
        case DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty:
            "\(field(context.codingPath)): \(context.debugDescription)"
        case DecodingError.dataCorrupted(let context): context.debugDescription
        default: String(describing: error)
        }
    }
}
