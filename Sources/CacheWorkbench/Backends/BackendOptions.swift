import WorkbenchCore
import WorkbenchTraces
/// Parsing of the backend options that arrive as text (`BackendConfig.options`), one
/// rule per kind of value, so every backend words its errors the same way.
extension BackendConfig {
    /// A fraction of capacity in (0, 1] from option `name`, or `fallback`.
    func fraction(_ name: String, default fallback: Double) throws -> Double {
        guard let text = options[name] else { return fallback }
        guard let value = Double(text), value > 0, value <= 1 else {
            throw WorkbenchError("\(name) must be a fraction of capacity above 0 and at most 1, not '\(text)'")
        }
        return value
    }

    /// `purge-target` as bytes: a fraction of capacity, default 0.6 (AF's 60/100 MB).
    package func purgeTarget() throws -> Int {
        Int((Double(capacityBytes) * (try fraction("purge-target", default: 0.6))).rounded(.down))
    }

    /// On/off option `name`.
    func flag(_ name: String, default fallback: Bool) throws -> Bool {
        guard let text = options[name]?.lowercased() else { return fallback }
        switch text {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: throw WorkbenchError("\(name) must be on or off, not '\(text)'")
        }
    }

    /// A whole number (binary size units allowed) in `range` from option `name`.
    func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = options[name] else { return fallback }
        guard let value = Capacity.bytes(parsing: text), range.contains(value) else {
            throw WorkbenchError("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }

    /// One of `choices` from option `name`, or the first choice.
    func choice(_ name: String, _ choices: [String]) throws -> String {
        guard let text = options[name]?.lowercased() else { return choices[0] }
        guard choices.contains(text) else { throw WorkbenchError("\(name) must be \(choices.joined(separator: ", ")), not '\(text)'") }
        return text
    }
}
