import WorkbenchCore
import WorkbenchMetrics
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A synthetic image-feed trace: images with Zipf popularity, each requested in one of
/// three variants with realistic iPhone pixel sizes, encoded sizes derived from pixels
/// with lognormal noise, Poisson arrivals. Deterministic for a given spec.
public struct ImageFeedSpec: Sendable, Equatable {
    public enum KeyStyle: String, Sendable, CaseIterable { case url, id }

    public var requests = 100_000
    /// Distinct images; nil means requests / 25.
    public var images: Int?
    public var alpha = 0.9
    public var seed: UInt64 = 1
    /// Mean requests per second (exponential gaps).
    public var rate = 50.0
    public var keys = KeyStyle.url

    public init() {}

    public var imageCount: Int { max(1, images ?? requests / 25) }
}

/// One rendition of an image, as a feed app asks for it.
struct ImageVariant {
    let name: String
    /// Share of requests asking for this variant.
    let share: Double
    /// Width in pixels; nil = square crop of `squareSide`.
    let width: Int?
    let squareSide: Int
    /// Encoded bytes per pixel (JPEG around quality 80; small renditions compress less).
    let bytesPerPixel: Double

    /// 150-pt thumbnails, full-width feed cells and full-screen views at 3x scale.
    static let all: [ImageVariant] = [
        ImageVariant(name: "thumb", share: 0.35, width: nil, squareSide: 450, bytesPerPixel: 0.30),
        ImageVariant(name: "feed", share: 0.50, width: 1170, squareSide: 0, bytesPerPixel: 0.20),
        ImageVariant(name: "full", share: 0.15, width: 1290, squareSide: 0, bytesPerPixel: 0.18),
    ]

    /// Photo aspect ratios (height / width) with their shares: square, 4:5, 3:4, 16:9 landscape.
    static let aspects: [(ratio: Double, share: Double)] = [(1.0, 0.3), (1.25, 0.4), (4.0 / 3.0, 0.2), (0.5625, 0.1)]
}

public struct ImageFeedGenerator: Trace {
    public let spec: ImageFeedSpec

    public init(spec: ImageFeedSpec) { self.spec = spec }

    public var label: String {
        "gen:image-feed(requests=\(spec.requests),images=\(spec.imageCount),alpha=\(spec.alpha),seed=\(spec.seed),keys=\(spec.keys.rawValue))"
    }

    public func open(keepKeyNames: Bool) throws -> any RequestSource {
        Stream(spec: spec, keepKeyNames: keepKeyNames)
    }

    /// All requests at once (for tests and small traces).
    public func requests() -> [Request] {
        let stream = Stream(spec: spec, keepKeyNames: true)
        var all: [Request] = []
        while let chunk = stream.nextChunk() { all.append(contentsOf: chunk) }
        return all
    }

    final class Stream: RequestSource {
        let spec: ImageFeedSpec
        let keepKeyNames: Bool
        let zipf: ZipfSampler
        var random: SeededRandom
        var produced = 0
        var micros: UInt64 = 0
        let skippedRows = 0

        init(spec: ImageFeedSpec, keepKeyNames: Bool) {
            self.spec = spec
            self.keepKeyNames = keepKeyNames
            self.zipf = ZipfSampler(count: spec.imageCount, alpha: spec.alpha)
            self.random = SeededRandom(seed: spec.seed)
        }

        var progress: Double? { spec.requests > 0 ? Double(produced) / Double(spec.requests) : 1 }

        func nextChunk() -> ArraySlice<Request>? {
            let count = min(4096, spec.requests - produced)
            guard count > 0 else { return nil }
            var chunk: [Request] = []
            chunk.reserveCapacity(count)
            for _ in 0..<count { chunk.append(next()) }
            produced += count
            return chunk[...]
        }

        private func next() -> Request {
            // Whole microseconds, so the time survives a round trip through the CSV exactly.
            micros += UInt64((random.nextExponential(mean: 1e6 / spec.rate)).rounded())
            let rank = zipf.sample(&random)
            var pick = random.nextUnit()
            var variantIndex = ImageVariant.all.count - 1
            for (index, variant) in ImageVariant.all.enumerated() {
                if pick < variant.share { variantIndex = index; break }
                pick -= variant.share
            }
            let variant = ImageVariant.all[variantIndex]
            // Attributes of an image and its variants depend only on (seed, rank, variant),
            // not on the order requests happen to come in.
            var imageRandom = SeededRandom(seed: spec.seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(rank))
            let imageHash = imageRandom.next()
            var aspectPick = imageRandom.nextUnit()
            var aspect = ImageVariant.aspects[0].ratio
            for candidate in ImageVariant.aspects {
                if aspectPick < candidate.share { aspect = candidate.ratio; break }
                aspectPick -= candidate.share
            }
            let width = variant.width ?? variant.squareSide
            let height = variant.width.map { Int((Double($0) * aspect).rounded()) } ?? variant.squareSide
            var variantRandom = SeededRandom(seed: imageHash ^ UInt64(variantIndex + 1))
            let sigma = 0.35
            let noise = exp(sigma * variantRandom.nextNormal() - sigma * sigma / 2)
            let size = max(1, Int((Double(width * height) * variant.bytesPerPixel * noise).rounded()))
            let time = Double(micros) / 1e6
            switch spec.keys {
            case .id:
                return Request(
                    time: time, id: UInt64(rank) * UInt64(ImageVariant.all.count) + UInt64(variantIndex),
                    size: size, width: UInt32(width), height: UInt32(height))
            case .url:
                let key = "https://images.example-cdn.com/v2/photos/\(hex16(imageHash))/\(variant.name).jpg?w=\(width)&h=\(height)&q=80"
                var request = Request(time: time, key: key, size: size, width: UInt32(width), height: UInt32(height))
                if !keepKeyNames { request.name = nil }
                return request
            }
        }

        private func hex16(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
    }
}
