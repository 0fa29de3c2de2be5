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

/// Issue 20 §4 (outputs a program and a person can trust): CSV formula neutralization,
/// pure machine output on standard output, and messages that say what is wrong.
@Suite("trust, second round: outputs", .serialized, .onTestWorkers)
struct Trust2OutputTests {
    static let handTrace = "time,key,size\n0,A,4\n1,B,4\n2,A,4\n3,C,4\n"

    @Test("20 §4.2: a results cell a spreadsheet would run as a formula gets a leading quote; numbers stay numbers")
    func formulaNeutralization() {
        #expect(CSVReport.escape("=cmd|' -C calc'!A0.csv") == "'=cmd|' -C calc'!A0.csv")
        #expect(CSVReport.escape("+1+cmd") == "'+1+cmd")
        #expect(CSVReport.escape("-2+3+cmd|' /C calc'!A0") == "'-2+3+cmd|' /C calc'!A0")
        #expect(CSVReport.escape("@SUM(A1)") == "'@SUM(A1)")
        #expect(CSVReport.escape("\tx") == "'\tx")
        #expect(CSVReport.escape("\rx") == "\"'\rx\"")  // neutralized, then quoted for the line break
        #expect(CSVReport.escape("=a,b") == "\"'=a,b\"")
        // Data, not formulas: untouched.
        #expect(CSVReport.escape("-0.5") == "-0.5")
        #expect(CSVReport.escape("+1") == "+1")
        #expect(CSVReport.escape("lru") == "lru")
        #expect(CSVReport.escape("a=b") == "a=b")
        // Idempotent: a neutralized cell is not neutralized again (bench merge re-escapes cells).
        #expect(CSVReport.escape(CSVReport.neutralized("=x")) == "'=x")
    }

    @Test("20 §4.2: a trace named like a formula is neutralized in run's CSV; trace files keep their keys")
    func formulaTraceName() throws {
        let folder = TemporaryFolder()
        let name = "=cmd|' -C calc'!A0.csv"
        let trace = folder.file(name, "time,key,size\n0,=A,4\n1,-B,4\n2,=A,4\n")
        let out = folder.path + "/out.csv"
        // Named relative to the working folder, the trace's label starts with the `=`.
        let result = try bench(["run", "--trace", name, "--backend", "lru", "--capacity", "1KiB", "--csv", out], in: folder.path)
        #expect(result.status == 0, "\(result.err)")
        let rows = try csvRows(out)
        #expect(rows.count == 1)
        #expect(rows.first?["trace"] == "'" + name)
        #expect(rows.first?["hits"] == "1")
        // gen/convert write traces (data): keys are written as they are and read back equal.
        let converted = folder.path + "/back.csv"
        let convert = try bench(["convert", trace, converted])
        #expect(convert.status == 0, "\(convert.err)")
        let keys = try readCSV(converted).requests.map(\.keyText)
        #expect(keys == ["=A", "-B", "=A"])
    }

