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

/// Issue 20 ("Trust, second round"), the Python scripts behind `bench plot` and `bench
/// report`: input names that look like options (§1.1), hostile markup in a results CSV
/// (§4.1), crafted CSVs that used to end in a traceback (§4.4).
@Suite("trust 2: plot and report", .serialized, .onTestWorkers)
struct Trust2ReportTests {
    static var python: String { SourceCheckout.root.path + "/.venv/bin/python" }
    static var scripts: String { SourceCheckout.root.path + "/scripts" }

    /// Runs a program bounded to `seconds` (a hang is a failed test, exit 124).
    static func within(_ seconds: Int, _ program: String, _ arguments: [String], in folder: String? = nil,
                       environment: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
        try runBounded(seconds, program, arguments, in: folder, environment: environment)
    }

    /// `bench` (next to the test binary) bounded to 60 seconds.
    static func bench(_ arguments: [String], in folder: String? = nil) throws -> (status: Int32, out: String, err: String) {
        try runBounded(60, try builtBench, arguments, in: folder)
    }

    /// A small sweep's results CSV (lru, fifo and the offline bound at four capacities: a
    /// reading with bests, knees and distances), written as `sweep.csv` in `folder`.
    static func sweep(in folder: TemporaryFolder) throws -> String {
        try requirePython()  // every test here runs the scripts
        var trace = "time,key,size\n"
        for i in 0..<600 {
            let key = (i * i * 31 + i * 7) % 61 % (5 + i % 29)
            trace += "\(i),k\(key),\(100 + (key % 5) * 50)\n"
        }
        let tracePath = folder.file("t.csv", trace)
        let csv = folder.path + "/sweep.csv"
        let made = try bench(["sweep", "--trace", tracePath, "--backend", "lru,fifo,belady", "--capacity", "600,1200,1800,2400",
                              "--no-timing", "--jobs", "1", "--csv", csv])
        try #require(made.status == 0, "\(made.err)")
        return csv
    }

    static func requirePython() throws {
        try #require(FileManager.default.isExecutableFile(atPath: python), "run scripts/bootstrap --python: it makes .venv with matplotlib")
    }

    // MARK: §1.1 argument injection

    @Test("20 §1.1: bench report -- --out=pwned.html s.csv reads that name as a results CSV; the link's target is untouched")
    func reportInputNamedLikeAnOption() throws {
        let folder = TemporaryFolder()
        let csv = try Self.sweep(in: folder)
        let original = try Data(contentsOf: URL(fileURLWithPath: csv))
        // The link's target is a results CSV too, so the only right outcome is a page from both.
        try original.write(to: URL(fileURLWithPath: folder.path + "/victim.csv"))
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/--out=pwned.html", withDestinationPath: "victim.csv")
        let result = try Self.bench(["report", "--out", "r.html", "--", "--out=pwned.html", "sweep.csv"], in: folder.path)
        #expect(result.status == 0, "\(result.err)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path + "/victim.csv")) == original)
        let page = try String(contentsOfFile: folder.path + "/r.html", encoding: .utf8)
        #expect(page.contains("from --out=pwned.html, sweep.csv."))
    }

