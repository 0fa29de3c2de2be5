/// Pixel dimensions that an image URL states by a public image-CDN convention, for pixel
/// cost when a trace carries no dimensions (a HAR recorded by a proxy rarely has bodies).
/// Each rule and its source:
///
/// - `query`: query parameters `w`/`width` and `h`/`height` (imgix's `w`/`h`,
///   docs.imgix.com/apis/rendering/size; also Shopify, Sanity, Contentful and
///   WordPress.com's Photon), times `dpr` when present (imgix's device pixel ratio).
/// - `cloudinary`: a path segment of comma-separated transformations with `w_N` and `h_N`
///   (cloudinary.com/documentation/transformation_reference), times `dpr_N` when present.
/// - `thumbor`: a path segment `WxH`, optionally negative (flips), ONLY in Thumbor's URL
///   layout: after an `unsafe` segment or a signature segment (28 characters of URL-safe
///   base64 ending `=`, an HMAC-SHA1), then optionally `debug`, `meta`, `trim…`, a crop
///   `AxB:CxD` and `[adaptive-][full-]fit-in`, in that order — thumbor/thumbor's
///   `thumbor/url.py` regex and its docs ("Usage", "Security"). A bare `/300x200/` folder
///   elsewhere is not a size by any documented convention (it is often a ratio, a layout
///   name or a date) and is not read.
/// - `thumbor-fit-in`: the same layout with `[adaptive-][full-]fit-in` before the size, or
///   a `fit-in` segment directly followed by `WxH` anywhere (url.py makes `unsafe`/the
///   signature optional: thumbor/thumbor 3d5fbe93, `thumbor/url.py`, `Url.unsafe_or_hash`
///   and `Url.fit_in`). Thumbor's docs ("Usage": fit-in) say the image is not cropped but
///   fitted inside an imaginary W × H box, and is not enlarged without the `upscale()`
///   filter: so W × H is an UPPER BOUND — the bitmap has at most W × H pixels, one side
///   reaching the box when the original is larger. It is priced at the box (an overstatement
///   by the box's unused share: 11% for a 4:3 image in a 3:2 box), and named apart.
/// - `aspect-ratio`: a segment `AxB` with both terms 1…32 (`16x9`, `4x3`, `1x1`: a ratio
///   folder, not pixels) directly followed by a segment that is a whole number: the width;
///   the height is width × B / A, rounded. This is a news-CMS folder habit that issue 21
///   names from real traffic (e.g. `/16x9/1200/name.jpg`), not a documented CDN API — which
///   is why every URL rule is also checked against the encoded size (below). Issue 43's news
///   site writes the width as the FILE NAME instead (`/16x9/160.jpg` → 160 × 90, `/4x3/320.jpg`
///   → 320 × 240): a last segment whose name before the extension (and any `@Nx`) is a whole
///   number is read as the width too. No CDN documents either spelling (searched: none found),
///   so a ratio followed by anything else (`/16x9/story.jpg`) states nothing.
/// - `filename`: a file name ending `-WxH.ext` or `_WxH.ext` (WordPress's generated
///   sizes, `photo-300x200.jpg`, developer.wordpress.org add_image_size), also with a
///   content-hash or version segment between the size and the extension
///   (`icon-196x196.v503bbf1.png`: webpack's `[name].[contenthash].[ext]` template,
///   webpack.js.org/configuration/output/#template-strings; Django's
///   ManifestStaticFilesStorage `name.55e7cbb9ba48.css`): a dot-separated segment of 4 to 64
///   letters and digits, with at least one digit, is skipped.
///
/// Width-only conventions (`width(_:)`) state a width and no height, so they give no pixel
/// count by themselves; `PixelCostRules` lists the width beside the decoded-size estimate:
/// - `query-width`: `w`/`width` (times `dpr`) without `h`/`height` — imgix's `w` alone keeps
///   the aspect ratio (docs.imgix.com/apis/rendering/size/w: "the height will be scaled").
/// - `wikimedia`: a thumbnail `…/thumb/a/ab/Name.jpg/220px-Name.jpg` is 220 px wide: the
///   pattern of Wikimedia's thumbnail handler (wikimedia/operations-software-thumbor-plugins
///   26ebba5a, `wikimedia_thumbor/handler/images/images.py`, `ImagesHandler.regex`: optional
///   `qlow-`, `lossy-`, `lossless-`, `pageN-`, `langX-`, then `(?P<width>\d+)px-`), which
///   MediaWiki writes as `{width}px-{name}`. A `thumb` folder is required: a file NAMED
///   `Commons-logo-31px.png` is an original, not a thumbnail.
/// - `@Nx`: Apple's scale suffix (`icon@2x.png`, Human Interface Guidelines, "Images")
///   multiplies dimensions found by another rule by N; alone it states no size.
///
/// Units. Every convention above documents its sizes in pixels, so they are read as pixels.
/// An app whose own image URLs carry sizes in points (`--url-units points`) passes its
/// device's scale as `pointScale`: each size is multiplied by it (w × s by h × s, a cost
/// × s²) unless the URL states its own pixel ratio (`@Nx`, `dpr`), which already gives pixels.
///
/// Both a width and a height are needed (a missing one is never guessed). A dimension
/// of 0, above 100,000 px, or a cost above the object limit is not believed. Given the
/// response's encoded size, an inference whose decoded bitmap (width × height × 4) is
/// smaller than it is rejected — a raster image decodes to at least its encoded bytes in
/// practice (a compressed format's whole point), so such a size is a folder name, not the
/// image — and the next rule is tried; the rejection is reported, never silent. Any input
/// is safe (the parser is fuzzed: `scripts/fuzz url`, which asserts these invariants).
///
/// Complexity: O(length of the URL); the path's segment list is the only allocation.
public enum ImageURLDimensions {
    public enum Rule: String, Sendable, CaseIterable {
        case query, cloudinary, thumbor, thumborFitIn = "thumbor-fit-in", aspectRatio = "aspect-ratio", filename
    }

