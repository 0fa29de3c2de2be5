/// How much of a cache's capacity an object takes.
public enum CostModel: String, Sendable, CaseIterable {
    /// The request's size column: encoded bytes, as a disk or HTTP cache holds them.
    case encoded
    /// width × height × 4 bytes, a decoded RGBA bitmap (AFAutoPurgingImageCache's rule).
    /// A request without dimensions is priced by `PixelCostRules` (URL conventions, a
    /// decoded/encoded ratio, else its encoded size), and the rule is counted.
    case pixels

    /// The cost under this model, pixel costs found by `rules`.
    @inline(__always)
    public func cost(of request: Request, rules: PixelCostRules = PixelCostRules()) -> Int {
        switch self {
        case .encoded: request.size
        case .pixels: rules.cost(of: request).cost
        }
    }
}
