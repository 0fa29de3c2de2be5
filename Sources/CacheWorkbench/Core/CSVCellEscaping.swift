/// How every CSV the workbench writes holds a text cell: neutralized against formula
/// injection, then quoted (RFC 4180). Apart from the results CSV's rendering
/// (CSVReport.swift) so the parsers that read rows back and write them again (the sweep
/// journal, `CSVRowText`) build without the results' types, fuzz targets included.
public enum CSVReport {
    /// A text cell of a results CSV: neutralized against formula injection, then quoted.
    /// OWASP's rule (CSV Injection): a spreadsheet runs a cell that starts with `=`, `+`,
    /// `-`, `@`, a tab or a carriage return as a formula, so such a cell gets a leading `'`,
    /// which spreadsheets show as text. A cell that is a plain number (`-0.5`, `+1`) is left
    /// alone: it is data, not a formula. Idempotent (a neutralized cell starts with `'`).
    /// Trace files written by `gen`/`convert` are data, not results: they use `quote`.
    public static func escape(_ value: String) -> String {
        quote(neutralized(value))
    }

    /// `value` with a leading `'` when a spreadsheet would read it as a formula.
    public static func neutralized(_ value: String) -> String {
        guard let first = value.unicodeScalars.first, formulaStarts.contains(first), Double(value) == nil else { return value }
        return "'" + value
    }

    private static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]

    /// RFC 4180: quote fields holding a comma, a quote or a line break; double the quotes.
    /// By Unicode scalar: a quote after a combining or prepended mark is part of one
    /// character, and must still be seen and doubled.
    public static func quote(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        var quoted = String.UnicodeScalarView("\"".unicodeScalars)
        for scalar in value.unicodeScalars {
            if scalar == "\"" { quoted.append("\"") }
            quoted.append(scalar)
        }
        quoted.append("\"")
        return String(quoted)
    }
}
