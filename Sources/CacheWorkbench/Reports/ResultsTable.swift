import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// A results CSV read back (`bench merge`, a plan's finished shards): its header and rows
/// as fields. The header must be the expected columns (this workbench's, `read`), in
/// order, and every row must have one field per column; errors name the file and line.
///
/// Complexity: O(file size).
package struct ResultsTable {
    var path: String
    var header: [String]
    package var rows: [[String]]
    /// Each row's first line in the file (for errors).
    package var lines: [Int]

    package func column(_ name: String) -> Int? { header.firstIndex(of: name) }

    /// A row's backend as a backend list names it (`nscache[key-hash=cf]`), from its
    /// `backend` and `variant` cells (as `RunResult.backendLabel`).
    package static func backendLabel(backend: String, variant: String) -> String {
        variant.isEmpty ? backend : "\(backend)[\(variant)]"
    }

    /// Splits `text` into records at line breaks outside quotes, then into fields.
    static func parse(_ text: String, path: String, columns: [String]) throws -> ResultsTable {
        var records: [(line: Int, text: String)] = []
        var current = String.UnicodeScalarView()
        var quoted = false
        var line = 1
        var recordLine = 1
        for scalar in text.unicodeScalars {
            if scalar == "\"" { quoted.toggle() }
            if scalar == "\n" && !quoted {
                if !current.isEmpty { records.append((recordLine, String(current))) }
                current = String.UnicodeScalarView()
                line += 1
                recordLine = line
                continue
            }
            if scalar == "\n" { line += 1 }
            if scalar != "\r" || quoted { current.append(scalar) }
        }
        if !current.isEmpty { records.append((recordLine, String(current))) }
        guard let first = records.first else { throw WorkbenchError("\(path):1: empty; expected a results header") }
        let header = CSVRowText.fields(of: first.text)
        guard header == columns else {
            let missing = columns.filter { !header.contains($0) }
            // Where they part (a swapped or inserted column), so the count alone is not all it says.
            let position = (0..<min(header.count, columns.count)).first { header[$0] != columns[$0] } ?? min(header.count, columns.count)
            let found = position < header.count ? ErrorText.quote(header[position]) : "nothing"
            let expected = position < columns.count ? ErrorText.quote(columns[position]) : "nothing"
            throw WorkbenchError("\(path):1: not this workbench's results header (\(header.count) columns, expected \(columns.count); column \(position + 1) is \(found), expected \(expected)\(missing.isEmpty ? "" : "; missing \(missing.prefix(3).joined(separator: ", "))"))")
        }
        var rows: [[String]] = []
        var lines: [Int] = []
        for record in records.dropFirst() {
            let fields = CSVRowText.fields(of: record.text)
            guard fields.count == header.count else {
                throw WorkbenchError("\(path):\(record.line): \(fields.count) fields, expected \(header.count)")
            }
            rows.append(fields)
            lines.append(record.line)
        }
        return ResultsTable(path: path, header: header, rows: rows, lines: lines)
    }
}