    /// The conventions that state a width alone (no height).
    public enum WidthRule: String, Sendable, CaseIterable {
        case queryWidth = "query-width", wikimedia
    }

    public typealias Width = (width: UInt32, rule: WidthRule)

    /// The largest dimension believed: no image a cache would hold is wider.
    static let largestDimension: UInt64 = 100_000

    public typealias Found = (width: UInt32, height: UInt32, rule: Rule)

    /// What the URL states, without the plausibility check (no encoded size known).
    public static func infer(_ url: String) -> Found? {
        infer(url, encodedSize: 0).found
    }

    public static func infer(_ bytes: UnsafeRawBufferPointer) -> Found? {
        infer(bytes, encodedSize: 0).found
    }

    /// The first rule's dimensions whose decoded cost is at least `encodedSize`, and the first
    /// inference rejected for being below it (nil when none was).
    public static func infer(_ url: String, encodedSize: Int, pointScale: Double = 1) -> (found: Found?, rejected: Found?) {
        var url = url
        return url.withUTF8 { infer(UnsafeRawBufferPointer($0), encodedSize: encodedSize, pointScale: pointScale) }
    }

    /// `pointScale`: pixels per point when the URL's sizes are points (1: they are pixels).
    public static func infer(_ bytes: UnsafeRawBufferPointer, encodedSize: Int, pointScale: Double = 1) -> (found: Found?, rejected: Found?) {
        let queryStart = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
        let fragmentStart = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        let pathEnd = min(queryStart, fragmentStart)
        let path = UnsafeRawBufferPointer(rebasing: bytes[..<pathEnd])
        let query = queryStart < fragmentStart ? UnsafeRawBufferPointer(rebasing: bytes[(queryStart + 1)..<fragmentStart]) : UnsafeRawBufferPointer(start: nil, count: 0)
        let suffixScale = appleScale(path)
        var rejected: Found?
        // Each rule in order; an implausible answer is remembered and the next rule tried.
        // A URL stating its pixel ratio (@Nx, dpr) gives pixels; otherwise points × pointScale.
        func accept(_ found: (Double, Double)?, _ rule: Rule, statesRatio: Bool = false) -> Found? {
            let scale = suffixScale != 1 || statesRatio ? Double(suffixScale) : pointScale
            guard let found, let dimensions = checked(found.0 * scale, found.1 * scale, rule) else { return nil }
            guard let cost = SizeLimits.pixelCost(width: dimensions.width, height: dimensions.height), cost >= encodedSize else {
                if rejected == nil { rejected = dimensions }
                return nil
            }
            return dimensions
        }
        let queried = fromQuery(query)
        let querySize = queried.flatMap { query in query.height.map { (query.width, $0) } }
        if let found = accept(querySize, .query, statesRatio: queried?.statesRatio ?? false) {
            return (found, rejected)
        }
        // The path's segments (after the scheme and host).
        var segments = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
        if let first = segments.first, first.last == UInt8(ascii: ":") { segments.removeFirst(min(2, segments.count)) }
        let folders = segments.dropLast()
        var cloudinary: (Double, Double, Bool)?
        for segment in folders where cloudinary == nil { cloudinary = fromCloudinary(UnsafeRawBufferPointer(rebasing: segment)) }
        if let found = accept(cloudinary.map { ($0.0, $0.1) }, .cloudinary, statesRatio: cloudinary?.2 ?? false) { return (found, rejected) }
        let thumbor = fromThumbor(folders)
        if let found = accept(thumbor.map { ($0.0, $0.1) }, thumbor?.fitIn == true ? .thumborFitIn : .thumbor) { return (found, rejected) }
        if let found = accept(fromAspectRatio(segments[...]), .aspectRatio) { return (found, rejected) }
        if let last = segments.last, let found = accept(fromFilename(UnsafeRawBufferPointer(rebasing: last)), .filename) {
            return (found, rejected)
        }
        return (nil, rejected)
    }

