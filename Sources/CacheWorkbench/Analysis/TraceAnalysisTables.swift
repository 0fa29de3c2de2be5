import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// Every figure and histogram of `TraceAnalysis` as named tables (header + rows), the one
/// source of both `--csv DIR` (one file per table) and `--json FILE`. Columns are documented
/// in docs/analyze.md.
extension TraceAnalysis {
    public struct Table: Sendable {
        public var name: String
        public var header: [String]
        public var rows: [[String]]
    }

    public func tables(trace: String) -> [Table] {
        func number(_ value: Double) -> String { value.isFinite ? String(value) : "" }
        var summary: [[String]] = [
            ["trace", trace], ["requests", "\(requests)"], ["objects", "\(objects)"],
            ["request_bytes", "\(requestBytes)"], ["object_bytes", "\(objectBytes)"],
            ["time_span_seconds", "\(endTime)"], ["time_backwards_rows", "\(timeBackwardsRows)"],
            ["reuse_times_clamped", "\(reuseTimesClamped)"], ["window_seconds", "\(window)"],
            ["compulsory_miss_ratio", number(compulsoryMissRatio)],
            ["byte_compulsory_miss_ratio", number(byteCompulsoryMissRatio)],
            ["one_hit_wonders", "\(oneHitWonders)"],
            ["objects_with_size_change", "\(objectsWithSizeChange)"],
            ["requests_with_size_change", "\(requestsWithSizeChange)"],
            ["decay_warmup_seconds", "\(popularityDecay.warmup)"], ["decay_rows", "\(popularityDecay.rows.count)"],
            ["scan_min_length", "\(scans.minimumLength)"], ["scan_runs", "\(scans.runs)"],
            ["scan_requests", "\(scans.requestsInRuns)"], ["longest_new_object_run", "\(scans.longestRun)"],
        ]
        switch zipf {
        case .success(let fit): summary += [["zipf_alpha", number(fit.alpha)], ["zipf_r2", number(fit.rSquared)], ["zipf_note", ""]]
        case .failure(let refusal): summary += [["zipf_alpha", ""], ["zipf_r2", ""], ["zipf_note", refusal.reason]]
        }
        func logRows(_ histogram: [Int: Int]) -> [[String]] {
            histogram.keys.sorted().map { bin in
                if bin < 0 { return ["-1", "0", "1", "\(histogram[bin]!)"] }
                let bounds = LogBins.bounds(bin)
                return ["\(bin)", "\(bounds.lower)", "\(bounds.upperExclusive)", "\(histogram[bin]!)"]
            }
        }
        return [
            Table(name: "summary", header: ["figure", "value"], rows: summary),
            Table(name: "xhit", header: ["times_requested", "objects"], rows: xHit.enumerated().map { ["\($0.offset + 1)", "\($0.element)"] }),
            Table(name: "popular", header: ["rank", "requests"], rows: mostPopular.enumerated().map { ["\($0.offset + 1)", "\($0.element)"] }),
            Table(name: "frequency", header: ["requests_per_object", "objects"],
                  rows: frequencyCounts.keys.sorted(by: >).map { ["\($0)", "\(frequencyCounts[$0]!)"] }),
            Table(name: "reuse_time", header: ["bin", "from_seconds", "to_seconds", "requests"],
                  rows: reuseSeconds.keys.sorted().map { ["\($0)", "\($0 * Self.rtimeGranularity)", "\(($0 + 1) * Self.rtimeGranularity)", "\(reuseSeconds[$0]!)"] }),
            Table(name: "reuse_requests", header: ["bin", "from_requests", "to_requests", "requests"], rows: logRows(reuseRequests)),
            Table(name: "reuse_distance", header: ["bin", "from_objects", "to_objects", "requests"], rows: logRows(reuseDistance)),
            Table(name: "size", header: ["size_bytes", "requests", "objects"],
                  rows: sizeRequests.keys.sorted().map { ["\($0)", "\(sizeRequests[$0]!)", "\(sizeObjects[$0] ?? 0)"] }),
            Table(name: "rate", header: ["window", "start_seconds", "requests", "bytes", "objects", "new_objects", "complete"],
                  rows: windows.enumerated().map { index, window in
                      ["\(index)", "\(window.start)", "\(window.requests)", "\(window.bytes)", "\(window.objects)", "\(window.newObjects)", window.complete ? "1" : "0"]
                  }),
            // traceAnalyzer's `.popularityDecay_w<window>_obj`, one cell a row: `row` is the window
            // that ended (0 = the first after the warm-up), `created_window` the objects' first.
            Table(name: "popularity_decay", header: ["row", "created_window", "objects"],
                  rows: popularityDecay.rows.enumerated().flatMap { row, cells in
                      cells.enumerated().map { ["\(row)", "\($0.offset)", "\($0.element)"] }
                  }),
        ]
    }

    public func csvFiles(trace: String) -> [(name: String, text: String)] {
        tables(trace: trace).map { table in
            let lines = [table.header] + table.rows
            return (table.name + ".csv", lines.map { $0.map(CSVReport.escape).joined(separator: ",") }.joined(separator: "\n") + "\n")
        }
    }

    /// One JSON object: the summary's figures as members (numbers where they are numbers),
    /// and every other table as an array of objects keyed by its columns.
    public func json(trace: String) -> String {
        func value(_ text: String) -> String {
            if Int(text) != nil || (Double(text) != nil && !text.isEmpty && text != "nan" && text != "inf") { return text }
            return text.isEmpty ? "null" : JSONReport.string(text)
        }
        let all = tables(trace: trace)
        var members = all[0].rows.map { "\(JSONReport.string($0[0])): \($0[0] == "trace" || $0[0] == "zipf_note" ? ($0[1].isEmpty ? "null" : JSONReport.string($0[1])) : value($0[1]))" }
        for table in all.dropFirst() {
            let rows = table.rows.map { row in "{" + zip(table.header, row).map { "\(JSONReport.string($0)): \(value($1))" }.joined(separator: ", ") + "}" }
            members.append("\(JSONReport.string(table.name)): [" + rows.joined(separator: ", ") + "]")
        }
        return "{\n  " + members.joined(separator: ",\n  ") + "\n}\n"
    }
}
