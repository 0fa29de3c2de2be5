import Foundation

/// The default trace shipped in Traces/: 50,000 requests of the image-feed generator.
/// Made by `bench gen --requests 50000 --seed 1 --out Traces/default.csv` (a test
/// checks the file still equals that command's output).
public enum BundledTrace {
    public static let relativePath = "Traces/default.csv"

    public static var spec: ImageFeedSpec {
        var spec = ImageFeedSpec()
        spec.requests = 50_000
        spec.seed = 1
        return spec
    }

    /// Looks in the current folder, then in the checkout this binary was built from.
    public static func path() throws -> String {
        let candidates = [relativePath, SourceCheckout.root.appendingPathComponent(relativePath).path]
        if let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) {
            return found
        }
        throw WorkbenchError(
            "the bundled trace \(relativePath) is missing; pass --trace FILE, or remake it with: bench gen --requests 50000 --seed 1 --out \(relativePath)")
    }
}
