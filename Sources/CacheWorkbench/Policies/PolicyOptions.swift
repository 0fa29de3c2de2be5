import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// A policy's options as text, parsed with one wording of errors for every policy.
struct PolicyOptions {
    var values: [String: String]
    /// Next accesses, for offline policies.
    var nextAccess: NextAccess? = nil

    func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text.trimmingSpaces), range.contains(value) else {
            throw WorkbenchError("--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(ErrorText.quote(text))")
        }
        return value
    }

    func number(_ name: String, default fallback: Double, range: ClosedRange<Double>) throws -> Double {
        guard let text = values[name] else { return fallback }
        guard let value = Double(text.trimmingSpaces), range.contains(value) else {
            throw WorkbenchError("--\(name) must be a number from \(range.lowerBound) to \(range.upperBound), not \(ErrorText.quote(text))")
        }
        return value
    }

    func fraction(_ name: String, default fallback: Double) throws -> Double {
        guard let text = values[name] else { return fallback }
        guard let value = Double(text.trimmingSpaces), value > 0, value < 1 else {
            throw WorkbenchError("--\(name) must be a fraction above 0 and below 1, not \(ErrorText.quote(text))")
        }
        return value
    }

    /// One of `choices` (compared lower-cased); the first is the default.
    func choice(_ name: String, among choices: [String]) throws -> String {
        guard let text = values[name] else { return choices[0] }
        let value = text.trimmingSpaces.lowercased()
        guard choices.contains(value) else {
            throw WorkbenchError("--\(name) must be one of \(choices.joined(separator: ", ")), not \(ErrorText.quote(text))")
        }
        return value
    }
}
