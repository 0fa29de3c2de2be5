import WorkbenchCore
import WorkbenchTraces
/// The text of a two-tier cache's name and options (`TieredCache`), parsed apart from the
/// cache so the fuzzer can reach it: `tier:MEMORY+DISK`, `disk-capacity`, `on-warning`.
///
/// Complexity: O(length).
package enum TierOptionText {
    /// `tier:MEMORY+DISK` → the two backend names (not yet looked up).
    package static func parts(_ name: String) throws -> (memory: String, disk: String) {
        let parts = name.dropFirst(5).split(separator: "+", omittingEmptySubsequences: false)
        guard name.lowercased().hasPrefix("tier:"), parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw WorkbenchError("backend '\(name)': a tier is tier:MEMORY+DISK, e.g. tier:autopurge+files")
        }
        return (String(parts[0]), String(parts[1]))
    }

    /// A size (`150MB`) or `unlimited`: the largest capacity the workbench takes, 1EiB, so
    /// `1EiB` and `unlimited` are the same setting (and shown as `unlimited`).
    static func diskCapacity(_ text: String) throws -> Int {
        if text.lowercased() == "unlimited" { return SizeLimits.largestCapacity }
        guard let bytes = Capacity.bytes(parsing: text), bytes > 0, bytes <= SizeLimits.largestCapacity else {
            throw WorkbenchError("disk-capacity must be a size above 0 and at most 1EiB (2^60 bytes), e.g. 150MB or 1GiB, or unlimited (1EiB), not \(ErrorText.quote(text))")
        }
        return bytes
    }
}

/// What a memory warning does to the memory tier.
public enum TierWarningResponse: Equatable, Sendable, CustomStringConvertible {
    case clear
    case trim(Double)
    case flushToDisk
    case none

    init(parsing text: String) throws {
        switch text.lowercased() {
        case "clear": self = .clear
        case "flush-to-disk": self = .flushToDisk
        case "none": self = .none
        case let other where other.hasPrefix("trim:"):
            guard let share = Double(other.dropFirst(5)), share >= 0, share < 1 else {
                throw WorkbenchError("on-warning trim:F takes the share of the memory capacity to keep, from 0 up to (not including) 1, not '\(text)'")
            }
            self = .trim(share)
        default: throw WorkbenchError("on-warning must be clear, trim:F (e.g. trim:0.5), flush-to-disk or none, not '\(text)'")
        }
    }

    public var description: String {
        switch self {
        case .clear: "clear"
        case .trim(let share): "trim:\(share)"
        case .flushToDisk: "flush-to-disk"
        case .none: "none"
        }
    }
}
