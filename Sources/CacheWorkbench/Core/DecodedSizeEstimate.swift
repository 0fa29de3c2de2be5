/// The decoded size of an image whose dimensions nothing states (no body, no URL convention),
/// estimated from its encoded size and format: pixels ≈ encoded bits ÷ the format's bits per
/// pixel, decoded cost = pixels × 4 (RGBA, as the `dimensions` rule). It replaces the encoded
/// size (16–37× below a bitmap on issue 43's news HAR) as the last priced rule; a request of
/// unknown format, or HEIC, keeps the `encoded` fallback (counted).
///
/// Central values: the median bits per pixel by format that the HTTP Archive measured on the
/// images of ~10 million crawled pages (Web Almanac 2024, Media chapter, "Bit per pixel by
/// format", mobile, crawl of June 2024; bits of the file ÷ pixels of its first frame):
/// JPEG 2.0, PNG 3.8, GIF 6.7, AVIF 1.4, WebP 1.3. HEIC has no web corpus (browsers do not
/// serve it): not estimated.
///
/// The range: each format's decoded size from half to twice the central one (bits per pixel
/// from 2 × to ½ × the median). It is about the interquartile range of the published
/// distributions — JPEG 1.22–3.76 bpp around 2.0 (HTTP Archive forum, "What compression ratio
/// ranges are used for lossy formats?", 2022 crawl), non-animated GIF 1.8–5.7 around 3.5
/// (Web Almanac 2024), all images 0.9–5.6 around 2.1 (ibid.) — so a quarter of images lie
/// beyond each end, and single images much farther: of the six PNG bodies in the shared HARs
/// only one falls inside (docs/price.md lists them). One common factor makes the estimate
/// scale-free: when the estimate priced every request, a replay at the high end at capacity
/// 2C is the replay at the central value at capacity C, exactly (costs are integers with
/// central = 2 × low and high = 4 × low), which is how a size recommendation gets its range.
///
/// Complexity: O(1).
public enum DecodedSizeEstimate {
    /// Which end of the range a replay prices at (`--estimate`): `low` decoded sizes (bits
    /// per pixel at 2 × the median), `central`, or `high` (½ × the median).
    public enum Point: String, Sendable, CaseIterable {
        case low, central, high
    }

    /// Each end of the range is the central decoded size divided or multiplied by this.
    public static let rangeFactor = 2

    /// Backends whose every decision depends on cost ÷ capacity alone, so that prices × 2 at
    /// capacity × 2 replay identically (PriceEstimateTests.scaleInvariance checks each):
    /// for them an all-estimated row's capacity range is exact. Others are replayed at both ends.
    public static let scaleFreeBackends: Set<String> = ["lru", "nscache"]

    /// The median bits per pixel of `type` (Web Almanac 2024); nil: not estimated.
    public static func medianBitsPerPixel(_ type: ImageType) -> Double? {
        switch type {
        case .jpeg: 2.0
        case .png: 3.8
        case .gif: 6.7
        case .avif: 1.4
        case .webp: 1.3
        case .heic: nil
        }
    }

    /// The decoded cost at each end and the centre, for `encoded` bytes of `type`; nil when
    /// the type has no estimate. low = encoded × 8 ÷ (2 × median) pixels × 4 bytes, rounded;
    /// central = 2 × low; high = 4 × low (each capped at the object limit). Never below the
    /// encoded size: low ≥ encoded while the median is at most 16 bits per pixel (all are below 7).
    public static func costs(encoded: Int, type: ImageType) -> Range? {
        guard let median = medianBitsPerPixel(type), encoded > 0 else { return nil }
        let low = (Double(encoded) * 16 / median).rounded()
        func capped(_ cost: Double) -> Int { cost >= Double(SizeLimits.largestObject) ? SizeLimits.largestObject : Int(cost) }
        return Range(low: capped(low), central: capped(low * 2), high: capped(low * 4))
    }

    /// The decoded costs at the range's ends and centre.
    public struct Range: Sendable, Equatable {
        public var low: Int
        public var central: Int
        public var high: Int

        public subscript(_ point: Point) -> Int {
            switch point {
            case .low: low
            case .central: central
            case .high: high
            }
        }
    }
}
