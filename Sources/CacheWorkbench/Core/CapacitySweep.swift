import Foundation

/// Capacities for a sweep: a comma-separated list as `bench run` takes, or a range `A..B`
/// (both bytes or both shares of the working set) split into `points` capacities, spaced
/// evenly on a log scale (the default: miss-ratio curves are read on log axes) or linearly.
public enum CapacitySweep {
    public enum Spacing: String, Sendable, CaseIterable {
        case log, linear
    }

    public static func capacities(parsing text: String, points: Int, spacing: Spacing) throws(WorkbenchError) -> [Capacity] {
        guard let range = text.range(of: "..") else { return try Capacity.list(parsing: text) }
        guard (2...10_000).contains(points) else { throw WorkbenchError("--points must be from 2 to 10000 for a range, not \(points)") }
        let low = try Capacity(parsing: String(text[..<range.lowerBound]))
        let high = try Capacity(parsing: String(text[range.upperBound...]))
        func values(_ a: Double, _ b: Double) throws(WorkbenchError) -> [Double] {
            guard a < b else { throw WorkbenchError("capacity range '\(text)': the first end must be below the second") }
            return (0..<points).map { step in
                let t = Double(step) / Double(points - 1)
                return spacing == .log ? a * pow(b / a, t) : a + (b - a) * t
            }
        }
        var result: [Capacity]
        switch (low, high) {
        case (.bytes(let a), .bytes(let b)):
            result = try values(Double(a), Double(b)).map { .bytes(max(1, Int($0.rounded()))) }
        case (.share(let a), .share(let b)):
            result = try values(a, b).map { .share(min(1, $0)) }
        default:
            throw WorkbenchError("capacity range '\(text)': both ends must be sizes (64MiB) or both shares of the working set (10%)")
        }
        // Rounding can merge neighbours on a narrow byte range: each capacity once.
        var seen: [Capacity] = []
        for capacity in result where !seen.contains(capacity) { seen.append(capacity) }
        return seen
    }
}
