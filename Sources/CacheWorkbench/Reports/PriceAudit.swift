import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// `bench price`: every unique object of a trace with the pixel price a replay under
/// `--cost pixels` gives it — the rule, the dimensions, the encoded and the decoded cost,
/// and any URL inference rejected for being below the encoded size — so that every price
/// can be audited, plus the rule counts over requests (equal to a replay's `cost_from_*`
/// columns: the same `PixelCostRules` prices both, and zero-size requests are left out of
/// both). The CLI only fills `Arguments`.
///
/// Complexity: one pass, O(requests × key length); memory O(unique keys).
public struct PriceAudit {
    public struct Arguments {
        public var trace: String
        public var format: String?
        public var skipBad = false
        public var formatOptions: [String: String] = [:]
        /// `--cost`: only `pixels` has rules to audit; `auto` (the shared option's default,
        /// pixels for memory backends) audits pixels too.
        public var cost = "pixels"
        public var inferDimensions = "url"
        public var decodedRatio: String?
        /// `--estimate` (nil: central).
        public var estimate: String?
        /// `--url-units` (pixels or points) and `--device` (its scale for points).
        public var urlUnits: String?
        public var device: String?
        public var csv: String?

        public init(trace: String) { self.trace = trace }
    }

    /// One unique object: its first (non-zero-size) request's price.
    public struct Entry {
        public var key: String
        public var requests = 1
        public var encodedSize: Int
        public var price: PixelCostRules.Price
        /// Later requests of the key priced differently (their size or dimensions changed).
        public var priceChanged = false
    }

    public struct Outcome {
        public var entries: [Entry]
        /// Requests by the rule that priced them (what a replay's `cost_from_*` count).
        public var requestsByRule = CostSourceCounts()
        /// Requests whose URL inference was rejected (decoded below encoded).
        public var rejectedRequests = 0
        public var zeroSizeRequests = 0
        public var skippedRows = 0
        public var rules: PixelCostRules
    }

    private let arguments: Arguments
    private let trace: TraceFile
    private let rules: PixelCostRules

    public init(_ arguments: Arguments) throws {
        guard arguments.cost == "pixels" || arguments.cost == "auto" else {
            throw WorkbenchError("--cost \(ErrorText.quote(arguments.cost)): bench price audits pixel prices, so --cost must be pixels or auto (under encoded cost every object costs its size)")
        }
        rules = try ReplayOptionText.pixelRules(
            inferDimensions: arguments.inferDimensions, decodedRatio: arguments.decodedRatio, urlUnits: arguments.urlUnits,
            device: ReplayOptionText.device(arguments.device), estimate: arguments.estimate)
        trace = try TraceFile(path: arguments.trace, format: arguments.format.map(TraceFormat.named), skipBadRows: arguments.skipBad,
                              formatOptions: arguments.formatOptions)
        if let csv = arguments.csv { try OutputFile.check(outputs: [("--csv", csv)], inputs: [arguments.trace]) }
        self.arguments = arguments
    }

    /// Prices every request; the table text (and the CSV, when asked) describe the outcome.
    public func execute() throws -> (outcome: Outcome, table: String) {
        let source = try trace.open(keepKeyNames: true)
        var outcome = Outcome(entries: [], rules: rules)
        var indexOfKey: [String: Int] = [:]
        while let chunk = try source.nextChunk() {
            for request in chunk {
                // A replay stores nothing for a zero-size request and prices none (rule 4).
                guard request.size > 0 else {
                    outcome.zeroSizeRequests += 1
                    continue
                }
                let price = rules.price(of: request)
                outcome.requestsByRule.count(price)
                if price.rejected != nil { outcome.rejectedRequests += 1 }
                let key = request.keyText
                if let index = indexOfKey[key] {
                    outcome.entries[index].requests += 1
                    if price.cost != outcome.entries[index].price.cost || price.source != outcome.entries[index].price.source {
                        outcome.entries[index].priceChanged = true
                    }
                } else {
                    indexOfKey[key] = outcome.entries.count
                    outcome.entries.append(Entry(key: key, encodedSize: request.size, price: price))
                }
            }
        }
        outcome.skippedRows = source.skippedRows
        if let csv = arguments.csv { try OutputFile.write(Self.csvText(outcome), to: csv) }
        return (outcome, Self.tableText(outcome, trace: arguments.trace))
    }

    /// `url:thumbor`, `estimate:jpeg`, `dimensions`, `encoded`: the rule as the listing names it.
    static func ruleName(_ price: PixelCostRules.Price) -> String {
        price.urlRule.map { "url:\($0.rawValue)" } ?? price.ratioType.map { "ratio:\($0.rawValue)" }
            ?? price.estimateType.map { "estimate:\($0.rawValue)" } ?? price.source.name
    }

