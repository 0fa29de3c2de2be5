import ArgumentParser
import CacheWorkbench

struct GenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gen",
        abstract: "Generate a deterministic image-feed trace (Zipf popularity, three image variants).",
        discussion: """
            Images are requested with Zipf popularity; each request asks for a thumbnail \
            (450×450), a feed cell (1170 wide) or a full-screen view (1290 wide) of an image with \
            a photo aspect ratio; encoded sizes come from pixels × bytes-per-pixel × lognormal \
            noise; arrivals are Poisson. The same options and seed give the same file.

            Examples:
              bench gen --requests 50000 --seed 1 --out Traces/default.csv
              bench gen --requests 5000000 --keys id --plain --out /tmp/zipf5m.csv
            """)

    @Option(name: .long, parsing: .unconditional, help: "Number of requests.")
    var requests = 100_000

    @Option(name: .long, parsing: .unconditional, help: "Number of distinct images (default: requests / 25).")
    var images: Int?

    @Option(name: .long, parsing: .unconditional, help: "Zipf exponent of image popularity.")
    var alpha = 0.9

    @Option(name: .long, parsing: .unconditional, help: "Random seed.")
    var seed: UInt64 = 1

    @Option(name: .long, parsing: .unconditional, help: "Mean requests per second of trace time.")
    var rate = 50.0

    @Option(name: .long, parsing: .unconditional, help: "Key style: `url` (CDN-style URLs) or `id` (integers, cheapest for policy runs).")
    var keys = "url"

    @Flag(name: .long, help: "Write the plain `timestamp,key,size` shape (no header, no dimensions) other simulators read.")
    var plain = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Output file (default: standard output).", valueName: "file"))
    var out: String?

    func validate() throws {
        guard requests >= 0 else { throw ValidationError("--requests must not be negative") }
        if let images, !(1...100_000_000).contains(images) { throw ValidationError("--images must be from 1 to 100000000") }
        guard alpha >= 0, alpha <= 100, alpha.isFinite else { throw ValidationError("--alpha must be from 0 to 100") }
        guard rate >= 1e-6, rate <= 1e9 else { throw ValidationError("--rate must be from 0.000001 to 1000000000 requests per second") }
        guard ImageFeedSpec.KeyStyle(rawValue: keys) != nil else { throw ValidationError("--keys must be url or id") }
    }

    func run() throws {
        try reportingErrors {
            var spec = ImageFeedSpec()
            spec.requests = requests
            spec.images = images
            spec.alpha = alpha
            spec.seed = seed
            spec.rate = rate
            spec.keys = ImageFeedSpec.KeyStyle(rawValue: keys)!
            if let out { try OutputFile.check(outputs: [("--out", out)], inputs: []) }
            try TraceExport.write(ImageFeedGenerator(spec: spec), to: out, shape: plain ? .plain : .native(withOp: false))
        }
    }
}
