import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// The log-spaced bins libCacheSim's traceAnalyzer uses for reuse time in requests
/// (traceAnalyzer/reuse.h `log_base_ = 1.5`, reuse.cpp `(int)(log(v) / log(1.5))`):
/// bin i holds values in [1.5^i, 1.5^(i+1)). Copied so histograms compare cell by cell.
public enum LogBins {
    public static let base = 1.5

    /// The bin of a value ≥ 1. O(1).
    public static func bin(_ value: Int) -> Int { Int(log(Double(value)) / log(base)) }

    /// The smallest integer in bin `index` and the smallest integer of the next bin.
    public static func bounds(_ index: Int) -> (lower: Int, upperExclusive: Int) {
        (Int(pow(base, Double(index)).rounded(.up)), Int(pow(base, Double(index + 1)).rounded(.up)))
    }
}
