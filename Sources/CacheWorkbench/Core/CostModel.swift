/// How much of a cache's capacity an object takes.
public enum CostModel: String, Sendable, CaseIterable {
    /// The request's size column: encoded bytes, as a disk or HTTP cache holds them.
    case encoded
    /// width × height × 4 bytes, a decoded RGBA bitmap (AFAutoPurgingImageCache's rule).
    /// A request without dimensions falls back to its encoded size.
    case pixels

    @inline(__always)
    public func cost(of request: Request) -> Int {
        switch self {
        case .encoded:
            return request.size
        case .pixels:
            guard request.hasDimensions else { return request.size }
            // Readers refuse dimensions whose cost exceeds the object limit; saturate anyway.
            return SizeLimits.pixelCost(width: request.width, height: request.height) ?? SizeLimits.largestObject
        }
    }
}