    /// `estimate 1000–4000 bytes; URL width 300 (query-width): about 222 px tall at this price`:
    /// the estimate's range and any width the URL states, for the listing.
    static func estimateText(_ price: PixelCostRules.Price) -> String {
        guard let range = price.estimateRange else { return "" }
        var text = "estimate \(range.low)–\(range.high) bytes"
        if let stated = price.statedWidth {
            // pixels = cost ÷ 4; height = pixels ÷ width, at least 1 (a width is at least one row).
            let height = max(1, Int((Double(price.cost) / 4 / Double(stated.width)).rounded()))
            text += "; URL width \(stated.width) (\(stated.rule.rawValue)), no height: about \(height) px tall at this price"
        }
        return text
    }

    static func rejectedText(_ price: PixelCostRules.Price, encodedSize: Int) -> String {
        guard let rejected = price.rejected else { return "" }
        let decoded = SizeLimits.pixelCost(width: rejected.width, height: rejected.height) ?? 0
        return "rejected \(rejected.rule.rawValue) \(rejected.width)x\(rejected.height): decoded \(decoded) < encoded \(encodedSize)"
    }

    static func tableText(_ outcome: Outcome, trace: String) -> String {
        var lines = ["rule".padding(18) + "width".padding(7, left: true) + "height".padding(7, left: true) + "encoded".padding(12, left: true)
                     + "decoded".padding(12, left: true) + "requests".padding(10, left: true) + "  key"]
        for entry in outcome.entries {
            let price = entry.price
            let dimensions = price.width > 0 ? (String(price.width), String(price.height)) : ("-", "-")
            var line = ruleName(price).padding(18) + dimensions.0.padding(7, left: true) + dimensions.1.padding(7, left: true)
                + String(entry.encodedSize).padding(12, left: true) + String(price.cost).padding(12, left: true)
                + String(entry.requests).padding(10, left: true) + "  " + ErrorText.escapingControls(entry.key)
            if price.rejected != nil { line += "  (" + rejectedText(price, encodedSize: entry.encodedSize) + ")" }
            if price.estimateRange != nil { line += "  (" + estimateText(price) + ")" }
            lines.append(line)
        }
        lines.append("")
        lines += summaryLines(outcome, trace: trace)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The counts under the listing: objects and requests by rule, rejections, what was left out.
    static func summaryLines(_ outcome: Outcome, trace: String) -> [String] {
        var objectsByRule: [String: Int] = [:]
        var encodedTotal: ByteTotal = 0, decodedTotal: ByteTotal = 0
        // The decoded total with every estimated object at its range's low and high end.
        var lowTotal: ByteTotal = 0, highTotal: ByteTotal = 0
        for entry in outcome.entries {
            objectsByRule[ruleName(entry.price), default: 0] += 1
            encodedTotal += ByteTotal(entry.encodedSize)
            decodedTotal += ByteTotal(entry.price.cost)
            lowTotal += ByteTotal(entry.price.estimateRange?.low ?? entry.price.cost)
            highTotal += ByteTotal(entry.price.estimateRange?.high ?? entry.price.cost)
        }
        let requests = outcome.requestsByRule.total
        var lines = ["\(ErrorText.escapingControls(trace)): \(outcome.entries.count) unique objects in \(requests) requests, priced under --cost pixels (\(outcome.rules.description))"]
        // A switch with its types given: as nested `?:` over `map`s and `+` this one
        // expression took the type checker 36 s, most of the Reports module's compile.
        let order: [String] = PixelCostRules.Source.allCases.flatMap { (source: PixelCostRules.Source) -> [String] in
            switch source {
            case .url: return ImageURLDimensions.Rule.allCases.map { "url:\($0.rawValue)" }
            case .ratio: return ImageType.allCases.map { "ratio:\($0.rawValue)" } + [source.name]
            case .estimate: return ImageType.allCases.map { "estimate:\($0.rawValue)" }
            default: return [source.name]
            }
        }
        let byRule = order.filter { objectsByRule[$0] != nil }.map { "\($0) \(objectsByRule[$0]!)" }
        lines.append("objects by rule: " + (byRule.isEmpty ? "none" : byRule.joined(separator: ", ")))
        lines.append("requests by rule (a replay's cost_from_* columns): \(outcome.requestsByRule.description.isEmpty ? "none" : outcome.requestsByRule.description)")
        if outcome.rules.hasTypeRatios {
            lines.append("ratio requests by image type (content type, else URL extension; other: the other= ratio, for types without their own): \(outcome.requestsByRule.ratioTypesDescription)")
        }
        lines.append("first-request totals: encoded \(encodedTotal) bytes, decoded \(decodedTotal) bytes (the working set `%` capacities are shares of under --cost pixels)")
        lines += estimateLines(outcome, low: lowTotal, high: highTotal)
        let rejectedObjects = outcome.entries.filter { $0.price.rejected != nil }.count
        lines.append(rejectedObjects == 0
            ? "URL inferences rejected (decoded below encoded): none"
            : "URL inferences rejected (decoded below encoded, so the size in the URL is not the image's): objects \(rejectedObjects), requests \(outcome.rejectedRequests); each was priced by the next rule")
        let changed = outcome.entries.filter(\.priceChanged).count
        if changed > 0 { lines.append("\(changed) keys are priced differently by later requests (size or dimensions changed); the listing shows each key's first price") }
        if outcome.zeroSizeRequests > 0 { lines.append("\(outcome.zeroSizeRequests) requests of size 0 are left out (a replay stores and prices nothing for them)") }
        if outcome.skippedRows > 0 { lines.append("\(outcome.skippedRows) malformed rows skipped (--skip-bad)") }
        return lines
    }

    /// What the estimate priced, at which point, its range over the totals, any width-only
    /// URLs, and — when it priced most requests — that the answer rests mostly on it.
    static func estimateLines(_ outcome: Outcome, low: ByteTotal, high: ByteTotal) -> [String] {
        let estimated = outcome.entries.filter { $0.price.source == .estimate }
        let counts = outcome.requestsByRule
        var lines: [String] = []
        if let point = outcome.rules.estimate {
            let medians = ImageType.allCases.compactMap { type in DecodedSizeEstimate.medianBitsPerPixel(type).map { "\(type.rawValue) \($0)" } }
            lines.append("estimate (decoded size = encoded bytes × 8 ÷ the format's median bits per pixel × 4: \(medians.joined(separator: ", ")); "
                         + "HTTP Archive, Web Almanac 2024; HEIC and unknown formats not estimated): objects \(estimated.count), requests \(counts[.estimate]) "
                         + "(\(counts.estimateTypesDescription)), priced at its \(point == .central ? "central value" : "\(point.rawValue) end")"
                         + (estimated.isEmpty ? "" : "; over its range (half to twice the central decoded size) the first-request decoded total is \(low) to \(high) bytes"))
        } else {
            lines.append("estimate: off (--estimate off); requests without dimensions or ratio are charged their encoded size")
        }
        let widthOnly = estimated.filter { $0.price.statedWidth != nil }
        if !widthOnly.isEmpty {
            let byRule = ImageURLDimensions.WidthRule.allCases.compactMap { rule in
                let count = widthOnly.filter { $0.price.statedWidth?.rule == rule }.count
                return count == 0 ? nil : "\(rule.rawValue) \(count)"
            }
            lines.append("\(widthOnly.count) estimated objects state a width but no height in the URL (\(byRule.joined(separator: ", "))): a width alone gives no pixel count, so the estimate priced them; each line shows the height its price implies")
        }
        if counts.restsMostlyOnEstimates {
            let share = String(format2: 100 * Double(counts[.estimate]) / Double(max(counts.total, 1)))
            lines.append("These prices rest mostly on the estimate: \(counts[.estimate]) of \(counts.total) requests (\(share)%) were priced by it, so the decoded sizes — and any capacity sized from them — could be half to twice these (its range), and single images lie farther off")
        }
        return lines
    }

    static func csvText(_ outcome: Outcome) -> String {
        var lines = ["key,requests,rule,url_rule,width,height,encoded_bytes,decoded_bytes,rejected_rule,rejected_width,rejected_height,price_changed,"
                     + "estimate_type,estimate_low_bytes,estimate_high_bytes,url_width,url_width_rule"]
        for entry in outcome.entries {
            let price = entry.price
            let priced: [String] = [
                CSVReport.escape(entry.key), String(entry.requests), price.source.name, price.urlRule?.rawValue ?? "",
                price.width > 0 ? String(price.width) : "", price.width > 0 ? String(price.height) : "",
                String(entry.encodedSize), String(price.cost),
            ]
            let rejected: [String] = [
                price.rejected?.rule.rawValue ?? "", price.rejected.map { String($0.width) } ?? "", price.rejected.map { String($0.height) } ?? "",
                entry.priceChanged ? "true" : "false",
            ]
            let estimated: [String] = [
                price.estimateType?.rawValue ?? "", price.estimateRange.map { String($0.low) } ?? "", price.estimateRange.map { String($0.high) } ?? "",
                price.statedWidth.map { String($0.width) } ?? "", price.statedWidth?.rule.rawValue ?? "",
            ]
            lines.append((priced + rejected + estimated).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
