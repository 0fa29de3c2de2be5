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

/// Issue 20, findings of the adversarial review of its fixes (the lead's part): plot and
/// report inputs that are not regular files, Content-Length values that are not lengths,
/// sizes that are not whole, and trace names holding terminal escapes.
@Suite("trust, second round: review findings (lead)", .serialized, .onTestWorkers)
struct R20LeadTests {
    /// A HAR of one GET whose response carries `contentLength` (and no other size).
    private func har(contentLength: String? = nil, contentSize: String? = nil) -> String {
        let headers = contentLength.map { #"[{"name":"Content-Length","value":"\#($0)"}]"# } ?? "[]"
        let content = contentSize.map { #"{"mimeType":"image/jpeg","size":\#($0)}"# } ?? #"{"mimeType":"image/jpeg"}"#
        return #"{"log":{"entries":[{"startedDateTime":"2026-01-01T00:00:00Z","request":{"method":"GET","url":"https://x.test/a.jpg","headers":[]},"response":{"status":200,"headers":\#(headers),"content":\#(content)}}]}}"#
    }

    private func sizes(_ document: String) throws -> [Int] {
        try HARTraceReader.parse(Data(document.utf8), path: "t.har", filter: HARFilter([:]), keepKeyNames: true, skipBad: false).0.map { $0.size }
    }

    @Test("20 review: a FIFO given to report or plot is one line and exit 2 at once, never a hang")
    func fifoInputs() throws {
        let folder = TemporaryFolder()
        let fifo = folder.path + "/results.csv"
        #expect(mkfifo(fifo, 0o600) == 0)
        for command in [["report", fifo, "--out", folder.path + "/r.html"], ["plot", fifo, "--out", folder.path + "/charts"]] {
            let result = try runBounded(30, try builtBench, command)
            #expect(result.status == 2, "\(command[0]): \(result.status) \(result.err)")
            #expect(result.err == "bench: error: \(fifo): not a regular file (a FIFO, a device or a folder); give a results CSV file\n", "\(result.err)")
        }
    }

    @Test("20 review: Content-Length is digits or a list of one repeated value (RFC 9110 §8.6); anything else is a bad entry")
    func contentLengthValues() throws {
        #expect(try sizes(har(contentLength: "100")) == [100])
        #expect(try sizes(har(contentLength: "100, 100")) == [100])
        #expect(try sizes(har(contentLength: " 100 ,100 ")) == [100])
        for bad in ["100, 200", "-5", "abc", "1e3", "", "10 0", "+5"] {
            #expect(throws: TraceError.self, "\(bad)") { try sizes(har(contentLength: bad)) }
            do { _ = try sizes(har(contentLength: bad)) } catch {
                #expect("\(error)".contains("is not a length (RFC 9110 §8.6"), "\(bad): \(error)")
            }
        }
    }

    @Test("20 review: a size of 1.5 bytes is a bad value, not 1 byte; -1 still means unknown")
    func wholeSizes() throws {
        #expect(throws: TraceError.self) { try sizes(har(contentSize: "1.5")) }
        #expect(try sizes(har(contentSize: "2048.0")) == [2048])
        #expect(try sizes(har(contentLength: "300", contentSize: "-1")) == [300])
    }

    @Test("20 review: a trace named with terminal escapes is shown escaped in the table and in stats")
    func escapesInNames() throws {
        let folder = TemporaryFolder()
        let name = "x\u{1B}]0;PWNED\u{07}\u{1B}[2J.csv"
        _ = folder.file(name, "time,key,size\n0,A,4\n1,A,4\n")
        let run = try runBounded(60, try builtBench, ["run", "--trace", name, "--backend", "lru", "--capacity", "8", "--no-timing"], in: folder.path)
        #expect(run.status == 0, "\(run.err)")
        #expect(!run.out.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" })
        #expect(run.out.contains("x\\x1b]0;PWNED\\x07\\x1b[2J.csv"), "\(run.out)")
        let stats = try runBounded(60, try builtBench, ["stats", name], in: folder.path)
        #expect(stats.status == 0, "\(stats.err)")
        #expect(!stats.out.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" })
        #expect(stats.out.hasPrefix("trace x\\x1b]0;PWNED"), "\(stats.out)")
    }
}