    private static func checked(_ width: Double, _ height: Double, _ rule: Rule) -> Found? {
        let limit = Double(largestDimension)
        guard width >= 1, height >= 1, width <= limit, height <= limit else { return nil }
        let w = UInt32(width.rounded()), h = UInt32(height.rounded())
        guard SizeLimits.pixelCost(width: w, height: h) != nil else { return nil }
        return (w, h, rule)
    }

    /// The width a URL states without a height (`query-width`, `wikimedia`), for URLs whose
    /// `infer` finds no full size; nil when none, or outside 1…100,000 px. O(URL length).
    public static func width(_ url: String) -> Width? {
        var url = url
        return url.withUTF8 { width(UnsafeRawBufferPointer($0)) }
    }

    public static func width(_ bytes: UnsafeRawBufferPointer) -> Width? {
        let queryStart = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
        let fragmentStart = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        let path = UnsafeRawBufferPointer(rebasing: bytes[..<min(queryStart, fragmentStart)])
        func checkedWidth(_ value: Double, _ rule: WidthRule) -> Width? {
            guard value >= 1, value <= Double(largestDimension) else { return nil }
            return (UInt32(value.rounded()), rule)
        }
        if queryStart < fragmentStart, let queried = fromQuery(UnsafeRawBufferPointer(rebasing: bytes[(queryStart + 1)..<fragmentStart])),
           queried.height == nil {
            return checkedWidth(queried.width, .queryWidth)
        }
        let segments = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
        guard let last = segments.last, segments.dropLast().contains(where: { matches(UnsafeRawBufferPointer(rebasing: $0), "thumb") }),
              let width = wikimediaWidth(UnsafeRawBufferPointer(rebasing: last))
        else { return nil }
        return checkedWidth(width, .wikimedia)
    }

    /// `220px-Name.jpg`, `lossy-page1-220px-Name.tif.jpg`: the digits right before the first
    /// `px-`, starting the name or after a `-`. O(name length).
    private static func wikimediaWidth(_ name: UnsafeRawBufferPointer) -> Double? {
        var index = name.startIndex
        while index + 3 <= name.endIndex {
            if name[index] == UInt8(ascii: "p"), name[index + 1] == UInt8(ascii: "x"), name[index + 2] == UInt8(ascii: "-") {
                let before = UnsafeRawBufferPointer(rebasing: name[..<index])
                let start = before.lastIndex(of: UInt8(ascii: "-")).map { $0 + 1 } ?? before.startIndex
                return wholeNumber(UnsafeRawBufferPointer(rebasing: before[start...]))
            }
            index += 1
        }
        return nil
    }

    /// `w=`/`width=` and `h=`/`height=` (the height may be absent), times `dpr=`; and whether a
    /// `dpr` was given. Nil without a width.
    private static func fromQuery(_ query: UnsafeRawBufferPointer) -> (width: Double, height: Double?, statesRatio: Bool)? {
        guard !query.isEmpty else { return nil }
        var width: Double?, height: Double?, dpr = 1.0, statesRatio = false
        for pair in query.split(separator: UInt8(ascii: "&")) {
            let pair = UnsafeRawBufferPointer(rebasing: pair)
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = UnsafeRawBufferPointer(rebasing: pair[..<equals])
            let value = UnsafeRawBufferPointer(rebasing: pair[(equals + 1)...])
            if matches(name, "w") || matches(name, "width") {
                width = wholeNumber(value)
            } else if matches(name, "h") || matches(name, "height") {
                height = wholeNumber(value)
            } else if matches(name, "dpr"), let ratio = decimal(value), ratio > 0, ratio <= 5 {
                dpr = ratio
                statesRatio = true
            }
        }
        guard let width else { return nil }
        return (width * dpr, height.map { $0 * dpr }, statesRatio)
    }

