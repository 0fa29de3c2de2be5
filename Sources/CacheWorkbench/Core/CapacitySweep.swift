import Foundation

/// Capacities for a sweep: a comma-separated list as `bench run` takes, or a range `A..B`
/// (both bytes or both shares of the working set) split into `points` capacities, spaced
/// evenly on a log scale (the default: miss-ratio curves are read on log axes) or linearly.
public enum CapacitySweep {
    public enum Spacing: String, Sendable, CaseIterable {
        case log, linear
    }

    /// `device` resolves `ram:P%` ends and items (`--device`).
    public static func capacities(parsing text: String, points: Int, spacing: Spacing, device: DeviceClass? = nil) throws(WorkbenchError) -> [Capacity] {
        guard let range = text.range(of: "..") else { return try Capacity.list(parsing: text, device: device) }
        guard (2...10_000).contains(points) else { throw WorkbenchError("--points must be from 2 to 10000 for a range, not \(points)") }
        let low = try Capacity(parsing: String(text[..<range.lowerBound]), device: device)
        let high = try Capacity(parsing: String(text[range.upperBound...]), device: device)
        func values(_ a: Double, _ b: Double) throws(WorkbenchError) -> [Double] {
            guard a < b else { throw WorkbenchError("capacity range '\(text)': the first end must be below the second") }
            return (0..<points).map { step in
                let t = Double(step) / Double(points - 1)
                return spacing == .log ? a * pow(b / a, t) : a + (b - a) * t
            }
        }
        // Exactly `points` capacities, even where rounding to whole bytes makes neighbours
        // equal: shares can only be resolved with the trace, so both kinds keep every point
        // and the sweep says which repeat (`SweepRun.repeatedCapacitiesNote`).
        switch (low, high) {
        case (.bytes(let a), .bytes(let b)):
            return try values(Double(a), Double(b)).map { .bytes(max(1, Int($0.rounded()))) }
        case (.share(let a), .share(let b)):
            return try values(a, b).map { .share(min(1, $0)) }
        case (.deviceRAM(let a, let device), .deviceRAM(let b, _)):
            return try values(a, b).map { .deviceRAM(percent: min(100, $0), device) }
        default:
            throw WorkbenchError("capacity range '\(text)': both ends must be sizes (64MiB), both shares of the working set (10%) or both shares of the device's RAM (ram:5%)")
        }
    }
}
