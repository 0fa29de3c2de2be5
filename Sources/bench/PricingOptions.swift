import ArgumentParser
import CacheWorkbench

/// How an object is priced: shared by `run`, `sweep` (through ReplayArguments) and `price`, so
/// the three accept the same spellings with the same help.
struct PricingOptions: ParsableArguments {
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("What an object costs: `pixels` (width × height × 4, else size), `encoded` (the size column), or `auto` (pixels for memory backends when the pixel rules price the trace's images: dimensions, a URL convention, a ratio or the decoded-size estimate; `bench price` audits pixels).", valueName: "model"))
    var cost = "auto"

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Pixel cost for requests without dimensions: `url` reads them from image-CDN URL conventions (w=/h= queries, Cloudinary w_,h_, Thumbor WxH, -WxH file names, @2x), `off` does not (default: url).", valueName: "url|off"))
    var inferDimensions: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Pixel cost for requests still without dimensions: decoded bytes = R × encoded bytes, or per image type from the content type or URL extension (jpeg=8,png=4,gif=12; other=R for the rest) (default: charge the encoded size, counted and reported).", valueName: "R|TYPE=R,…"))
    var decodedRatio: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Pixel cost for requests still without dimensions or ratio: the decoded size estimated from the encoded size and the format's median bits per pixel (JPEG 2.0, PNG 3.8, GIF 6.7, AVIF 1.4, WebP 1.3; HTTP Archive 2024), at the centre of its range or at its low (½×) or high (2×) end; `off` charges the encoded size (default: central).", valueName: "central|low|high|off"))
    var estimate: String?
}
