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
            if result.pixelRules.needsImageType {
                counts += "; ratio by image type (content type, else URL extension; other: the other= ratio, for types without their own): \(sources.ratioTypesDescription)"
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
            return "pixel costs by rule, in requests: \(counts) — \(covered) (recorded: the cost an app recording states, decoded_cost or bytes_per_row × height; dimensions: the trace's; url: image-CDN URL conventions, a size decoding below the encoded bytes rejected for the next rule; ratio: --decoded-ratio, per image type where given; encoded: the size itself); `bench price TRACE` lists every object's price"
        }
    }
}
