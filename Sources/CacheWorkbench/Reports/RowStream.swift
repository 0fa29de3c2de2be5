import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// A CSV going to a stream (standard output, a pipe, a device), one line at a time, each
/// flushed at once so a reader, or a kill, sees every finished row. Callers serialize writes.
package final class RowStream: @unchecked Sendable {
    package let file: OutputFile

    package init(_ file: OutputFile) { self.file = file }

    package func write(_ line: String) throws {
        try file.write(line + "\n")
        try file.flush()
    }
}

/// `bench run --csv` with several points: each finished row is written as it finishes, so a
/// run killed midway keeps what was done. A regular file is rewritten whole with the rows so
/// far (temporary file + rename, `OutputFile`), so it is never half-written; a stream gets the
/// header, then each row in place. A file rewrite is O(rows): a run has few points.
public final class FinishedRowsCSV {
    private let path: String
    private let stream: RowStream?
    private var results: [RunResult] = []

    public init(path: String) throws {
        self.path = path
        let regular = try !OutputFile.standardOutputNames.contains(path) && OutputFile.kind(of: path) != .special
        stream = regular ? nil : RowStream(try OutputFile(path))
        try stream?.write(RunResult.columnNames.joined(separator: ","))
    }

    public func append(_ result: RunResult) throws {
        results.append(result)
        if let stream {
            try stream.write(result.cells.map(CSVReport.field).joined(separator: ","))
        } else {
            try OutputFile.write(CSVReport.render(results), to: path)
        }
        Interruption.kept(path, "\(results.count) finished \(results.count == 1 ? "row" : "rows")")
    }

    /// Ends the file: a run with no rows still leaves the header.
    public func finish() throws {
        if let stream {
            try stream.file.commit()
        } else if results.isEmpty {
            try OutputFile.write(CSVReport.render([]), to: path)
        }
    }
}
