import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The replay options that arrive as text (`--warmup`, `--decoded-ratio`,
/// `--infer-dimensions`, `--url-units`, `--device`, `bench mrc --sampling-rate`), parsed with their errors worded once. Fuzzed with the other
/// option parsers (`scripts/fuzz options`).
public enum ReplayOptionText {
    /// `--warmup`: a request count (`100000`), a share of the trace below 1 (`0.2`, `20%`)
    /// or a span of trace time (`90s`, `30m`, `1h`, `2d`: the requests less than that after
    /// the trace's first, as libCacheSim's `--warmup-sec` counts them).
    public static func warmup(_ text: String) throws -> (count: Int?, share: Double?, seconds: Double?) {
        let text = text.trimmingSpaces
        if let count = Int(text), count >= 0 { return (count, nil, nil) }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        if let unit = text.last.flatMap({ units[$0] }) {
            // At most 100 years of trace time: a bound that keeps the product finite.
            guard let amount = Double(text.dropLast()), amount.isFinite, amount >= 0, amount * unit <= 3_155_760_000 else {
                throw WorkbenchError("--warmup \(ErrorText.quote(text)): a span of trace time is a number of s, m, h or d from 0 to 100 years (90s, 30m, 1h)")
            }
            return (nil, nil, amount * unit)
        }
        let share = text.hasSuffix("%") ? Double(text.dropLast()).map { $0 / 100 } : Double(text)
        guard let share, share >= 0, share < 1 else {
            throw WorkbenchError("--warmup takes a request count (100000), a share of the trace below 1 (0.2 or 20%) or a span of trace time (30m, 1h), not \(ErrorText.quote(text))")
        }
        return (nil, share, nil)
    }

    /// `--decoded-ratio`: decoded bytes per encoded byte, above 0 and at most 1000.
    public static func decodedRatio(_ text: String) throws -> Double {
        guard let ratio = Double(text), ratio > 0, ratio <= 1000 else {
            throw WorkbenchError("--decoded-ratio must be a number above 0 and at most 1000 (decoded bytes per encoded byte), not \(ErrorText.quote(text))")
        }
        return ratio
    }

    /// `--decoded-ratio`, one number for every request (`8`) or per image type
    /// (`jpeg=8,png=4,gif=12`, `other=R` for the rest and for requests of unknown type).
    public static func decodedRatios(_ text: String) throws -> (other: Double?, byType: [ImageType: Double]) {
        guard text.contains("=") else { return (try decodedRatio(text.trimmingSpaces), [:]) }
        var other: Double?
        var byType: [ImageType: Double] = [:]
        let known = ImageType.allCases.map(\.rawValue) + ["other"]
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).trimmingSpaces.lowercased()
            guard parts.count == 2, known.contains(name) else {
                throw WorkbenchError("--decoded-ratio \(ErrorText.quote(text)): \(ErrorText.quote(String(item))) is not TYPE=R with TYPE one of \(known.joined(separator: ", "))")
            }
            let ratio = try decodedRatio(String(parts[1]).trimmingSpaces)
            if let type = ImageType(rawValue: name) {
                guard byType[type] == nil else { throw WorkbenchError("--decoded-ratio \(ErrorText.quote(text)): \(name) is given twice") }
                byType[type] = ratio
            } else {
                guard other == nil else { throw WorkbenchError("--decoded-ratio \(ErrorText.quote(text)): other is given twice") }
                other = ratio
            }
        }
        return (other, byType)
    }

    /// `--url-units`: `pixels` (1, the default) or `points`, which takes `device`'s scale.
    public static func pointScale(urlUnits text: String?, device: DeviceClass?) throws -> Int {
        switch text?.trimmingSpaces.lowercased() {
        case nil, "pixels": return 1
        case "points":
            guard let device else { throw WorkbenchError("--url-units points needs --device NAME for its screen scale (bench list --devices names them)") }
            return device.scale
        default: throw WorkbenchError("--url-units must be pixels or points, not \(ErrorText.quote(text ?? ""))")
        }
    }

    /// The pixel-pricing options given with `--cost encoded`, where no object is priced by
    /// pixels: refused (exit 2), naming both, rather than ignored without a word.
    /// `inferDimensions` is nil when not given (its default, `url`, is no choice of the user's).
    public static func checkPricingApplies(cost: CostModel?, inferDimensions: String?, decodedRatio: String?, urlUnits: String?, estimate: String? = nil) throws {
        guard cost == .encoded else { return }
        let given = [("--infer-dimensions", inferDimensions), ("--decoded-ratio", decodedRatio), ("--url-units", urlUnits), ("--estimate", estimate)]
            .filter { $0.1 != nil }
        guard let first = given.first else { return }
        let names = given.map(\.0)
        let listed = names.count == 1 ? first.0 : names.dropLast().joined(separator: ", ") + " and " + names.last!
        throw WorkbenchError("\(listed) \(names.count == 1 ? "prices" : "price") objects by pixels, which --cost encoded does not do: every object costs its size column; drop \(names.count == 1 ? "it" : "them") or use --cost pixels or auto")
    }

    /// The pixel rules from `--infer-dimensions` (nil: `url`), `--decoded-ratio`, `--url-units`, `--device`
    /// and `--estimate` (nil: central).
    public static func pixelRules(inferDimensions: String?, decodedRatio: String?, urlUnits: String?, device: DeviceClass?,
                                  estimate: String? = nil) throws -> PixelCostRules {
        let ratios = try decodedRatio.map(decodedRatios)
        return PixelCostRules(
            inferFromURL: try self.inferDimensions(inferDimensions ?? "url"), decodedRatio: ratios?.other, ratioByType: ratios?.byType ?? [:],
            pointScale: try pointScale(urlUnits: urlUnits, device: device), estimate: try self.estimate(estimate ?? "central"))
    }

    /// `--estimate`: `central`, `low`, `high`, or `off` (nil).
    public static func estimate(_ text: String) throws -> DecodedSizeEstimate.Point? {
        let lowered = text.trimmingSpaces.lowercased()
        if lowered == "off" { return nil }
        guard let point = DecodedSizeEstimate.Point(rawValue: lowered) else {
            throw WorkbenchError("--estimate must be central, low, high or off, not \(ErrorText.quote(text))")
        }
        return point
    }

    /// `--device NAME`, or nil when not given.
    public static func device(_ text: String?) throws -> DeviceClass? {
        try text.map(DeviceClass.named)
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
    /// `--sample-size N`: fixed-size SHARDS's number of keys, 1 to 2^31 − 1 (libCacheSim reads
    /// its `sample_size` through `atoi`, an `int`: mrcProfiler/mrcProfiler.h:86).
    public static func sampleSize(_ text: String) throws -> Int {
        guard let size = Int(text.trimmingSpaces), size >= 1, size <= Int(Int32.max) else {
            throw WorkbenchError("--sample-size must be a whole number of keys from 1 to \(Int32.max), not \(ErrorText.quote(text))")
        }
        return size
    }

    public static func samplingRate(_ text: String) throws -> Double {
        let trimmed = text.trimmingSpaces
        let rate = trimmed.hasSuffix("%") ? Double(trimmed.dropLast()).map { $0 / 100 } : Double(trimmed)
        guard let rate, rate >= 1.0 / Double(1 << 24), rate <= 1 else {
            throw WorkbenchError("--sampling-rate must be a fraction from 2^-24 to 1 (0.01 or 1%), not \(ErrorText.quote(text))")
        }
        return rate
    }

    /// The HTTP mode's options as typed; nil values take the defaults. Returns nil in
    /// demand-fill mode, where any HTTP option is an error.
    public struct HTTPModeText: Sendable, Equatable {
        public var mode = "demand-fill"
        public var profile: String?
        public var requestPolicy: String?
        public var heuristicFraction: String?
        public var revalidation: String?
        public var on304: String?
        public var entryShareLimit: String?
        public var httpKey: String?
        public var coalesce = false
        public var maxActiveDownloads: String?
        public var originLatency: String?

        public init() {}

        /// `--name=value` of each option given, in a fixed order (for the sweep journal).
        public var description: String {
            [("mode", mode), ("http-profile", profile), ("request-policy", requestPolicy), ("heuristic-fraction", heuristicFraction),
             ("revalidation", revalidation), ("on-304", on304), ("entry-share-limit", entryShareLimit), ("http-key", httpKey),
             ("coalesce", coalesce ? "on" : nil), ("max-active-downloads", maxActiveDownloads), ("origin-latency", originLatency)]
                .compactMap { name, value in value.map { "\(name)=\($0)" } }.joined(separator: ";")
        }
    }

    /// `--mode ops`: the trace's ops are honoured (`ReplayOptions.operations`).
    public static func honoursOperations(_ text: HTTPModeText) -> Bool {
        text.mode.trimmingSpaces.lowercased() == "ops"
    }

    public static func httpSettings(_ text: HTTPModeText) throws -> HTTPReplaySettings? {
        switch text.mode.trimmingSpaces.lowercased() {
        case "demand-fill", "ops":
            let given = [("--http-profile", text.profile), ("--request-policy", text.requestPolicy), ("--heuristic-fraction", text.heuristicFraction),
                         ("--revalidation", text.revalidation), ("--on-304", text.on304), ("--entry-share-limit", text.entryShareLimit),
                         ("--http-key", text.httpKey), ("--coalesce", text.coalesce ? "on" : nil), ("--max-active-downloads", text.maxActiveDownloads),
                         ("--origin-latency", text.originLatency)]
            if let (name, _) = given.first(where: { $0.1 != nil }) {
                throw WorkbenchError("\(name) applies to --mode http; this run is \(text.mode.trimmingSpaces.lowercased())")
            }
            return nil
        case "http": break
        default: throw WorkbenchError("--mode must be demand-fill, ops or http, not \(ErrorText.quote(text.mode))")
        }
        var settings = HTTPReplaySettings(profile: try text.profile.map(HTTPCacheProfile.named) ?? .rfc9111)
        if let policy = text.requestPolicy { settings.policy = try RequestCachePolicy.named(policy) }
        if let value = text.heuristicFraction {
            guard let fraction = Double(value.trimmingSpaces), fraction >= 0, fraction <= 1 else {
                throw WorkbenchError("--heuristic-fraction must be a number from 0 to 1 (RFC 9111's typical 0.1; 0 = no heuristic), not \(ErrorText.quote(value))")
            }
            settings.heuristicFraction = fraction
        }
        if let value = text.revalidation {
            guard let style = RevalidationStyle(rawValue: value.trimmingSpaces.lowercased()) else {
                throw WorkbenchError("--revalidation must be conditional, head or refetch, not \(ErrorText.quote(value))")
            }
            settings.revalidation = style
        }
        if let value = text.on304 {
            guard let update = NotModifiedUpdate(rawValue: value.trimmingSpaces.lowercased()) else {
                throw WorkbenchError("--on-304 must be update or ignore, not \(ErrorText.quote(value))")
            }
            settings.notModifiedUpdate = update
        }
        if let value = text.entryShareLimit {
            if value.trimmingSpaces.lowercased() == "none" {
                settings.entryShareLimit = nil
            } else {
                let trimmed = value.trimmingSpaces
                let share = trimmed.hasSuffix("%") ? Double(trimmed.dropLast()).map { $0 / 100 } : Double(trimmed)
                guard let share, share > 0, share <= 1 else {
                    throw WorkbenchError("--entry-share-limit must be a share of the capacity above 0 and at most 1 (0.05 or 5%), or none, not \(ErrorText.quote(value))")
                }
                settings.entryShareLimit = share
            }
        }
        if let value = text.httpKey {
            switch value.trimmingSpaces.lowercased() {
            case "url": settings.keyByURL = true
            case "host-port-path": settings.keyByURL = false
            default: throw WorkbenchError("--http-key must be host-port-path or url, not \(ErrorText.quote(value))")
            }
            guard settings.profile == .corelibs else {
                throw WorkbenchError("--http-key applies to --http-profile corelibs (the others key by the whole URL)")
            }
        }
        if text.coalesce || text.maxActiveDownloads != nil || text.originLatency != nil {
            var downloads = DownloadSettings()
            downloads.coalesce = text.coalesce
            downloads.maxActive = 6  // SDWebImage's and Nuke's; AFImageDownloader's is 4
            if let value = text.maxActiveDownloads {
                let trimmed = value.trimmingSpaces.lowercased()
                guard let limit = trimmed == "unlimited" ? 0 : Int(trimmed), (0...100_000).contains(limit) else {
                    throw WorkbenchError("--max-active-downloads must be a count from 1 to 100000, or 0 / unlimited, not \(ErrorText.quote(value))")
                }
                downloads.maxActive = limit
            }
            if let value = text.originLatency { downloads.latency = try OriginLatency(parsing: value) }
            settings.downloads = downloads
        }
        if settings.profile == .corelibs {
            // FoundationNetworking has none of these: refuse rather than ignore them silently.
            // (--request-policy is taken: it ignores that too, and the table says so.)
            if let (name, _) = [("--heuristic-fraction", text.heuristicFraction), ("--revalidation", text.revalidation),
                                ("--on-304", text.on304)].first(where: { $0.1 != nil }) {
                throw WorkbenchError("\(name) does not apply to --http-profile corelibs (FoundationNetworking has no heuristic freshness and sends no conditional requests)")
            }
        }
        return settings
    }
}
