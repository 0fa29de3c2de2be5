/// How a pixel cost is found for a request, in order, and which rule gave it (reported,
/// never silent: DESIGN.md's measurement rules):
///
/// 0. `recorded`: the cost an app recording states (`RecordedImage.recordedCost`: the
///    decoded cost the app's own cache was charged, else bytes per row × height), the
///    truth for that app; a request with dimensions but no recorded cost falls to rule 1;
/// 1. `dimensions`: the trace's width × height × 4 (a decoded RGBA bitmap, AF's rule);
/// 2. `url`: dimensions an image-CDN URL states (`ImageURLDimensions`), when on — unless
///    the decoded bitmap would be smaller than the encoded size, which no raster image
///    is: that inference is rejected (`Price.rejected`, counted) and the next rule prices;
/// 3. `ratio`: the encoded size × the ratio for the request's image type (`ratioByType`,
///    the type from `ImageType`), else × `decodedRatio` (explicit, user-given assumptions;
///    each type's count is reported);
/// 4. `estimate`: the decoded size estimated from the encoded size and the format's median
///    bits per pixel (`DecodedSizeEstimate`), at `estimate`'s point of its half-to-twice
///    range (central by default; nil = off); a width-only URL (`?w=`, Wikimedia's `220px-`)
///    is listed beside it, since a width alone gives no pixel count;
/// 5. `encoded`: the encoded size itself — for what the estimate cannot price (unknown
///    format, HEIC, or the estimate off); it undercounts decoded memory several-fold, counted
///    and called out in the results.
public struct PixelCostRules: Sendable, Equatable {
    public enum Source: Int, Sendable, CaseIterable {
        case recorded, dimensions, url, ratio, estimate, encoded

        public var name: String {
            switch self {
            case .recorded: "recorded"
            case .dimensions: "dimensions"
            case .url: "url"
            case .ratio: "ratio"
            case .estimate: "estimate"
            case .encoded: "encoded"
            }
        }
    }

    /// Read dimensions from image-CDN URL conventions (rule 2).
    public var inferFromURL = true
    /// Decoded bytes per encoded byte for rule 3, for a request whose type has no ratio of
    /// its own in `ratioByType` (or is unknown); nil = not used.
    public var decodedRatio: Double?
    /// Decoded bytes per encoded byte for rule 3, by image type (`--decoded-ratio jpeg=8`).
    public var ratioByType: [ImageType: Double] = [:]
    /// Pixels per point of URL sizes (rule 2): 1 when URLs give pixels (every documented
    /// convention), the device's scale under `--url-units points`.
    public var pointScale = 1
    /// Rule 4's point of the estimate's range (`--estimate`); nil: rule 4 is off.
    public var estimate: DecodedSizeEstimate.Point? = .central

    public init(inferFromURL: Bool = true, decodedRatio: Double? = nil, ratioByType: [ImageType: Double] = [:], pointScale: Int = 1,
                estimate: DecodedSizeEstimate.Point? = .central) {
        self.inferFromURL = inferFromURL
        self.decodedRatio = decodedRatio
        self.ratioByType = ratioByType
        self.pointScale = pointScale
        self.estimate = estimate
    }

    /// Whether rules 3 or 4 read a request's type (from its content type or URL).
    public var needsImageType: Bool { hasTypeRatios || estimate != nil }
    /// Whether rule 3 has ratios of its own per type (`--decoded-ratio jpeg=8`).
    public var hasTypeRatios: Bool { !ratioByType.isEmpty }

    /// One request's price with everything that explains it, for `bench price`'s audit.
    public struct Price: Sendable {
        public var cost: Int
        public var source: Source
        /// The URL convention that gave the dimensions (source `url`).
        public var urlRule: ImageURLDimensions.Rule?
        /// The dimensions priced (sources `dimensions` and `url`, and `recorded` when the
        /// recording has them; 0 otherwise).
        public var width: UInt32 = 0
        public var height: UInt32 = 0
        /// A URL inference refused because its decoded cost was below the encoded size.
        public var rejected: ImageURLDimensions.Found?
        /// Source `ratio`: the type whose own ratio priced it; nil = `decodedRatio` did.
        public var ratioType: ImageType?
        /// Source `estimate`: the format estimated and its decoded costs at the range's ends.
        public var estimateType: ImageType?
        public var estimateRange: DecodedSizeEstimate.Range?
        /// Source `estimate`: a width the URL states without a height (listed, not priced).
        public var statedWidth: ImageURLDimensions.Width?
    }

    /// The pixel cost of `request` and the rule that gave it. O(1), or O(key length) when a
    /// URL is read.
    @inline(__always)
    public func cost(of request: Request) -> (cost: Int, source: Source) {
        let priced = price(of: request)
        return (priced.cost, priced.source)
    }