    @Test("20 §1.1: bench plot --out charts -- --out=elsewhere s.csv draws into charts only, never through the link elsewhere")
    func plotInputNamedLikeAnOption() throws {
        let folder = TemporaryFolder()
        let csv = try Self.sweep(in: folder)
        try FileManager.default.createDirectory(atPath: folder.path + "/victim", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/elsewhere", withDestinationPath: "victim")
        try FileManager.default.copyItem(atPath: csv, toPath: folder.path + "/--out=elsewhere")
        let result = try Self.bench(["plot", "--out", "charts", "--", "--out=elsewhere", "sweep.csv"], in: folder.path)
        #expect(result.status == 0, "\(result.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/victim").isEmpty)
        // The charts and the colour of each series (plot_colors.json, issue 22 §6).
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/charts")) == ["mrc.png", "hit_ratio.png", "plot_colors.json"])
        #expect(result.out == "charts/hit_ratio.png\ncharts/mrc.png\ncharts/plot_colors.json\n", "\(result.out)")
    }

    @Test("20 §1.1: the scripts refuse an --out outside the staging folder named in CWB_STAGING, and a page through a link")
    func scriptsRefuseOutsideStaging() throws {
        let folder = TemporaryFolder()
        let csv = try Self.sweep(in: folder)
        let staging = folder.path + "/staging"
        let other = folder.path + "/other"
        for made in [staging, other] { try FileManager.default.createDirectory(atPath: made, withIntermediateDirectories: false) }
        let environment = ["CWB_STAGING": staging]
        let report = Self.scripts + "/report.py"
        let plot = Self.scripts + "/plot.py"
        let outside = try Self.within(60, Self.python, [report, "--out=\(folder.path)/evil.html", "--", csv], environment: environment)
        #expect(outside.status == 2 && outside.err.hasPrefix("plot: error: \(folder.path)/evil.html: refused: the output must be inside the staging folder"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/evil.html"))
        let charts = try Self.within(60, Self.python, [plot, "--out=\(other)", "--", csv], environment: environment)
        #expect(charts.status == 2 && charts.err.contains("refused: the output must be inside the staging folder"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: other).isEmpty)
        let unset = try Self.within(60, Self.python, [report, "--out=\(staging)/r.html", "--", csv], environment: ["CWB_STAGING": ""])
        #expect(unset.status == 2 && unset.err.hasPrefix("plot: error: CWB_STAGING: not set"))
        // Inside the staging folder the page is a new file: a link planted there is not followed.
        let victim = folder.file("victim.txt", "precious")
        try FileManager.default.createSymbolicLink(atPath: staging + "/r.html", withDestinationPath: victim)
        let linked = try Self.within(60, Self.python, [report, "--out=\(staging)/r.html", "--", csv], environment: environment)
        #expect(linked.status == 2 && linked.err.contains("cannot create the page"))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
    }

    // MARK: §4.1 HTML injection

    /// Markup in every form a page could run or open: a script, an attribute break-out
    /// with an event handler, an entity, and matplotlib's mathtext.
    static let hostile = "<script>alert(1)</script>\"'><img src=x onerror=alert(1)>&amp;$\\frac{"

    /// Columns the reader checks as numbers: a text there is refused, so they keep their value.
    static let numericColumns: Set<String> = [
        "capacity_bytes", "requests", "object_hit_ratio", "byte_hit_ratio", "working_set_bytes", "memory_warnings",
        "hit_ratio_before_warnings", "hit_ratio_after_warnings", "repeats", "evictions", "throughput_rps",
        "write_amplification", "space_amplification", "get_hit_p50_ns", "get_hit_p99_ns", "get_miss_p50_ns",
        "get_miss_p99_ns", "set_p50_ns", "set_p99_ns",
        // Issue 21 §4: the reading's ceiling, classes, pricing and warning cost read these as numbers too.
        "hits", "trace_requests", "warmup_requests", "too_large", "memory_hits", "disk_hits", "disk_evictions", "memory_expired",
        "memory_refused", "cost_from_recorded", "cost_from_dimensions", "cost_from_url", "cost_from_ratio", "cost_from_encoded", "cost_from_estimate", "warning_hits_lost",
        "warning_memory_hits_lost", "warning_hits_lost_per_warning", "warning_recovery_requests",
        // The ceiling from the row itself.
        "unique_objects", "compulsory_misses",
        // How many points ran at once (issue 24 §5): the reading says when it is above 1.
        "points_at_once",
    ]

    /// `csv` with every other column's cells (empty ones too) prefixed with hostile markup,
    /// except `keep`; prefixed, distinct values stay distinct, so the same rows group together.
    static func poisoned(_ csv: String, keep: Set<String>, to path: String) throws {
        var lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").map { CSVRowText.fields(of: String($0)) }
        let header = lines[0]
        for row in 1..<lines.count {
            for (index, column) in header.enumerated() where !numericColumns.contains(column) && !keep.contains(column) {
                lines[row][index] = hostile + lines[row][index]
            }
        }
        try (lines.map { $0.map(CSVReport.escape).joined(separator: ",") }.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Every tag of the page, as `name attribute-names…`, in order. Escaped text holds no
    /// `<`, so every `<` must open one of the page's own tags (or the doctype).
    static func tags(_ page: String) throws -> [String] {
        let pattern = try NSRegularExpression(pattern: "<(/?[a-zA-Z][a-zA-Z0-9]*)((?:\\s+[a-zA-Z-]+(?:=(?:'[^']*'|\"[^\"]*\"|[^\\s>]*))?)*)\\s*/?>")
        let text = page as NSString
        let matches = pattern.matches(in: page, range: NSRange(location: 0, length: text.length))
        let opened = page.components(separatedBy: "<").count - 1
        #expect(matches.count == opened - 1, "a < in the page that is not one of its tags")  // -1: the doctype
        let attribute = try NSRegularExpression(pattern: "([a-zA-Z-]+)(?:=(?:'[^']*'|\"[^\"]*\"|[^\\s>]*))?")
        return matches.map { match in
            let attributes = text.substring(with: match.range(at: 2))
            let names = attribute.matches(in: attributes, range: NSRange(location: 0, length: (attributes as NSString).length))
                .map { (attributes as NSString).substring(with: $0.range(at: 1)).lowercased() }
            return ([text.substring(with: match.range(at: 1)).lowercased()] + names).joined(separator: " ")
        }
    }

    @Test("20 §4.1: every text field and the file name hostile markup: the page has exactly the tags of the same report from plain values")
    func hostileFieldsKeepThePageStructure() throws {
        let folder = TemporaryFolder()
        let csv = try Self.sweep(in: folder)
        let plain = try Self.bench(["report", csv, "--out", folder.path + "/plain.html"])
        try #require(plain.status == 0, "\(plain.err)")
        // backend and status choose what is computed (the offline bound, the ok rows), and
        // backend_remarks which notes the reading merges (issue 21 §4): kept, so both pages say
        // the same sentences; §4.1's second test poisons them too.
        let name = folder.path + "/\"'><img src=x onerror=alert(1)><script>s.csv"
        try Self.poisoned(csv, keep: ["backend", "status", "backend_remarks"], to: name)
        let result = try Self.bench(["report", name, "--out", folder.path + "/hostile.html"])
        #expect(result.status == 0, "\(result.err)")
        let page = try String(contentsOfFile: folder.path + "/hostile.html", encoding: .utf8)
        let plainPage = try String(contentsOfFile: folder.path + "/plain.html", encoding: .utf8)
        #expect(try Self.tags(page) == Self.tags(plainPage))
        #expect(!page.contains("<script") && !page.contains("<img src=x"))
        // The values are shown, escaped: the cost model in the reading (the reported hole) and the file name.
        #expect(page.contains("(&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#x27;&gt;&lt;img src=x onerror=alert(1)&gt;&amp;amp;$\\frac{encoded cost)"))
        #expect(page.contains("from &quot;&#x27;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;s.csv."))
    }

    @Test("20 §4.1: backend, status, run_id hostile too: still a page, and only the page's own tags and attributes")
    func everyTextFieldHostile() throws {
        let folder = TemporaryFolder()
        let csv = try Self.sweep(in: folder)
        try Self.poisoned(csv, keep: [], to: folder.path + "/hostile.csv")
        let result = try Self.bench(["report", folder.path + "/hostile.csv", "--out", folder.path + "/hostile.html"])
        #expect(result.status == 0, "\(result.err)")
        let page = try String(contentsOfFile: folder.path + "/hostile.html", encoding: .utf8)
        let allowed: Set<String> = ["html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "code", "ul", "li", "b",
                                    "table", "thead", "tbody", "tr", "th", "td", "figure", "img", "span"]
        for tag in try Self.tags(page) {
            let parts = tag.split(separator: " ").map(String.init)
            #expect(allowed.contains(parts[0].hasPrefix("/") ? String(parts[0].dropFirst()) : parts[0]), "\(tag)")
            #expect(Set(parts.dropFirst()).isSubset(of: ["lang", "charset", "class", "alt", "src", "style"]), "\(tag)")
        }
        // The one styled element is the table's colour swatch (issue 43 §5), its colour a hex
        // value from the backend's name: nothing from the CSV reaches a style attribute.
        let styles = page.components(separatedBy: " style='").dropFirst().map { $0.prefix { $0 != "'" } }
        #expect(!styles.isEmpty && styles.allSatisfy { $0.wholeMatch(of: /background:#[0-9a-f]{6}/) != nil }, "\(styles)")
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    }

    // MARK: §4.4 crafted CSVs: one line, never a traceback

    /// A crafted results CSV and the one line `bench report` must answer it with (FILE is
    /// the file's path); `line` -1 means the last line of the sweep.
    struct Crafted: CustomTestStringConvertible, Sendable {
        var name: String
        var make: @Sendable (_ header: String, _ rows: [String]) -> [UInt8]
        var expected: String
        var testDescription: String { name }
    }

    static let crafted: [Crafted] = [
        Crafted(name: "empty file", make: { _, _ in [] }, expected: "1: not a workbench results CSV (empty file)"),
        Crafted(name: "header only", make: { header, _ in Array((header + "\n").utf8) }, expected: "1: not a workbench results CSV (a header and no rows)"),
        Crafted(name: "missing required columns", make: { header, rows in
            Array((header.replacingOccurrences(of: ",capacity_bytes,", with: ",capacity,") + "\n" + rows.joined(separator: "\n") + "\n").utf8)
        }, expected: "1: not a workbench results CSV (no capacity_bytes column)"),
        Crafted(name: "a non-numeric hit ratio", make: { header, rows in Trust2ReportTests.replacing("object_hit_ratio", in: header, rows, row: 2, with: "high") },
                expected: "4: not a workbench results CSV (object_hit_ratio 'high' is not a number)"),
        Crafted(name: "NaN", make: { header, rows in Trust2ReportTests.replacing("byte_hit_ratio", in: header, rows, row: 0, with: "NaN") },
                expected: "2: not a workbench results CSV (byte_hit_ratio 'NaN' is not a number)"),
        Crafted(name: "inf", make: { header, rows in Trust2ReportTests.replacing("requests", in: header, rows, row: 1, with: "inf") },
                expected: "3: not a workbench results CSV (requests 'inf' is not a number)"),
        Crafted(name: "a row of the wrong width", make: { header, rows in
            Array(([header] + rows.prefix(3) + [rows[3] + ",extra"] + rows.dropFirst(4)).joined(separator: "\n").utf8)
        }, expected: "5: not a workbench results CSV (a row of COUNT+1 fields under a header of COUNT)"),
        Crafted(name: "binary garbage", make: { header, rows in
            Array((header + "\n" + rows[0] + "\n").utf8) + [0xFF, 0xFE, 0x00, 0x89, 0x50, 0x4E, 0x47, 0x0A, 0xC3, 0x28]
        }, expected: "3: not a workbench results CSV (not UTF-8 text)"),
        Crafted(name: "a huge number", make: { header, rows in Trust2ReportTests.replacing("capacity_bytes", in: header, rows, row: 4, with: String(repeating: "9", count: 30)) },
                expected: "6: not a workbench results CSV (capacity_bytes '999999999999999999999999999999' is outside 0…1152921504606846976)"),
        Crafted(name: "a number beyond a double", make: { header, rows in Trust2ReportTests.replacing("evictions", in: header, rows, row: 0, with: "1e400") },
                expected: "2: not a workbench results CSV (evictions '1e400' is outside 0…9223372036854775807)"),
        Crafted(name: "a hit ratio above 1", make: { header, rows in Trust2ReportTests.replacing("object_hit_ratio", in: header, rows, row: 0, with: "1.5") },
                expected: "2: not a workbench results CSV (object_hit_ratio '1.5' is outside 0…1)"),
    ]

    /// The sweep with one cell of `column` in data row `row` (0-based) replaced.
    static func replacing(_ column: String, in header: String, _ rows: [String], row: Int, with value: String) -> [UInt8] {
        let index = CSVRowText.fields(of: header).firstIndex(of: column)!
        var rows = rows
        var fields = CSVRowText.fields(of: rows[row])
        fields[index] = value
        rows[row] = fields.map(CSVReport.escape).joined(separator: ",")
        return Array((([header] + rows).joined(separator: "\n") + "\n").utf8)
    }

    @Test("20 §4.4: a crafted results CSV is one line FILE:LINE: not a workbench results CSV (reason), exit 2, for report and plot", arguments: crafted)
    func craftedCSV(_ crafted: Crafted) throws {
        let folder = TemporaryFolder()
        let csv = try Self.sweep(in: folder)
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").map(String.init)
        let path = folder.bytes("crafted.csv", crafted.make(lines[0], Array(lines.dropFirst())))
        let width = CSVRowText.fields(of: lines[0]).count
        let expected = "bench: error: \(path):" + crafted.expected
            .replacingOccurrences(of: "COUNT+1", with: String(width + 1)).replacingOccurrences(of: "COUNT", with: String(width)) + "\n"
        let report = try Self.bench(["report", path, "--out", folder.path + "/r.html"])
        #expect(report.status == 2 && report.err == expected, "\(report.err)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/r.html"))
        // plot reads any workbench CSV, so its line names no kind before the columns say results.
        let plot = try Self.bench(["plot", path, "--out", folder.path + "/charts"])
        let unnamed = ["empty file", "binary garbage"].contains(crafted.name)  // stopped before the columns
        let plotExpected = unnamed ? expected.replacingOccurrences(of: "workbench results CSV", with: "workbench CSV") : expected
        #expect(plot.status == 2 && plot.err == plotExpected, "\(plot.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/charts").isEmpty)
    }

    /// Mutates a results CSV the same way for a given seed (SplitMix64) and runs every
    /// mutation through report.py's and plot.py's own entry points in one Python process
    /// (a process per file would take minutes); prints one line per file and script.
    static let fuzzDriver = #"""
    import contextlib, io, os, random, sys, traceback
    scripts, good_path, work, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    sys.path.insert(0, scripts)
    import plot, report
    good = open(good_path, "rb").read()
    nasty = ["", "nan", "NaN", "inf", "-inf", "1e400", "abc", "<script>", "9" * 40, "9" * 5000, "-1", "0x10", "1_000",
             " 1", "2", "1e308", "$\\frac{", "\x00", '"', "a\nb", "-0", "1.5e-320", "\u2028"]
    def mutate(rng, data):
        lines = data.split(b"\n")
        kind = rng.randrange(8)
        if kind == 0:
            i = rng.randrange(1, len(lines) - 1); cells = lines[i].split(b","); cells[rng.randrange(len(cells))] = rng.choice(nasty).encode(); lines[i] = b",".join(cells)
        elif kind == 1:
            i = rng.randrange(0, len(lines) - 1); cells = lines[i].split(b","); del cells[rng.randrange(len(cells))]; lines[i] = b",".join(cells)
        elif kind == 2:
            return data[: rng.randrange(len(data))]
        elif kind == 3:
            data = bytearray(data)
            for _ in range(rng.randrange(1, 20)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            return bytes(data)
        elif kind == 4:
            cells = lines[0].split(b","); cells[rng.randrange(len(cells))] = rng.choice([b"run_id", b"", b"x", b"capacity_bytes"]); lines[0] = b",".join(cells)
        elif kind == 5:
            i = rng.randrange(1, len(lines) - 1); cells = lines[i].split(b",")
            lines[i] = b",".join(rng.choice(nasty).encode() if rng.random() < 0.3 else c for c in cells)
        elif kind == 6:
            return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))
        else:
            j = rng.randrange(len(lines[0].split(b","))); value = rng.choice(nasty).encode()
            for i in range(1, len(lines) - 1):
                cells = lines[i].split(b","); cells[j] = value; lines[i] = b",".join(cells)
        return b"\n".join(lines)
    rng = random.Random(20)
    os.environ["CWB_STAGING"] = work
    for n in range(count):
        path = os.path.join(work, f"m{n}.csv")
        open(path, "wb").write(mutate(rng, good))
        for name, module, out in (("report", report, os.path.join(work, f"r{n}.html")), ("plot", plot, work)):
            errors, status = io.StringIO(), 0
            with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
                try:
                    sys.argv = [name, "--out=" + out, "--", path]
                    module.main()
                except SystemExit as exit:
                    status = exit.code
                except BaseException:
                    status = "traceback " + traceback.format_exc().splitlines()[-1]
            said = [line for line in errors.getvalue().splitlines() if line.startswith("plot: error: ")]
            print(n, name, status, said[0] if len(said) == 1 else f"{len(said)} error lines", sep="\t")
    """#

    @Test("20 §4.4: three dozen mutated results CSVs (fixed seed): each is a report/charts or one FILE:LINE line and exit 2, never a traceback")
    func mutatedCSVs() throws {
        let folder = TemporaryFolder()
        let csv = try Self.sweep(in: folder)
        let work = folder.path + "/work"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: false)
        let driver = folder.file("fuzz.py", Self.fuzzDriver)
        let count = 36
        let result = try Self.within(240, Self.python, [driver, Self.scripts, csv, work, String(count)])
        #expect(result.status == 0, "\(result.err)")
        let lines = result.out.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        #expect(lines.count == 2 * count)
        var drawn = 0
        for line in lines where line.count == 4 {
            let (n, status, said) = (line[0], line[2], line[3])
            if status == "0" || status == "None" {
                drawn += 1
                continue
            }
            // One line naming the mutated file and the line the check stopped at.
            #expect(status == "2" && said.hasPrefix("plot: error: \(work)/m\(n).csv:") && said.contains(": not a workbench "), "\(line)")
        }
        // The mutations are not all fatal: some files still make a page and charts.
        #expect(drawn > 0 && drawn < 2 * count)
    }
}