    @Test("20 §4.3: with --csv - (or --json -) standard output holds only the CSV (or JSON); the table goes to stderr")
    func pureMachineOutput() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("hand.csv", Self.handTrace)
        let run = try bench(["run", "--trace", trace, "--backend", "lru,fifo", "--capacity", "8,1KiB", "--csv", "-"])
        #expect(run.status == 0, "\(run.err)")
        let lines = run.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.first == RunResult.columnNames.joined(separator: ","))
        #expect(lines.count == 5)  // header + 2 backends × 2 capacities
        for line in lines { #expect(CSVRowText.fields(of: line).count == RunResult.columnNames.count, "\(line)") }
        #expect(run.err.contains("backend") && run.err.contains("hit ratio"), "the table is on stderr: \(run.err)")

        let sweep = try bench(["sweep", "--trace", trace, "--backend", "lru", "--capacity", "4,8", "--csv", "-"])
        #expect(sweep.status == 0, "\(sweep.err)")
        let sweepLines = sweep.out.split(separator: "\n").map(String.init)
        #expect(sweepLines.first == RunResult.columnNames.joined(separator: ","))
        #expect(sweepLines.count == 3)
        for line in sweepLines { #expect(CSVRowText.fields(of: line).count == RunResult.columnNames.count, "\(line)") }

        let json = try bench(["run", "--trace", trace, "--backend", "lru", "--capacity", "8", "--json", "-"])
        #expect(json.status == 0, "\(json.err)")
        #expect((try? JSONSerialization.jsonObject(with: Data(json.out.utf8))) != nil, "stdout is pure JSON: \(json.out.prefix(200))")

        // Without a machine output on stdout the table stays there.
        let plain = try bench(["run", "--trace", trace, "--backend", "lru", "--capacity", "8"])
        #expect(plain.out.contains("hit ratio"))
    }

    @Test("20 §4.4: capacities up to 1EiB with PiB and EiB; larger ones name the limit, not a fraction or a unit")
    func capacityLimits() throws {
        #expect(try Capacity(parsing: "1024PiB") == .bytes(1 << 60))
        #expect(try Capacity(parsing: "1EiB") == .bytes(1 << 60))
        #expect(try Capacity(parsing: "2PB") == .bytes(1 << 51))
        #expect(try Capacity(parsing: "64MiB") == .bytes(64 << 20))
        for text in ["2048PiB", "2EiB", "99999999999999999999999", "9223372036854775808"] {
            let error = #expect(throws: WorkbenchError.self) { try Capacity(parsing: text) }
            #expect(error?.description.contains("above the largest capacity accepted, 1EiB") == true, "\(text): \(String(describing: error))")
        }
        // A check that runs only if it throws: #expect(throws:) fails when it does not.
        let unknownUnit = #expect(throws: WorkbenchError.self) { try Capacity(parsing: "5XB") }
        #expect(unknownUnit?.description.contains("expected a number and a unit") == true, "\(String(describing: unknownUnit))")
        #expect(ByteCount.format(1 << 60) == "1EiB")
        #expect(ByteCount.format(3 << 50) == "3PiB")
    }

    @Test("20 §4.4: a trace bench convert wrote as .bin reads back without --format")
    func binReadsBack() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("hand.csv", Self.handTrace)
        let bin = folder.path + "/t.bin"
        let convert = try bench(["convert", trace, bin])
        #expect(convert.status == 0, "\(convert.err)")
        let sweep = try bench(["sweep", "--trace", bin, "--backend", "lru", "--capacity", "4,8", "--csv", folder.path + "/s.csv"])
        #expect(sweep.status == 0, "\(sweep.err)")
        let rows = try csvRows(folder.path + "/s.csv")
        #expect(rows.map { $0["requests"] } == ["4", "4"])
        #expect(rows.map { $0["hits"] } == ["0", "1"])
    }

    @Test("20 §4.4: a binary file read as a text trace is one short line naming the file, line and --format")
    func binaryAsText() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("hand.csv", Self.handTrace)
        let bin = folder.path + "/t.bin"
        _ = try bench(["convert", trace, bin])
        let renamed = folder.path + "/t.data"
        try FileManager.default.moveItem(atPath: bin, toPath: renamed)
        let result = try bench(["run", "--trace", renamed, "--backend", "lru", "--capacity", "8"])
        #expect(result.status == 2)
        let lines = result.err.split(separator: "\n")
        #expect(lines.count == 1, "\(result.err)")
        #expect(result.err.hasPrefix("bench: error: \(renamed):1: binary data"), "\(result.err)")
        #expect(result.err.contains("--format"))
        #expect(result.err.count < 300)

        // A header whose column name is long and full of control bytes is cut to 40 shown characters.
        let controls = String(repeating: "\u{1}", count: 200)
        let header = folder.file("h.csv", "time,k\(controls),size\n0,A,4\n")
        let bad = try bench(["run", "--trace", header, "--backend", "lru", "--capacity", "8"])
        #expect(bad.status == 2)
        #expect(bad.err.split(separator: "\n").count == 1)
        #expect(bad.err.count < 300, "\(bad.err.count) characters: \(bad.err)")
        #expect(bad.err.contains("(201 bytes)"), "\(bad.err)")
    }
}
