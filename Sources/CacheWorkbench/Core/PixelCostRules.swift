/// How a pixel cost is found for a request, in order, and which rule gave it (reported,
/// never silent: DESIGN.md's measurement rules):
///
/// 1. `dimensions`: the trace's width × height × 4 (a decoded RGBA bitmap, AF's rule);
/// 2. `url`: dimensions an image-CDN URL states (`ImageURLDimensions`), when on;
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

    /// The pixel cost of `request` and the rule that gave it. O(1), or O(key length) when a
    /// URL is read.
    @inline(__always)
    public func cost(of request: Request) -> (cost: Int, source: Source) {
        if request.hasDimensions {
            return (SizeLimits.pixelCost(width: request.width, height: request.height) ?? SizeLimits.largestObject, .dimensions)
        }
        if inferFromURL, let name = request.name, let found = ImageURLDimensions.infer(name),
           let cost = SizeLimits.pixelCost(width: found.width, height: found.height) {
            return (cost, .url)
        }
        if let decodedRatio {
            let scaled = (Double(request.size) * decodedRatio).rounded()
            return (scaled >= Double(SizeLimits.largestObject) ? SizeLimits.largestObject : Int(scaled), .ratio)
        }
        return (request.size, .encoded)
    }

    /// `url=on;decoded-ratio=none`, for the results.
    public var description: String {
        "url=\(inferFromURL ? "on" : "off");decoded-ratio=\(decodedRatio.map { String($0) } ?? "none")"
    }
}

/// How many requests each rule priced (pixel cost only).
public struct CostSourceCounts: Sendable, Equatable {
    public var counts = [Int](repeating: 0, count: PixelCostRules.Source.allCases.count)

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
