import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// A sweep journal's text read back (`SweepJournal`, `--resume`): line 1 the sweep's
/// fingerprint, line 2 the results header, then `index<TAB>row` per finished point, each
/// row checked against the point its index names. Apart from the file so the parser is
/// fuzzed on its own (`scripts/fuzz journal`).
///
/// Complexity: O(bytes).
package enum SweepJournalText {
    /// What a point's row must say: its backend as the list names it and its capacity as
    /// `capacity_spec` writes it.
    package struct PlannedPoint: Equatable {
        var backend: String
        var capacity: String

        package init(backend: String, capacity: String) {
            (self.backend, self.capacity) = (backend, capacity)
        }
    }

    struct Parsed {
        /// Rows by point index (the last of a point journaled twice), each field written again
        /// through the results CSV's writer (`CSVReport.escape`, OWASP-neutralized): a cell
        /// edited into a formula is text in the final CSV, as a fresh row's would be.
        var rows: [Int: String]
        /// The journal line of each kept row (1-based), for errors found later
        /// (`SweepRun.checkResumedRows`).
        var lines: [Int: Int] = [:]
        /// Bytes up to the last whole line: what the journal keeps (the rest was being
        /// written when the sweep stopped).
        var completeBytes: Int
    }

    static func parse(_ bytes: [UInt8], path: String, fingerprint: String, columns: [String], points: [PlannedPoint]) throws -> Parsed {
        // Whole lines only: a line without its newline was being written when the sweep stopped.
        let complete = (bytes.lastIndex(of: 0x0A).map { $0 + 1 }) ?? 0
        let lines = String(decoding: bytes[..<complete], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        // A first or second line cut short is a journal whose sweep stopped while starting
        // (or a damaged one), not another sweep's.
        if let first = lines.first, first != fingerprint {
            let differences = SweepFingerprintDifference.fingerprintDifferences(journal: String(first), current: fingerprint)
            let what = differences.isEmpty ? "trace, backends, capacities or options differ" : differences.joined(separator: "; ")
            throw WorkbenchError("\(path):1: made by a different sweep: \(what); repeat the journal's command with --resume, or remove the file")
        }
        guard lines.count >= 2 else {
            throw WorkbenchError("\(path):\(lines.count + 1): truncated: the journal ends inside its \(lines.isEmpty ? "first (identity)" : "second (header)") line (\(bytes.count) bytes, no finished point), so its sweep stopped while starting or the file is damaged; remove it and run the sweep again without --resume")
        }
        guard lines[lines.startIndex + 1] == columns.joined(separator: ",") else {
            throw WorkbenchError("\(path):2: its columns differ from this version's; remove the file and run the sweep again")
        }
        var rows: [Int: String] = [:]
        var rowLines: [Int: Int] = [:]
        for (offset, line) in lines.dropFirst(2).enumerated() {
            // A point may appear again: a failed row that a --resume ran once more (the
            // later row is the one kept).
            guard let tab = line.firstIndex(of: "\t"), let index = Int(line[..<tab]), points.indices.contains(index) else {
                throw WorkbenchError("\(path):\(offset + 3): not a finished point of this sweep (expected `index<TAB>row`, index 0 to \(points.count - 1))")
            }
            let row = CSVRowText.unescape(String(line[line.index(after: tab)...]))
            let fields = CSVRowText.fields(of: row)
            guard fields.count == columns.count else {
                throw WorkbenchError("\(path):\(offset + 3): \(fields.count) fields, expected \(columns.count)")
            }
            if let problem = mismatch(fields, columns: columns, index: index, planned: points[index]) {
                throw WorkbenchError("\(path):\(offset + 3): the row journaled as point \(index) \(problem); the journal is damaged: remove that line (the point runs again) or the file")
            }
            rows[index] = CSVRowText.rewritten(fields)
            rowLines[index] = offset + 3
        }
        return Parsed(rows: rows, lines: rowLines, completeBytes: complete)
    }

    /// What disagrees between a journaled row and the point its index names (its
    /// `sweep_point`, backend, capacity), nil when it is that point's row.
    static func mismatch(_ fields: [String], columns: [String], index: Int, planned: PlannedPoint) -> String? {
        let cell = { (name: String) in columns.firstIndex(of: name).map { fields[$0] } ?? "" }
        let checks = [
            ("sweep_point", cell("sweep_point"), String(index)),
            ("backend", ResultsTable.backendLabel(backend: cell("backend"), variant: cell("variant")), planned.backend),
            ("capacity_spec", cell("capacity_spec"), planned.capacity),
        ]
        return checks.first { $0.1 != $0.2 }.map { "has \($0.0) \(ErrorText.quote($0.1)), point \(index)'s is \(ErrorText.quote($0.2))" }
    }
}
