import Foundation

/// What an image library's memory cache is charged for one decoded image of known pixel
/// dimensions: the bitmap it decodes to — downsampled to the display size when the app
/// configured the library's downsampling (`--display`) — times the bytes per row it charges
/// (row padding included when the library charges `bytesPerRow × height`). Each preset
/// carries its library's rule (`TierPreset.bitmap`), cited from the library's source in
/// docs/tiers.md; any other backend is `packed` (width × height × 4).
///
/// Applied to a price's dimensions only (`PixelCostRules` rules `dimensions` and `url`): a
/// recorded cost is already what the app's cache was charged, and a ratio or encoded
/// price has no dimensions to shape.
public struct DecodedBitmap: Sendable, Equatable {
    /// How a library downsamples to a display size when configured to.
    public enum Downsampling: String, Sendable, Equatable {
        /// The library has no downsampling modeled: decoded at full size.
        case none
        /// Kingfisher's `DownsamplingImageProcessor(size:)`: ImageIO's thumbnail with
        /// `kCGImageSourceThumbnailMaxPixelSize` = max(width, height) × scale.
        case longestSide
        /// SDWebImage's thumbnail pixel size (`SDWebImageContextImageThumbnailPixelSize`,
        /// aspect ratio preserved): full size when it fits, else ImageIO's thumbnail fitted
        /// inside the box.
        case fitInside
        /// Nuke's `ImageProcessors.Resize(size:)` with its defaults (points, aspect fill,
        /// no upscale, no crop): both sides scaled by max(target / side), each rounded.
        case fill
    }

    /// Bytes per decoded pixel (8-bit RGBA), as every library here decodes.
    static let bytesPerPixel = 4

    public var downsampling: Downsampling
    /// Bytes per row are rounded up to a multiple of this (1: no padding, width × 4).
    public var rowAlignment: Int

    public init(downsampling: Downsampling = .none, rowAlignment: Int = 1) {
        self.downsampling = downsampling
        self.rowAlignment = max(1, rowAlignment)
    }

    /// width × height × 4, decoded at full size (AFAutoPurgingImageCache's rule; PINCache).
    public static let packed = DecodedBitmap()

    /// CoreGraphics' rows, as a bitmap context created with `bytesPerRow: 0` lays them out:
    /// a multiple of 64 bytes (observed, not documented: see docs/tiers.md).
    public static let coreGraphicsRowAlignment = 64

    /// Bytes per row of a decoded bitmap `width` pixels wide; nil on overflow. O(1).
    public func bytesPerRow(width: Int) -> Int? {
        let (raw, overflow) = width.multipliedReportingOverflow(by: Self.bytesPerPixel)
        guard !overflow, raw <= Int.max - rowAlignment else { return nil }
        return (raw + rowAlignment - 1) / rowAlignment * rowAlignment
    }

    /// The decoded size of a `width` × `height` image shown in `display` (nil: decoded at
    /// full size), as this library downsamples: aspect ratio kept, never enlarged. O(1).
    public func dimensions(width: Int, height: Int, display: DisplaySize?) -> (width: Int, height: Int) {
        guard let display, width > 0, height > 0 else { return (width, height) }
        let (w, h) = (Double(width), Double(height))
        let (targetW, targetH) = (display.width * display.scale, display.height * display.scale)
        switch downsampling {
        case .none:
            return (width, height)
        case .longestSide:
            // Image.swift L469-486 @410984bf: maxDimensionInPixels = max(w, h) × scale.
            return Self.thumbnail(width: width, height: height, maxPixelSize: max(targetW, targetH))
        case .fitInside:
            // SDImageIOAnimatedCoder.m L489-506 @36e79ba4: full size when it fits the box;
            // else a max pixel size chosen so that the thumbnail fits inside it.
            if w <= targetW && h <= targetH { return (width, height) }
            let pixelRatio = w / h, boxRatio = targetW / targetH
            let maxPixelSize = pixelRatio > boxRatio ? max(targetW, targetW / pixelRatio) : max(targetH, targetH * pixelRatio)
            return Self.thumbnail(width: width, height: height, maxPixelSize: maxPixelSize)
        case .fill:
            // Graphics.swift L43-47 and L245-254 @c4fc70af: scale = max(tw / w, th / h);
            // none unless below 1 (upscale false); each side rounded (Foundation's round).
            let scale = max(targetW / w, targetH / h)
            guard scale < 1 else { return (width, height) }
            return (max(1, Int((w * scale).rounded())), max(1, Int((h * scale).rounded())))
        }
    }

    /// ImageIO's thumbnail (`CGImageSourceCreateThumbnailAtIndex` with a max pixel size):
    /// the longer side becomes the max pixel size, never more than it is, the other side in
    /// proportion. ImageIO's rounding is not documented: both to the nearest pixel here.
    static func thumbnail(width: Int, height: Int, maxPixelSize: Double) -> (width: Int, height: Int) {
        let longest = max(width, height)
        let target = max(1, Int(maxPixelSize.rounded()))
        guard target < longest else { return (width, height) }
        let other = { (side: Int) in max(1, Int((Double(side) * Double(target) / Double(longest)).rounded())) }
        return width >= height ? (target, other(height)) : (other(width), target)
    }