    /// The pixel cost of `request`, its rule, dimensions and any rejected URL inference.
    /// O(1), or O(key length) when a URL is read.
    public func price(of request: Request) -> Price {
        if let recorded = request.recorded, let cost = recorded.recordedCost(height: request.height) {
            return Price(cost: min(cost, SizeLimits.largestObject), source: .recorded, width: request.width, height: request.height)
        }
        if request.hasDimensions {
            return Price(cost: SizeLimits.pixelCost(width: request.width, height: request.height) ?? SizeLimits.largestObject, source: .dimensions,
                         width: request.width, height: request.height)
        }
        var rejected: ImageURLDimensions.Found?
        if inferFromURL, let name = request.name {
            let inferred = ImageURLDimensions.infer(name, encodedSize: request.size, pointScale: Double(pointScale))
            rejected = inferred.rejected
            if let found = inferred.found, let cost = SizeLimits.pixelCost(width: found.width, height: found.height) {
                return Price(cost: cost, source: .url, urlRule: found.rule, width: found.width, height: found.height, rejected: rejected)
            }
        }
        let type = needsImageType ? ImageType.of(request) : nil
        let typeRatio = type.flatMap { ratioByType[$0] }
        if let ratio = typeRatio ?? decodedRatio {
            let scaled = (Double(request.size) * ratio).rounded()
            return Price(cost: scaled >= Double(SizeLimits.largestObject) ? SizeLimits.largestObject : Int(scaled), source: .ratio, rejected: rejected,
                         ratioType: typeRatio == nil ? nil : type)
        }
        if let point = estimate, let type, let range = DecodedSizeEstimate.costs(encoded: request.size, type: type) {
            let width = inferFromURL ? request.name.flatMap(ImageURLDimensions.width) : nil
            return Price(cost: range[point], source: .estimate, rejected: rejected, estimateType: type, estimateRange: range, statedWidth: width)
        }
        return Price(cost: request.size, source: .encoded, rejected: rejected)
    }

    /// `url=on;decoded-ratio=none;estimate=central` (`jpeg:8/png:4/other:6` per type;
    /// `;url-units=points@3` when URL sizes are points; `estimate=off`), for the results.
    public var description: String {
        let perType = ImageType.allCases.compactMap { type in ratioByType[type].map { "\(type.rawValue):\($0)" } }
            + (decodedRatio.map { ["\(otherLabel(isEmpty: ratioByType.isEmpty))\($0)"] } ?? [])
        let ratio = perType.isEmpty ? "none" : perType.joined(separator: "/")
        return "url=\(inferFromURL ? "on" : "off");decoded-ratio=\(ratio)" + (pointScale == 1 ? "" : ";url-units=points@\(pointScale)")
            + ";estimate=\(estimate?.rawValue ?? "off")"
    }

    /// The default ratio's label: bare alone (as before per-type ratios), `other:` among types.
    private func otherLabel(isEmpty: Bool) -> String { isEmpty ? "" : "other:" }
}

/// How many requests each rule priced (pixel cost only).
public struct CostSourceCounts: Sendable, Equatable {
    public var counts = [Int](repeating: 0, count: PixelCostRules.Source.allCases.count)
    /// Requests of `ratio` by the type whose own ratio priced them (`ImageType` order), and
    /// last those `decodedRatio` priced (no ratio of their type, or no known type).
    public var ratioByType = [Int](repeating: 0, count: ImageType.allCases.count + 1)
    /// Requests of `estimate` by their format (`ImageType` order).
    public var estimateByType = [Int](repeating: 0, count: ImageType.allCases.count)
    /// Requests whose URL size was rejected (decoding below the encoded bytes) and that the
    /// next rule priced; already counted under that rule, so not part of `total`.
    public var urlRejected = 0

    public init() {}

    public subscript(_ source: PixelCostRules.Source) -> Int {
        get { counts[source.rawValue] }
        set { counts[source.rawValue] = newValue }
    }

    public var total: Int { counts.reduce(0, +) }

    /// Counts one priced request: its rule, a rejected URL size, and a ratio's type. O(1).
    @inline(__always)
    public mutating func count(_ price: PixelCostRules.Price) {
        counts[price.source.rawValue] += 1
        if price.rejected != nil { urlRejected += 1 }
        if price.source == .ratio {
            ratioByType[price.ratioType.map { ImageType.allCases.firstIndex(of: $0)! } ?? ImageType.allCases.count] += 1
        }
        if let type = price.estimateType { estimateByType[ImageType.allCases.firstIndex(of: type)!] += 1 }
    }

    /// `jpeg:120,png:20` (zeros left out; `none`), the requests the estimate priced by format.
    public var estimateTypesDescription: String {
        let counted = zip(ImageType.allCases, estimateByType).filter { $0.1 > 0 }.map { "\($0.0.rawValue):\($0.1)" }
        return counted.isEmpty ? "none" : counted.joined(separator: ",")
    }

    /// Whether the estimate priced more than half of the priced requests (an answer resting
    /// mostly on estimates says so).
    public var restsMostlyOnEstimates: Bool { self[.estimate] * 2 > total }

    /// `jpeg:20,png:10,other:3` (zeros left out; `none` when no request was priced by a ratio),
    /// for rules with per-type ratios.
    public var ratioTypesDescription: String {
        let names = ImageType.allCases.map(\.rawValue) + ["other"]
        let counted = zip(names, ratioByType).filter { $0.1 > 0 }.map { "\($0.0):\($0.1)" }
        return counted.isEmpty ? "none" : counted.joined(separator: ",")
    }

    /// `recorded:40,dimensions:120,url:30,encoded:8` (zeros left out).
    public var description: String {
        PixelCostRules.Source.allCases.filter { self[$0] > 0 }.map { "\($0.name):\(self[$0])" }.joined(separator: ",")
    }
}
