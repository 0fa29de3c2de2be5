import WorkbenchCore
import WorkbenchTraces
import WorkbenchMetrics
/// `URLRequest.CachePolicy`: what the client asks of the cache for one request
/// (`--request-policy`). What each does under each profile is `HTTPCacheModel`'s business;
/// the names are Apple's, so results read like app code.
public enum RequestCachePolicy: String, Sendable, CaseIterable {
    /// The protocol's rules (freshness, validation): what apps get by default.
    case useProtocolCachePolicy
    /// Always from the origin; the response may still be stored.
    case reloadIgnoringLocalCacheData
    /// As above, and intermediaries too (the same for a client cache). Apple's SDK header
    /// marks it "Unimplemented".
    case reloadIgnoringLocalAndRemoteCacheData
    /// The cached response whatever its age, else the origin.
    case returnCacheDataElseLoad
    /// The cached response whatever its age, else fail (offline).
    case returnCacheDataDontLoad
    /// Validate a cached response with the origin before every use.
    case reloadRevalidatingCacheData

    public static func named(_ text: String) throws -> RequestCachePolicy {
        guard let policy = allCases.first(where: { $0.rawValue.lowercased() == text.trimmingSpaces.lowercased() }) else {
            throw WorkbenchError("--request-policy must be one of \(allCases.map(\.rawValue).joined(separator: ", ")), not \(ErrorText.quote(text))")
        }
        return policy
    }
}
