import WorkbenchCore
import WorkbenchMetrics
/// A HAR recorded from outside its client: by an HTTP proxy (its creator is Charles,
/// Proxyman, mitmproxy, HTTP Toolkit or Fiddler), or of an app's own networking stack
/// (most requests carry a User-Agent with `CFNetwork/` or `Darwin/`, as URLSession sends by
/// default). Such a recording holds only what missed the client's own caches (an app's
/// memory and disk image caches, URLCache; a browser's cache): the reuse a memory cache
/// lives on is not in it, so a replay's hit ratio understates what the app's cache does.
/// `bench stats` and the notes of every replay say so, with the counts the rule rests on,
/// and point to the recorder. O(requests).
struct ProxyRecording {
    /// Lower-cased parts of `creator.name` that name a proxy.
    static let proxyCreators = ["charles", "proxyman", "mitmproxy", "http toolkit", "httptoolkit", "fiddler"]
    /// User-Agent tokens of Apple's networking stack (URLSession's default User-Agent is
    /// `App/1 CFNetwork/1494.0.7 Darwin/23.4.0`).
    static let appStackTokens = ["CFNetwork/", "Darwin/"]

    /// The creator as written (`Charles Proxy 4.6.3`) when it is a proxy.
    var proxy: String?
    /// Requests whose User-Agent carries an app-stack token, of all requests read.
    var appRequests: Int
    var requests: Int

    /// nil when the HAR is neither a proxy's nor mostly an app stack's requests.
    init?(_ reading: HARReading) {
        let name = reading.creator?.name ?? ""
        let lower = name.lowercased()
        proxy = Self.proxyCreators.contains { lower.contains($0) }
            ? [name, reading.creator?.version ?? ""].filter { !$0.isEmpty }.joined(separator: " ") : nil
        requests = reading.requests.count
        appRequests = reading.requests.filter { request in
            guard let agent = request.http?.requestHeaders["user-agent"] else { return false }
            return Self.appStackTokens.contains { agent.contains($0) }
        }.count
        guard proxy != nil || appRequests * 2 > requests else { return nil }
    }

    var note: String {
        var because: [String] = []
        if let proxy { because.append("recorded by \(ErrorText.quote(proxy, limit: 40)), an HTTP proxy") }
        because.append("\(appRequests) of \(requests) requests carry an app networking stack's User-Agent (CFNetwork/ or Darwin/)")
        return "a proxy recording (" + because.joined(separator: "; ") + "): it holds only what missed the client's own caches "
            + "(an app's memory and disk caches, URLCache, a browser's cache), so a memory cache's reuse is not in it and a replay's hit ratio "
            + "understates the app's; record the app itself with the CacheTraceRecorder library (docs/recorder.md) for its own lookups and outcomes"
    }
}
