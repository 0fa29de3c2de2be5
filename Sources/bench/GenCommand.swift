import ArgumentParser
import CacheWorkbench

struct GenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gen",
        abstract: "Generate a deterministic trace: an image feed (CSV) or an app's HTTP session (HAR).",
        discussion: """
            Images are requested with Zipf popularity; each request asks for a thumbnail \
            (450×450), a feed cell (1170 wide) or a full-screen view (1290 wide) of an image with \
            a photo aspect ratio; encoded sizes come from pixels × bytes-per-pixel × lognormal \
            noise; arrivals are Poisson. The same options and seed give the same file.

            --format har writes an app session for --mode http instead: --images distinct \
            resources (default requests / 20) with Zipf popularity, each of a caching class \
            servers mix (max-age + ETag images with ?w= variants and CDN Age, immutable \
            static files, no-cache feeds with Vary, private API calls with Authorization, \
            no-store, Last-Modified only, Expires, must-revalidate, Vary: Accept, 404s), \
            content that changes over time, 304s where the recording client revalidated, \
            about 0.5% 503s, and timings. Default rate 2 requests/s.

            Examples:
              bench gen --requests 50000 --seed 1 --out Traces/default.csv
              bench gen --requests 5000000 --keys id --plain --out /tmp/zipf5m.csv
              bench gen --format har --requests 2000 --out session.har
            """)

    @Option(name: .long, parsing: .unconditional, help: "Number of requests.")
    var requests = 100_000

    @Option(name: .long, parsing: .unconditional, help: "Number of distinct images (default: requests / 25).")
    var images: Int?

    @Option(name: .long, parsing: .unconditional, help: "Zipf exponent of image popularity.")
    var alpha = 0.9

    @Option(name: .long, parsing: .unconditional, help: "Random seed.")
    var seed: UInt64 = 1

    @Option(name: .long, parsing: .unconditional, help: "Mean requests per second of trace time (default 50; 2 for --format har).")
    var rate: Double?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("`csv` (the image feed, default) or `har` (an HTTP session with caching headers, for --mode http).", valueName: "csv|har"))
    var format = "csv"

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
        guard format == "csv" || format == "har" else { throw ValidationError("--format must be csv or har") }
        if format == "har" {
            guard requests <= 10_000_000 else { throw ValidationError("--requests must be at most 10000000 with --format har") }
            if plain || keys != "url" { throw ValidationError("--plain and --keys apply to --format csv") }
        }
        if let rate, !(rate >= 1e-6 && rate <= 1e9) { throw ValidationError("--rate must be from 0.000001 to 1000000000 requests per second") }
        guard ImageFeedSpec.KeyStyle(rawValue: keys) != nil else { throw ValidationError("--keys must be url or id") }
    }

    func run() throws {
        try reportingErrors {
            if let out { try OutputFile.check(outputs: [("--out", out)], inputs: []) }
            let lock = try OutputLock.claim([out])  // a second gen (or run) writing the same file is refused
            defer { withExtendedLifetime(lock) {} }
            if format == "har" {
                var spec = HTTPSessionSpec()
                spec.requests = requests
                spec.resources = images
                spec.alpha = alpha
                spec.seed = seed
                spec.rate = rate ?? 2
                try HTTPSessionGenerator(spec: spec).write(to: out)
                return
            }
            var spec = ImageFeedSpec()
            spec.requests = requests
            spec.images = images
            spec.alpha = alpha
            spec.seed = seed
            spec.rate = rate ?? 50
            spec.keys = ImageFeedSpec.KeyStyle(rawValue: keys)!
            try TraceExport.write(ImageFeedGenerator(spec: spec), to: out, shape: plain ? .plain : .native(withOp: false))
        }
    }
}
