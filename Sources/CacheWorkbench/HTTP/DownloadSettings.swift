import WorkbenchCore
import WorkbenchTraces
import WorkbenchMetrics
import Foundation

/// How long an origin download takes when the trace does not say (`--origin-latency`):
/// a fixed number of seconds, or lognormal around a median (seeded, so replays repeat).
public enum OriginLatency: Sendable, Equatable, CustomStringConvertible {
    case fixed(Double)
    case lognormal(median: Double, sigma: Double)

    /// `0.2` (seconds), `200ms`, or `lognormal:MEDIAN,SIGMA` (median in seconds or ms).
    public init(parsing text: String) throws {
        let trimmed = text.trimmingSpaces.lowercased()
        func seconds(_ part: Substring) -> Double? {
            let value = part.hasSuffix("ms") ? Double(part.dropLast(2)).map { $0 / 1000 } : Double(part)
            guard let value, value.isFinite, value >= 0, value <= 3_600 else { return nil }
            return value
        }
        if trimmed.hasPrefix("lognormal:") {
            let parts = trimmed.dropFirst(10).split(separator: ",", omittingEmptySubsequences: false)
            if parts.count == 2, let median = seconds(parts[0]), median > 0, let sigma = Double(parts[1]), sigma >= 0, sigma <= 5 {
                self = .lognormal(median: median, sigma: sigma)
                return
            }
        } else if let value = seconds(Substring(trimmed)) {
            self = .fixed(value)
            return
        }
        throw WorkbenchError("--origin-latency takes seconds (0.2), milliseconds (200ms) up to an hour, or lognormal:MEDIAN,SIGMA (lognormal:150ms,0.5; sigma 0 to 5), not \(ErrorText.quote(text))")
    }

    package func sample(_ random: inout SeededRandom) -> Double {
        switch self {
        case .fixed(let seconds): seconds
        case .lognormal(let median, let sigma): min(3_600, median * exp(sigma * random.nextNormal()))
        }
    }

    public var description: String {
        switch self {
        case .fixed(let seconds): "\(seconds)"
        case .lognormal(let median, let sigma): "lognormal:\(median),\(sigma)"
        }
    }
}

/// The download-time model's options (`--coalesce`, `--max-active-downloads`,
/// `--origin-latency`).
public struct DownloadSettings: Sendable, Equatable {
    public var coalesce = false
    /// At most this many downloads at once; 0 = no limit.
    public var maxActive = 0
    public var latency: OriginLatency = .fixed(0.1)

    public init() {}

    var description: String {
        "coalesce=\(coalesce ? "on" : "off");max-active-downloads=\(maxActive == 0 ? "unlimited" : String(maxActive));origin-latency=\(latency)"
    }
}
