import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Why a journal's identity line is not this sweep's (`--resume` refuses it): each
/// fingerprint field that differs, named as on the command line with this command's value
/// and the journal's, so a refusal says which option to fix (`--images-only is on here,
/// off in the journal`) instead of only that something differs.
///
/// A type of its own (not a part of `SweepRun`) so the journal's parser builds without the
/// sweep, fuzz target included.
///
/// Complexity: O(length of the two lines).
package enum SweepFingerprintDifference {
    /// The differing fields, at most `limit`, each `NAME is X here, Y in the journal`;
    /// empty when the lines cannot be told apart field by field.
    static func fingerprintDifferences(journal: String, current: String, limit: Int = 3) -> [String] {
        guard journal.hasPrefix(fingerprintPrefix) else { return [] }  // another format: nothing to compare by name
        let now = fingerprintFields(of: current, known: nil)
        let names = Set(now.map { $0.name })
        let then = Dictionary(fingerprintFields(of: journal, known: names).map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        let differing = now.filter { then[$0.name] != $0.value }
        return differing.prefix(limit).map { field in
            let journalValue = then[field.name].map(shown) ?? "absent"
            return "\(label(field.name)) is \(shown(field.value)) here, \(journalValue) in the journal"
        } + (differing.count > limit ? ["…"] : [])
    }

    /// `(name, value)` pairs of a fingerprint line (`fingerprint`'s format: `name=value`
    /// cells, CSV-escaped and neutralized, joined by spaces, the whole line row-escaped). A
    /// space inside a value splits its cell, so a piece whose name is not one of `known`
    /// goes back to the value before it.
    static func fingerprintFields(of line: String, known: Set<String>?) -> [(name: String, value: String)] {
        let body = CSVRowText.unescape(String(line.dropFirst(fingerprintPrefix.count)))
        var fields: [(name: String, value: String)] = []
        for piece in spaceSeparated(body) {
            var cell = CSVRowText.fields(of: piece).first ?? ""
            if cell.hasPrefix("'"), CSVReport.neutralized(String(cell.dropFirst())) == cell { cell.removeFirst() }
            let equals = cell.firstIndex(of: "=")
            let name = equals.map { String(cell[..<$0]) }
            if let name, let equals, known?.contains(name) ?? true {
                fields.append((name, String(cell[cell.index(after: equals)...])))
            } else if !fields.isEmpty {
                fields[fields.count - 1].value += " " + cell
            }
        }
        return fields
    }

    package static let fingerprintPrefix = "# bench sweep journal v2 "

    /// `text` split at spaces outside double quotes.
    private static func spaceSeparated(_ text: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        var quoted = false
        for character in text {
            if character == "\"" { quoted.toggle() }
            if character == " " && !quoted {
                pieces.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        pieces.append(current)
        return pieces
    }

    private static func shown(_ value: String) -> String {
        value.isEmpty ? "unset" : value == "on" || value == "off" ? value : ErrorText.quote(value)
    }

    private static func label(_ name: String) -> String {
        switch name {
        case "checksum": "the trace's SHA-256"
        case "capacities": "the capacities"
        case "plan": "the plan (plan_id)"
        case "points": "the shard's points"
        default: name
        }
    }
}
