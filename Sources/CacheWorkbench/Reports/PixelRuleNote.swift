import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
extension TableReport {
    /// The table's pixel-pricing note (issue 21 §3: the rule counts were only in the CSV's
    /// `cost_from_*` columns): one line per distinct set of counts, naming the rows it covers —
    /// a sweep's rows price the same trace, so usually one line, not one per row. O(rows).
    static func pixelRuleNotes(_ results: [RunResult]) -> [String] {
        var distinct: [String] = []
        var rowsOf: [String: [String]] = [:]
        let priced = results.filter { ($0.tally.costSources?.total ?? 0) > 0 }
        for result in priced {
            let sources = result.tally.costSources!
            var counts = sources.description + (sources.urlRejected > 0 ? "; URL sizes rejected for decoding below the encoded bytes: \(sources.urlRejected)" : "")
            if result.pixelRules.hasTypeRatios {
                counts += "; ratio by image type (content type, else URL extension; other: the other= ratio, for types without their own): \(sources.ratioTypesDescription)"
            }
            if sources[.estimate] > 0 {
                counts += "; estimate by format: \(sources.estimateTypesDescription), at its \(result.pixelRules.estimate.map { $0 == .central ? "central value" : "\($0.rawValue) end" } ?? "")"
            }
            if result.pixelRules.pointScale != 1 {
                counts += "; URL sizes read as points × \(result.pixelRules.pointScale) (--url-units points, the device's scale; a URL with @Nx or dpr gives pixels)"
            }
            if rowsOf[counts] == nil { distinct.append(counts) }
            rowsOf[counts, default: []].append("\(TableReport.rowLabel(result))")
        }
        return distinct.map { counts in
            let rows = rowsOf[counts]!
            let covered = distinct.count == 1 ? "every pixel-cost row (\(rows.count))" : rows.joined(separator: ", ")
            return "pixel costs by rule, in requests: \(counts) — \(covered) (recorded: the cost an app recording states, decoded_cost or bytes_per_row × height; dimensions: the trace's; url: image-CDN URL conventions, a size decoding below the encoded bytes rejected for the next rule; ratio: --decoded-ratio, per image type where given; estimate: the decoded size from the encoded size at the format's median bits per pixel, HTTP Archive 2024; encoded: the size itself); `bench price TRACE` lists every object's price"
        }
    }

    /// Rows whose pixel prices rest mostly on the decoded-size estimate (more than half of
    /// the priced requests), one sentence each, on stderr and under the table (issue 43 §2).
    /// The range is exact by scale invariance only when every priced request was estimated
    /// (one common factor) and the backend decides by cost ÷ capacity alone
    /// (`DecodedSizeEstimate.scaleFreeBackends`, each tested); otherwise the sentence says to
    /// replay at both ends. O(rows).
    static func estimateNotes(_ results: [RunResult]) -> [String] {
        results.compactMap { result in
            guard let sources = result.tally.costSources, sources.restsMostlyOnEstimates, let point = result.pixelRules.estimate else { return nil }
            let priced = point == .central ? "at its central value" : "at its \(point.rawValue) end (--estimate \(point.rawValue))"
            let exact = sources[.estimate] == sources.total && DecodedSizeEstimate.scaleFreeBackends.contains(result.backend)
                ? "every priced request was estimated, so this row's hits at capacity C are exactly those at 2C under prices twice as high and at C/2 under prices half as high"
                : "replay with --estimate low and --estimate high for the range (" + (sources[.estimate] == sources.total ? "\(result.backend) does not decide by cost ÷ capacity alone" : "not every priced request was estimated") + ")"
            return "\(TableReport.rowLabel(result)): this answer rests mostly on estimates — \(sources[.estimate]) of \(sources.total) requests were priced by the decoded-size estimate (encoded bytes at the format's median bits per pixel, HTTP Archive 2024) \(priced); their decoded sizes could be half to twice these, and so could a capacity sized from this row: \(exact); `bench price TRACE` lists each price"
        }
    }
}
