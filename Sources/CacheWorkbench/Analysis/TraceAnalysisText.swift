import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// `bench analyze`'s human summary. Ratios with four decimals, as traceAnalyzer prints them,
/// so the two outputs can be read side by side.
extension TraceAnalysis {
    public func text(label: String) -> String {
        func four(_ value: Double) -> String { String(format: "%.4f", value) }
        var lines = ["trace \(label)"]
        lines.append("requests              \(requests)")
        lines.append("objects               \(objects)")
        lines.append("bytes requested       \(requestBytes) (objects: \(objectBytes))")
        lines.append("time span             \(endTime) s")
        if timeBackwardsRows > 0 {
            lines.append("time order            goes backwards at \(timeBackwardsRows) of \(requests) requests (earlier than the one before); span = latest - earliest time, windows from the earliest, \(reuseTimesClamped) reuse times below 0 counted as 0")
        }
        lines.append("compulsory miss ratio \(four(compulsoryMissRatio)) of requests, \(four(byteCompulsoryMissRatio)) of bytes")
        let share = objects == 0 ? 0 : Double(oneHitWonders) / Double(objects)
        lines.append("one-hit wonders       \(oneHitWonders) objects (\(four(share)) of objects)")
        lines.append("X-hit (objects)       " + xHit.enumerated().map { "\($0.offset + 1):\($0.element)" }.joined(separator: " "))
        lines.append("most popular (reqs)   " + mostPopular.map(String.init).joined(separator: " "))
        switch zipf {
        case .success(let fit): lines.append("Zipf                  alpha \(four(fit.alpha)), R² \(four(fit.rSquared)) (log-log least squares over all \(objects) ranks)")
        case .failure(let refusal): lines.append("Zipf                  none: \(refusal.reason)")
        }
        let complete = windows.filter(\.complete)
        if let rates = rateRange(complete.map(\.requests)), let objectRates = rateRange(complete.map(\.objects)) {
            lines.append("request rate          min \(four(rates.min)), max \(four(rates.max)) req/s over \(complete.count) complete \(window) s windows")
            lines.append("object rate           min \(four(objectRates.min)), max \(four(objectRates.max)) obj/s")
        } else {
            lines.append("request rate          none: the trace is shorter than one \(window) s window")
        }
        let reRequests = requests - objects
        lines.append("re-requests           \(reRequests); reuse histograms in --csv/--json")
        lines.append("size changes          \(objectsWithSizeChange) objects, \(requestsWithSizeChange) requests with a size unlike the previous one")
        if popularityDecay.rows.isEmpty {
            lines.append("popularity decay      none: no \(window) s window ended after the \(popularityDecay.warmup) s warm-up (--decay-warmup)")
        } else {
            lines.append("popularity decay      \(popularityDecay.rows.count) windows after a \(popularityDecay.warmup) s warm-up; popularity_decay in --csv/--json")
        }
        lines.append("scans                 \(scans.runs) runs of >= \(scans.minimumLength) requests to new objects (\(scans.requestsInRuns) requests; longest run \(scans.longestRun))")
        return lines.joined(separator: "\n") + "\n"
    }

    func rateRange(_ counts: [Int]) -> (min: Double, max: Double)? {
        guard let low = counts.min(), let high = counts.max() else { return nil }
        return (Double(low) / Double(window), Double(high) / Double(window))
    }
}