    /// `w_300,h_200,c_fill` (any order), times `dpr_2.0`; and whether a `dpr_` was given.
    private static func fromCloudinary(_ segment: UnsafeRawBufferPointer) -> (Double, Double, Bool)? {
        guard segment.contains(UInt8(ascii: "_")) else { return nil }
        var width: Double?, height: Double?, dpr = 1.0, statesRatio = false
        for part in segment.split(separator: UInt8(ascii: ",")) {
            let part = UnsafeRawBufferPointer(rebasing: part)
            guard part.count > 2, part[1] == UInt8(ascii: "_") else {
                if part.count > 4, matches(UnsafeRawBufferPointer(rebasing: part.prefix(4)), "dpr_"),
                   let ratio = decimal(UnsafeRawBufferPointer(rebasing: part.dropFirst(4))), ratio > 0, ratio <= 5 {
                    dpr = ratio
                    statesRatio = true
                }
                continue
            }
            let value = UnsafeRawBufferPointer(rebasing: part.dropFirst(2))
            if part[0] == UInt8(ascii: "w") { width = wholeNumber(value) }
            if part[0] == UInt8(ascii: "h") { height = wholeNumber(value) }
        }
        guard let width, let height else { return nil }
        return (width * dpr, height * dpr, statesRatio)
    }

    /// Thumbor's size segment, found by walking its URL layout: `unsafe` or a signature,
    /// then the optional `debug`, `meta`, `trim…`, crop `AxB:CxD` and `…fit-in` segments, in
    /// thumbor/url.py's order; else a `fit-in` segment directly followed by the size. And
    /// whether the size is a fit-in box. O(segments).
    private static func fromThumbor(_ segments: ArraySlice<Slice<UnsafeRawBufferPointer>>) -> (Double, Double, fitIn: Bool)? {
        guard let marker = segments.firstIndex(where: { isThumborMarker(UnsafeRawBufferPointer(rebasing: $0)) }) else {
            for index in segments.indices.dropLast() where isFitIn(UnsafeRawBufferPointer(rebasing: segments[index])) {
                if let size = dimensionsPair(UnsafeRawBufferPointer(rebasing: segments[index + 1])) { return (size.0, size.1, true) }
            }
            return nil
        }
        var index = marker + 1
        var fitIn = false
        let optional: [(UnsafeRawBufferPointer) -> Bool] = [
            { matches($0, "debug") }, { matches($0, "meta") },
            { $0.count >= 4 && matches(UnsafeRawBufferPointer(rebasing: $0.prefix(4)), "trim") },
            { $0.contains(UInt8(ascii: ":")) && $0.contains(UInt8(ascii: "x")) },  // crop AxB:CxD
            { $0.count >= 6 && matches(UnsafeRawBufferPointer(rebasing: $0.suffix(6)), "fit-in") },
        ]
        for (position, isOption) in optional.enumerated() where index < segments.endIndex && isOption(UnsafeRawBufferPointer(rebasing: segments[index])) {
            fitIn = fitIn || position == optional.count - 1
            index += 1
        }
        guard index < segments.endIndex, let size = dimensionsPair(UnsafeRawBufferPointer(rebasing: segments[index])) else { return nil }
        return (size.0, size.1, fitIn)
    }

    /// `fit-in`, `adaptive-fit-in`, `full-fit-in`, `adaptive-full-fit-in` (url.py's `Url.fit_in`).
    private static func isFitIn(_ segment: UnsafeRawBufferPointer) -> Bool {
        matches(segment, "fit-in") || matches(segment, "adaptive-fit-in") || matches(segment, "full-fit-in") || matches(segment, "adaptive-full-fit-in")
    }

