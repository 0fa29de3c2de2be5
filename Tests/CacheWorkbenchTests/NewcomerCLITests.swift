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

/// What a newcomer meets first on the command line: `--version`, `bench list` (text and
/// JSON), `bench stats --json`, "did you mean" for a misspelled backend, the `--backend`
/// help, and help examples that print whole.
@Suite("newcomer's command line", .serialized, .onTestWorkers)
struct NewcomerCLITests {
    @Test("bench --version prints the version and the checkout's git revision")
    func version() throws {
        let result = try bench(["--version"])
        #expect(result.status == 0)
        let root = SourceCheckout.root.path
        let describe = try runBounded(60, "/usr/bin/env", ["git", "-C", root, "describe", "--always", "--abbrev=12"])
        let status = try runBounded(60, "/usr/bin/env", ["git", "-C", root, "status", "--porcelain", "--untracked-files=no"])
        let revision = describe.status == 0
            ? describe.out.trimmingCharacters(in: .whitespacesAndNewlines) + (status.out.isEmpty ? "" : "-dirty") : "unknown"
        #expect(result.out == "bench 0.1.0 (revision \(revision), Swift \(RunEnvironment.compilerVersion))\n")
        #expect(revision != "unknown", "the tests run from a git checkout")
    }

    @Test("bench list names each trace format's extensions once")
    func listWithoutDuplicates() throws {
        let result = try bench(["list"])
        #expect(result.status == 0)
        // The trace formats' section (`lirs` is also a backend's name).
        let formats = try #require(result.out.components(separatedBy: "\nTrace formats").dropFirst().first)
        let lines = formats.split(separator: "\n").map(String.init)
        let arc = try #require(lines.first { $0.hasPrefix("  arc-lis ") })
        #expect(arc.components(separatedBy: ".lis").count - 1 == 1, "\(arc)")
        for format in TraceFormat.all {
            let line = try #require(lines.first { $0.hasPrefix("  \(format.name) ") })
            for ext in format.extensions {
                #expect(line.components(separatedBy: "." + ext + ",").count + line.components(separatedBy: "." + ext + ")").count - 2 == 1, "\(line)")
            }
        }
    }

