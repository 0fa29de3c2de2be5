/// The replay options that arrive as text (`--warmup`, `--decoded-ratio`,
/// `--infer-dimensions`, `bench mrc --sampling-rate`), parsed with their errors worded once. Fuzzed with the other
/// option parsers (`scripts/fuzz options`).
public enum ReplayOptionText {
    /// `--warmup`: a request count (`100000`) or a share of the trace below 1 (`0.2`, `20%`).
    public static func warmup(_ text: String) throws -> (count: Int?, share: Double?) {
        let text = text.trimmingSpaces
        if let count = Int(text), count >= 0 { return (count, nil) }
        let share = text.hasSuffix("%") ? Double(text.dropLast()).map { $0 / 100 } : Double(text)
        guard let share, share >= 0, share < 1 else {
            throw WorkbenchError("--warmup takes a request count (100000) or a share of the trace below 1 (0.2 or 20%), not \(ErrorText.quote(text))")
        }
        return (nil, share)
    }

    /// `--decoded-ratio`: decoded bytes per encoded byte, above 0 and at most 1000.
    public static func decodedRatio(_ text: String) throws -> Double {
        guard let ratio = Double(text), ratio > 0, ratio <= 1000 else {
            throw WorkbenchError("--decoded-ratio must be a number above 0 and at most 1000 (decoded bytes per encoded byte), not \(ErrorText.quote(text))")
        }
        return ratio
    }

    /// `--infer-dimensions`: `url` (true) or `off` (false).
    public static func inferDimensions(_ text: String) throws -> Bool {
        switch text.lowercased() {
        case "url": return true
        case "off": return false
        default: throw WorkbenchError("--infer-dimensions must be url or off, not \(ErrorText.quote(text))")
        }
    }

    /// `--sampling-rate` (SHARDS): a fraction from 2^-24 (one hash bucket) to 1, or a percentage.
    public static func samplingRate(_ text: String) throws -> Double {
        let trimmed = text.trimmingSpaces
        let rate = trimmed.hasSuffix("%") ? Double(trimmed.dropLast()).map { $0 / 100 } : Double(trimmed)
        guard let rate, rate >= 1.0 / Double(1 << 24), rate <= 1 else {
            throw WorkbenchError("--sampling-rate must be a fraction from 2^-24 to 1 (0.01 or 1%), not \(ErrorText.quote(text))")
        }
        return rate
    }
}
