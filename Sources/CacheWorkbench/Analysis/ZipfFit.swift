import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// Zipf skew of a trace fitted as libCacheSim's traceAnalyzer fits it
/// (traceAnalyzer/popularity.cpp `Popularity::run`, utils/include/linReg.h `linreg`):
/// sort object frequencies descending, least-squares fit log(freq) = -α·log(rank) + c over
/// every rank, R² = the squared correlation coefficient. Like traceAnalyzer it refuses fewer
/// than 200 objects (the fit says why instead of printing a number).
public struct ZipfFit: Sendable, Equatable {
    public var alpha: Double
    public var rSquared: Double

    /// Frequencies in any order. Returns the fit, or the reason there is none. O(n log n).
    public static func fit(frequencies: [Int]) -> Result<ZipfFit, ZipfFitRefusal> {
        let sorted = frequencies.sorted(by: >)
        // popularity.cpp: `if (obj_map.size() < 200)` skips the computation.
        guard sorted.count >= 200 else { return .failure(.tooFewObjects(sorted.count)) }
        var sumX = 0.0, sumX2 = 0.0, sumXY = 0.0, sumY = 0.0, sumY2 = 0.0
        for (index, frequency) in sorted.enumerated() {
            let x = log(Double(index + 1)), y = log(Double(frequency))
            sumX += x; sumX2 += x * x; sumXY += x * y; sumY += y; sumY2 += y * y
        }
        let n = Double(sorted.count)
        let denominator = n * sumX2 - sumX * sumX
        // linReg.h treats |denominator| <= 1e-8 as singular; with >= 200 ranks it cannot happen, kept as traceAnalyzer has it.
        guard abs(denominator) > 1e-8 else { return .failure(.singular) }
        let slope = (n * sumXY - sumX * sumY) / denominator
        let r = (sumXY - sumX * sumY / n) / ((sumX2 - sumX * sumX / n) * (sumY2 - sumY * sumY / n)).squareRoot()
        return .success(ZipfFit(alpha: -slope, rSquared: r.isFinite ? r * r : 0))
    }
}

public enum ZipfFitRefusal: Error, Equatable, Sendable {
    case tooFewObjects(Int)
    case singular

    public var reason: String {
        switch self {
        case .tooFewObjects(let count): "too few objects (\(count) < 200) to fit, as traceAnalyzer refuses"
        case .singular: "singular regression (all ranks equal)"
        }
    }
}