    /// `unsafe`, or a Thumbor signature: URL-safe base64 of a 20-byte HMAC-SHA1, 28 characters
    /// ending `=` (thumbor's `Signer`, docs "Security").
    private static func isThumborMarker(_ segment: UnsafeRawBufferPointer) -> Bool {
        if matches(segment, "unsafe") { return true }
        guard segment.count == 28, segment.last == UInt8(ascii: "=") else { return false }
        return segment.dropLast().allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// `16x9/1200/…` or `16x9/1200.jpg`: a ratio of two terms 1…32, then the width as a folder
    /// or as the last segment's name; the height follows. O(segments).
    private static func fromAspectRatio(_ segments: ArraySlice<Slice<UnsafeRawBufferPointer>>) -> (Double, Double)? {
        for index in segments.indices.dropLast() {
            let next = UnsafeRawBufferPointer(rebasing: segments[index + 1])
            guard let ratio = dimensionsPair(UnsafeRawBufferPointer(rebasing: segments[index])),
                  (1...32).contains(ratio.0), (1...32).contains(ratio.1),
                  !segments[index].contains(UInt8(ascii: "-")),  // a flip is Thumbor's, not a ratio
                  let width = wholeNumber(next) ?? (index + 1 == segments.endIndex - 1 ? wholeNumber(fileStem(next)) : nil)
            else { continue }
            return (width, (width * ratio.1 / ratio.0).rounded())
        }
        return nil
    }

    /// `300x200` or `-300x-200` (Thumbor flips).
    private static func dimensionsPair(_ segment: UnsafeRawBufferPointer) -> (Double, Double)? {
        guard let x = segment.firstIndex(of: UInt8(ascii: "x")) else { return nil }
        var left = UnsafeRawBufferPointer(rebasing: segment[..<x])
        var right = UnsafeRawBufferPointer(rebasing: segment[(x + 1)...])
        if left.first == UInt8(ascii: "-") { left = UnsafeRawBufferPointer(rebasing: left.dropFirst()) }
        if right.first == UInt8(ascii: "-") { right = UnsafeRawBufferPointer(rebasing: right.dropFirst()) }
        guard let width = wholeNumber(left), let height = wholeNumber(right) else { return nil }
        return (width, height)
    }

    /// `name-300x200.jpg`, `name_300x200@2x.png`, `icon-196x196.v503bbf1.png`.
    private static func fromFilename(_ name: UnsafeRawBufferPointer) -> (Double, Double)? {
        guard name.contains(UInt8(ascii: ".")) else { return nil }
        var stem = fileStem(name)
        if let dot = stem.lastIndex(of: UInt8(ascii: ".")), isVersion(UnsafeRawBufferPointer(rebasing: stem[(dot + 1)...])) {
            stem = UnsafeRawBufferPointer(rebasing: stem[..<dot])
        }
        guard let mark = stem.lastIndex(where: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) else { return nil }
        return dimensionsPair(UnsafeRawBufferPointer(rebasing: stem[(mark + 1)...]))
    }

    /// A file name without its extension and `@Nx` suffix: `160@2x.jpg` → `160`.
    private static func fileStem(_ name: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var stem = name.lastIndex(of: UInt8(ascii: ".")).map { UnsafeRawBufferPointer(rebasing: name[..<$0]) } ?? name
        if let at = stem.lastIndex(of: UInt8(ascii: "@")) { stem = UnsafeRawBufferPointer(rebasing: stem[..<at]) }
        return stem
    }

    /// A content hash or version between the name and the extension: 4 to 64 ASCII letters
    /// and digits, at least one a digit (`v503bbf1`, `55e7cbb9ba48`; not `min`).
    private static func isVersion(_ part: UnsafeRawBufferPointer) -> Bool {
        guard (4...64).contains(part.count) else { return false }
        var digits = 0
        for byte in part {
            let lower = byte | 0x20
            if byte &- UInt8(ascii: "0") < 10 { digits += 1 } else if !(lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) { return false }
        }
        return digits > 0
    }

    /// N from a final `@Nx` before the extension (1 when absent or implausible).
    private static func appleScale(_ path: UnsafeRawBufferPointer) -> Int {
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) ?? (path.isEmpty ? nil : path.startIndex - 1) else { return 1 }
        let name = UnsafeRawBufferPointer(rebasing: path[(slash + 1)...])
        guard let at = name.lastIndex(of: UInt8(ascii: "@")), at + 2 < name.endIndex,
              name[at + 2] == UInt8(ascii: "x"), (UInt8(ascii: "1")...UInt8(ascii: "4")).contains(name[at + 1]),
              at + 3 == name.endIndex || name[at + 3] == UInt8(ascii: ".")
        else { return 1 }
        return Int(name[at + 1] - UInt8(ascii: "0"))
    }

    private static func matches(_ bytes: UnsafeRawBufferPointer, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        for index in 0..<bytes.count {
            let byte = bytes[index]
            let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            if lower != word.utf8Start[index] { return false }
        }
        return true
    }

    /// 1 to 6 digits (dimensions past 100,000 are refused later anyway).
    private static func wholeNumber(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard !bytes.isEmpty, bytes.count <= 6 else { return nil }
        var value = 0
        for byte in bytes {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return Double(value)
    }

    /// `2`, `2.0`, `1.5`: a short decimal.
    private static func decimal(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard !bytes.isEmpty, bytes.count <= 8 else { return nil }
        var value = 0.0, scale = 0.0
        for byte in bytes {
            if byte == UInt8(ascii: "."), scale == 0 {
                scale = 1
                continue
            }
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            if scale > 0 {
                scale /= 10
                value += Double(digit) * scale
            } else {
                value = value * 10 + Double(digit)
            }
        }
        return value
    }
}