    @Test("bench list --json: every backend, the groups' members, the formats' extensions")
    func listJSON() throws {
        let result = try bench(["list", "--json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let backends = try #require(object["backends"] as? [[String: Any]])
        #expect(backends.count == BackendRegistry.all.count)
        let nscache = try #require(backends.first { $0["name"] as? String == "nscache" })
        let nscacheOptions = try #require(nscache["options"] as? [[String: String]]).map { $0["name"] ?? "" }
        #expect(nscacheOptions.contains("key-hash") && nscacheOptions.contains("count-limit"))
        let sdwebimage = try #require(backends.first { $0["name"] as? String == "sdwebimage" })
        #expect((sdwebimage["preset_of"] as? String)?.hasPrefix("tier:") == true)
        let groups = try #require(object["groups"] as? [String: [String]])
        #expect(Set(groups.keys) == ["default", "policies", "tiers", "all"])
        #expect(groups["policies"]?.contains("s3fifo") == true && groups["policies"]?.contains("lru") == true)
        #expect(groups["default"]?.contains("foundation-urlcache") == false)
        #expect(groups["tiers"]?.sorted() == ["afnetworking", "kingfisher", "nuke", "pincache", "sdwebimage"])
        let formats = try #require(object["trace_formats"] as? [[String: Any]])
        #expect(formats.first { $0["name"] as? String == "arc-lis" }?["extensions"] as? [String] == ["lis"])
        #expect(object["cost_models"] as? [String] == ["auto", "encoded", "pixels"])
    }

    @Test("bench stats --json: the figures of a five-request trace, computed by hand")
    func statsJSON() throws {
        let folder = TemporaryFolder()
        // a b a c a: 5 requests, 3 keys, 80 bytes; working set a 10 + b 20 + c 30 = 60;
        // b and c are requested once (2 of 3 keys); 2 of 5 requests are re-requests;
        // both re-requests of a have one other key between (b, then c): distances 1 and 1.
        let path = folder.file("t.csv", "0,a,10\n1,b,20\n2,a,10\n3,c,30\n4,a,10\n")
        let result = try bench(["stats", path, "--json"])
        #expect(result.status == 0, "\(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        #expect(object["format"] as? String == "csv")
        #expect(object["requests"] as? Int == 5)
        #expect(object["unique_keys"] as? Int == 3)
        #expect(object["bytes_requested"] as? Int == 80)
        #expect(object["working_set_bytes"] as? Int == 60)
        #expect(object["time_span_seconds"] as? Double == 4)
        #expect(abs((object["one_hit_wonder_share"] as? Double ?? 0) - 2.0 / 3.0) < 1e-12)
        #expect(object["re_request_share"] as? Double == 0.4)
        #expect(object["reuse_distance_keys"] as? [String: Int] == ["p50": 1, "p90": 1, "p99": 1, "max": 1])
        // sizes 10 10 10 20 30: p50 = the 3rd of 5 (10), p90 and p99 the 5th (30).
        #expect(object["object_size_bytes"] as? [String: Int] == ["p50": 10, "p90": 30, "p99": 30, "max": 30])
        let text = try bench(["stats", path])
        #expect(text.out.contains("requests            5\n"), "the table is unchanged: \(text.out)")
    }

    @Test("a misspelled backend gets a suggestion within two edits, and only then")
    func didYouMean() throws {
        #expect(EditDistance.between("kitten", "sitting") == 3)
        #expect(EditDistance.between("", "abc") == 3)
        #expect(EditDistance.between("nscahe", "nscache") == 1)
        #expect(EditDistance.closest(to: "s3fif", among: ["sieve", "s3fifo", "fifo"]) == "s3fifo")
        #expect(EditDistance.closest(to: "xy", among: ["2q", "lru"]) == nil)
        let result = try bench(["run", "--backend", "lru,nscahe", "--capacity", "1MiB", "--no-timing"])
        #expect(result.status == 2)
        #expect(result.err.split(separator: "\n").count == 1, "\(result.err)")
        #expect(result.err.hasPrefix("bench: error: unknown backend 'nscahe' (did you mean 'nscache'?); known: "), "\(result.err)")
        let group = try bench(["run", "--backend", "polices", "--capacity", "1MiB", "--no-timing"])
        #expect(group.err.contains("(did you mean 'policies'?)"), "\(group.err)")
        let far = try bench(["run", "--backend", "zzzzzz", "--capacity", "1MiB", "--no-timing"])
        #expect(far.status == 2 && !far.err.contains("did you mean"), "\(far.err)")
    }

    @Test("the --backend help names the groups, tier:MEMORY+DISK and the variant syntax")
    func backendHelp() throws {
        let result = try bench(["run", "--help"])
        let help = result.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let start = try #require(help.range(of: "--backend <list>"))
        let text = help[start.upperBound...].prefix(600)
        for needle in ["`default`", "`policies`", "`tiers`", "`all`", "`tier:MEMORY+DISK`", "`name[option=value;…]`", "`bench list`"] {
            #expect(text.contains(needle), "\(needle) missing from: \(text)")
        }
    }

    @Test("help examples print whole at 80 columns: no example command is wrapped mid-command")
    func helpExamplesWhole() throws {
        var commands: [[String]] = [[]]
        var index = 0
        // Every command and subcommand, from the SUBCOMMANDS sections of the help.
        while index < commands.count {
            let help = try bench(commands[index] + ["--help"], environment: ["COLUMNS": "80", "PATH": "/usr/bin:/bin"]).out
            // The section's entries: "  name  abstract" lines up to the first blank line.
            if let section = help.components(separatedBy: "SUBCOMMANDS:\n").dropFirst().first?.components(separatedBy: "\n\n").first {
                for line in section.split(separator: "\n") where line.hasPrefix("  ") && !line.hasPrefix("   ") {
                    guard let name = line.split(separator: " ").first.map(String.init), name != "help",
                          name.allSatisfy({ $0.isLowercase || $0 == "-" }), !commands.contains(commands[index] + [name]) else { continue }
                    commands.append(commands[index] + [name])
                }
            }
            index += 1
        }
        #expect(commands.count >= 15 && commands.count < 40, "\(commands)")
        var wrapped: [String] = []
        for command in commands {
            let help = try bench(command + ["--help"], environment: ["COLUMNS": "80", "PATH": "/usr/bin:/bin"]).out
            let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (number, line) in lines.enumerated() where line.hasPrefix("  bench ") && !line.hasSuffix("\\") {
                // A wrapped example goes on at column 0 on the next line.
                let next = number + 1 < lines.count ? lines[number + 1] : ""
                if !next.isEmpty && !next.hasPrefix(" ") && !next.hasPrefix("USAGE:") && !next.hasPrefix("OPTIONS:") {
                    wrapped.append("bench \(command.joined(separator: " ")) --help: \(line) / \(next)")
                }
            }
        }
        #expect(wrapped.isEmpty, "\(wrapped.joined(separator: "\n"))")
    }
}
