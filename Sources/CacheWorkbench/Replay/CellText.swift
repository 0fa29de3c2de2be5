import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends

/// A results cell as text, for the writers of rows in every module: a CSV field (text through
/// `CSVReport.escape`, a non-finite number empty) and a JSON value (a non-finite number null).
/// O(length of the text).
extension CSVReport {
    package static func field(_ cell: Cell) -> String {
        switch cell {
        case .int(let value): return String(value)
        case .wide(let value): return String(value)
        case .double(let value): return value.isFinite ? String(value) : ""
        case .text(let value): return escape(value)
        case .empty: return ""
        }
    }
}

extension JSONReport {
    package static func value(_ cell: Cell) -> String {
        switch cell {
        case .int(let value): return String(value)
        case .wide(let value): return String(value)
        case .double(let value): return value.isFinite ? String(value) : "null"
        case .text(let value): return string(value)
        case .empty: return "null"
        }
    }
}
