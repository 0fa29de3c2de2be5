/// How a pixel cost is found for a request, in order, and which rule gave it (reported,
/// never silent: DESIGN.md's measurement rules):
///
/// 1. `dimensions`: the trace's width × height × 4 (a decoded RGBA bitmap, AF's rule);
/// 2. `url`: dimensions an image-CDN URL states (`ImageURLDimensions`), when on — unless
///    the decoded bitmap would be smaller than the encoded size, which no raster image
///    is: that inference is rejected (`Price.rejected`, counted) and the next rule prices;
/// 3. `ratio`: the encoded size × `decodedRatio` (an explicit, user-given assumption);
/// 4. `encoded`: the encoded size itself — a fallback that undercounts decoded memory
///    several-fold, counted and called out in the results.
public struct PixelCostRules: Sendable, Equatable {
    public enum Source: Int, Sendable, CaseIterable {
        case dimensions, url, ratio, encoded

        public var name: String {
            switch self {
            case .dimensions: "dimensions"
            case .url: "url"
            case .ratio: "ratio"
            case .encoded: "encoded"
            }
        }
    }

    /// Read dimensions from image-CDN URL conventions (rule 2).
    public var inferFromURL = true
    /// Decoded bytes per encoded byte for rule 3; nil = not used.
    public var decodedRatio: Double?

    public init(inferFromURL: Bool = true, decodedRatio: Double? = nil) {
        self.inferFromURL = inferFromURL
        self.decodedRatio = decodedRatio
    }

    /// One request's price with everything that explains it, for `bench price`'s audit.
    public struct Price: Sendable {
        public var cost: Int
        public var source: Source
        /// The URL convention that gave the dimensions (source `url`).
        public var urlRule: ImageURLDimensions.Rule?
        /// The dimensions priced (sources `dimensions` and `url`; 0 otherwise).
        public var width: UInt32 = 0
        public var height: UInt32 = 0
        /// A URL inference refused because its decoded cost was below the encoded size.
        public var rejected: ImageURLDimensions.Found?
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
        if request.hasDimensions {
            return Price(cost: SizeLimits.pixelCost(width: request.width, height: request.height) ?? SizeLimits.largestObject, source: .dimensions,
                         width: request.width, height: request.height)
        }
        var rejected: ImageURLDimensions.Found?
        if inferFromURL, let name = request.name {
            let inferred = ImageURLDimensions.infer(name, encodedSize: request.size)
            rejected = inferred.rejected
            if let found = inferred.found, let cost = SizeLimits.pixelCost(width: found.width, height: found.height) {
                return Price(cost: cost, source: .url, urlRule: found.rule, width: found.width, height: found.height, rejected: rejected)
            }
        }
        if let decodedRatio {
            let scaled = (Double(request.size) * decodedRatio).rounded()
            return Price(cost: scaled >= Double(SizeLimits.largestObject) ? SizeLimits.largestObject : Int(scaled), source: .ratio, rejected: rejected)
        }
        return Price(cost: request.size, source: .encoded, rejected: rejected)
    }

    /// `url=on;decoded-ratio=none`, for the results.
    public var description: String {
        "url=\(inferFromURL ? "on" : "off");decoded-ratio=\(decodedRatio.map { String($0) } ?? "none")"
    }
}

/// How many requests each rule priced (pixel cost only).
public struct CostSourceCounts: Sendable, Equatable {
    public var counts = [Int](repeating: 0, count: PixelCostRules.Source.allCases.count)
    /// Requests whose URL size was rejected (decoding below the encoded bytes) and that the
    /// next rule priced; already counted under that rule, so not part of `total`.
    public var urlRejected = 0

    public init() {}

    public subscript(_ source: PixelCostRules.Source) -> Int {
        get { counts[source.rawValue] }
        set { counts[source.rawValue] = newValue }
    }

    public var total: Int { counts.reduce(0, +) }

    /// `dimensions:120,url:30,encoded:8` (zeros left out).
    public var description: String {
        PixelCostRules.Source.allCases.filter { self[$0] > 0 }.map { "\($0.name):\(self[$0])" }.joined(separator: ",")
    }
}
