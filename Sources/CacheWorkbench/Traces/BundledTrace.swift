import WorkbenchCore
import WorkbenchMetrics
import Foundation

/// The traces shipped in Traces/ (a test checks each still equals its command's output):
/// - `default.csv`, 50,000 requests of the image-feed generator, what `bench run` replays
///   without `--trace`: `bench gen --requests 50000 --seed 1 --out Traces/default.csv`;
/// - `http-session.har.gz`, 2,000 requests of the HTTP-session generator, what `--mode http`
///   replays without `--trace`: `bench gen --format har --requests 2000 --seed 1 | gzip -n -9`.
public enum BundledTrace {
    public static let relativePath = "Traces/default.csv"
    public static let httpRelativePath = "Traces/http-session.har.gz"

    public static var spec: ImageFeedSpec {
        var spec = ImageFeedSpec()
        spec.requests = 50_000
        spec.seed = 1
        return spec
    }

    public static var httpSpec: HTTPSessionSpec {
        var spec = HTTPSessionSpec()
        spec.requests = 2_000
        spec.seed = 1
        return spec
    }

    /// The bundled trace (the HTTP session for `http`). Looks in the current folder, then in
    /// the checkout this binary was built from.
    public static func path(http: Bool = false) throws -> String {
        let relative = http ? httpRelativePath : relativePath
        let candidates = [relative, SourceCheckout.root.appendingPathComponent(relative).path]
        if let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) {
            return found
        }
        let remake = http ? "bench gen --format har --requests 2000 --seed 1 | gzip -n -9 > \(relative)" : "bench gen --requests 50000 --seed 1 --out \(relative)"
        throw WorkbenchError("the bundled trace \(relative) is missing; pass --trace FILE, or remake it with: \(remake)")
    }
}
