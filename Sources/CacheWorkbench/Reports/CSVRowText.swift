import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// One results row as text: split into its RFC 4180 fields (as `CSVReport` writes them),
/// and kept on one line in a journal (backslashes and line breaks escaped, reversibly).
/// Both work on Unicode scalars, not characters: a quote or a backslash after a combining
/// or prepended mark would otherwise hide inside one character (the fuzzer found one).
///
/// Complexity: each O(length).
package enum CSVRowText {
    /// A row on one line: backslashes and line breaks escaped.
    package static func escape(_ row: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in row.unicodeScalars {
            switch scalar {
            case "\\": result.append(contentsOf: "\\\\".unicodeScalars)
            case "\n": result.append(contentsOf: "\\n".unicodeScalars)
            case "\r": result.append(contentsOf: "\\r".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    static func unescape(_ line: String) -> String {
        var result = String.UnicodeScalarView()
        var escaped = false
        for scalar in line.unicodeScalars {
            if escaped {
                switch scalar {
                case "n": result.append("\n")
                case "r": result.append("\r")
                default: result.append(scalar)
                }
                escaped = false
            } else if scalar == "\\" {
                escaped = true
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// A row read back (a journal's, a results file's), written again field by field through
    /// the results CSV's writer (`CSVReport.escape`): the same text for a row the workbench
    /// wrote (each step is idempotent on its output), a neutralized one for a cell edited to
    /// start a formula. O(length).
    static func rewritten(_ fields: [String]) -> String {
        fields.map(CSVReport.escape).joined(separator: ",")
    }

    /// The fields of one RFC 4180 row (as `CSVReport` writes them).
    package static func fields(of row: String) -> [String] {
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var quoted = false
        var scalars = row.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if quoted {
                if scalar == "\"" {
                    if let next = scalars.next() {
                        if next == "\"" {
                            field.append("\"")
                        } else {
                            quoted = false
                            if next == "," {
                                fields.append(String(field))
                                field = String.UnicodeScalarView()
                            } else {
                                field.append(next)
                            }
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(scalar)
                }
            } else if scalar == "\"" && field.isEmpty {
                quoted = true
            } else if scalar == "," {
                fields.append(String(field))
                field = String.UnicodeScalarView()
            } else {
                field.append(scalar)
            }
        }
        fields.append(String(field))
        return fields
    }
}
