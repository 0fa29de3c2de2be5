/// The results as JSON (the rendering is Reports/JSONReport.swift). Declared here because a
/// JSON string literal is written by the trace writers too (app recordings).
public enum JSONReport {
    /// `value` as a JSON string literal: quotes, backslashes and control characters escaped.
    package static func string(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