    /// The bytes charged for a `width` × `height` image shown in `display`, and whether
    /// downsampling and padding changed it; nil cost on overflow. O(1).
    public func cost(width: Int, height: Int, display: DisplaySize?) -> (cost: Int?, downsampled: Bool, padded: Bool) {
        let shown = dimensions(width: width, height: height, display: display)
        let downsampled = shown != (width, height)
        guard let row = bytesPerRow(width: shown.width) else { return (nil, downsampled, false) }
        let (bytes, overflow) = row.multipliedReportingOverflow(by: shown.height)
        return (overflow ? nil : bytes, downsampled, row != shown.width * Self.bytesPerPixel && shown.height > 0)
    }
}

/// A display size in points and the screen's scale: `--display 120x90@3`. The size an app
/// configured its library to downsample to (Kingfisher's processor size, SDWebImage's
/// thumbnail pixel size / scale, Nuke's resize size).
public struct DisplaySize: Sendable, Equatable, CustomStringConvertible {
    public var width: Double
    public var height: Double
    public var scale: Double

    public init(width: Double, height: Double, scale: Double) {
        self.width = width
        self.height = height
        self.scale = scale
    }

    /// `WxH@scale` (points, and pixels per point: `120x90@3`, `375x200.5@2`); each above 0,
    /// sides up to 100,000 points and scales up to 10. O(length).
    public init(parsing text: String) throws {
        let refusal = WorkbenchError("--display takes WxH@scale, the view's size in points and the screen's scale (e.g. 120x90@3), or recorded, not \(ErrorText.quote(text))")
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw refusal }
        let sides = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard sides.count == 2, let width = Double(sides[0]), let height = Double(sides[1]), let scale = Double(parts[1]),
              width > 0, height > 0, scale > 0, width <= 100_000, height <= 100_000, scale <= 10
        else { throw refusal }
        self.init(width: width, height: height, scale: scale)
    }

    /// The same size from a recording's request: its view's size and screen scale, when all
    /// three are recorded and usable.
    init?(recorded image: RecordedImage?) {
        guard let image, let width = image.displayWidth, let height = image.displayHeight, let scale = image.scale,
              width > 0, height > 0, scale > 0, width.isFinite, height.isFinite, scale.isFinite
        else { return nil }
        self.init(width: width, height: height, scale: scale)
    }

    public var description: String { "\(Self.number(width))x\(Self.number(height))@\(Self.number(scale))" }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// `--display`: one size for every request, or each request's own from a recording.
public enum DisplayOption: Sendable, Equatable, CustomStringConvertible {
    case fixed(DisplaySize)
    case recorded

    /// `WxH@scale` or `recorded`. O(length).
    public init(parsing text: String) throws {
        self = text.lowercased() == "recorded" ? .recorded : .fixed(try DisplaySize(parsing: text))
    }

    /// The size `request` was shown at: the fixed one, or the recording's (nil without one).
    func size(for request: Request) -> DisplaySize? {
        switch self {
        case .fixed(let size): size
        case .recorded: DisplaySize(recorded: request.recorded)
        }
    }

    public var description: String {
        switch self {
        case .fixed(let size): size.description
        case .recorded: "recorded"
        }
    }
}

/// One backend's bitmap rule and the run's `--display`, applied to each pixel price that
/// has dimensions (`ReplayOptions.price`).
public struct BitmapPricing: Sendable, Equatable {
    public var bitmap: DecodedBitmap
    public var display: DisplayOption?

    public init(bitmap: DecodedBitmap, display: DisplayOption?) {
        self.bitmap = bitmap
        self.display = display
    }

    /// What happened to one price (counted per run in `BitmapCounts`).
    public struct Effect: Sendable, Equatable {
        public var downsampled = false
        public var padded = false
        /// `--display recorded` on a request the recording gives no display size for.
        public var noDisplay = false
        public static let none = Effect()
    }

    /// The price's cost reshaped by the library's bitmap: only a price with dimensions from
    /// the trace or a URL (`dimensions`, `url`). O(1).
    package func apply(_ price: inout PixelCostRules.Price, request: Request) -> Effect {
        guard price.source == .dimensions || price.source == .url, price.width > 0, price.height > 0 else { return .none }
        let display = self.display?.size(for: request)
        let shaped = bitmap.cost(width: Int(price.width), height: Int(price.height), display: display)
        var effect = Effect(downsampled: shaped.downsampled, padded: shaped.padded)
        effect.noDisplay = self.display == .recorded && display == nil && bitmap.downsampling != .none
        price.cost = min(shaped.cost ?? SizeLimits.largestObject, SizeLimits.largestObject)
        return effect
    }
}

/// How many priced requests a run's bitmap rule downsampled and padded.
public struct BitmapCounts: Sendable, Equatable {
    public var downsampled = 0
    public var padded = 0
    public var noDisplay = 0

    public init() {}

    @inline(__always)
    package mutating func count(_ effect: BitmapPricing.Effect) {
        if effect.downsampled { downsampled += 1 }
        if effect.padded { padded += 1 }
        if effect.noDisplay { noDisplay += 1 }
    }
}
