import Foundation
import Testing
@testable import CacheWorkbench
@testable import WorkbenchReports
@testable import WorkbenchCommands
@testable import WorkbenchCore
@testable import WorkbenchMetrics
@testable import WorkbenchTraces
@testable import WorkbenchHTTP
@testable import WorkbenchBackends
@testable import WorkbenchSimulation
@testable import WorkbenchExperiments

/// A HAR with `entries` entries, written by `creator`, each request sending `agents[i]`
/// as its User-Agent (nil: none).
private func har(creator: String, agents: [String?]) -> String {
    let entries = agents.enumerated().map { index, agent in
        let headers = agent.map { #"[{"name":"User-Agent","value":"\#($0)"}]"# } ?? "[]"
        return #"{"startedDateTime":"2026-11-28T05:00:0\#(index).000Z","request":{"method":"GET","url":"https://img.example/\#(index).jpg","headers":\#(headers)},"response":{"status":200,"headers":[{"name":"Cache-Control","value":"max-age=60"}],"content":{"size":\#(100 * (index + 1)),"mimeType":"image/jpeg"}}}"#
    }
    return #"{"log":{"version":"1.2","creator":{"name":"\#(creator)","version":"5.19.0"},"entries":[\#(entries.joined(separator: ","))]}}"#
}

private func notes(_ text: String) throws -> [String] {
    let folder = TemporaryFolder()
    return try TraceFile(path: folder.file("p.har", text)).readingNotes()
}

private let app = "MyApp/3.1 CFNetwork/1494.0.7 Darwin/23.4.0"
private let browser = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"

@Suite("Proxy recordings: a HAR of what missed the app's caches", .onTestWorkers)
struct ProxyHARTests {
    @Test("a Proxyman HAR of an app's URLSession traffic: said, with the counts the rule rests on")
    func proxyman() throws {
        let found = try notes(har(creator: "Proxyman", agents: [app, app, app]))
        #expect(found == ["a proxy recording (recorded by 'Proxyman 5.19.0', an HTTP proxy; 3 of 3 requests carry an app networking stack's User-Agent (CFNetwork/ or Darwin/)): it holds only what missed the client's own caches (an app's memory and disk caches, URLCache, a browser's cache), so a memory cache's reuse is not in it and a replay's hit ratio understates the app's; record the app itself with the CacheTraceRecorder library (docs/recorder.md) for its own lookups and outcomes"])
    }

    @Test("by User-Agent alone: most requests from CFNetwork/Darwin; half or fewer is not enough; a browser's HAR is not one")
    func byUserAgent() throws {
        let most = try notes(har(creator: "test", agents: [app, app, app, browser]))
        #expect(most.count == 1 && most[0].hasPrefix("a proxy recording (3 of 4 requests carry an app networking stack's User-Agent (CFNetwork/ or Darwin/)): "))
        #expect(try notes(har(creator: "test", agents: [app, browser])).isEmpty)
        #expect(try notes(har(creator: "WebInspector", agents: [browser, browser, nil])).isEmpty)
        // Each proxy the rule names, whatever the User-Agents.
        for creator in ["Charles Proxy", "mitmproxy", "HTTP Toolkit", "Fiddler"] {
            let found = try notes(har(creator: creator, agents: [browser]))
            #expect(found.count == 1 && found[0].hasPrefix("a proxy recording (recorded by '\(creator) 5.19.0', an HTTP proxy; 0 of 1 requests carry"), "\(creator)")
        }
    }

    @Test("bench stats prints it with the session lines; bench run says it as a note")
    func commands() throws {
        let folder = TemporaryFolder()
        let path = folder.file("p.har", har(creator: "Proxyman", agents: [app, app]))
        let stats = try bench(["stats", path])
        #expect(stats.status == 0 && stats.out.contains("note: a proxy recording (recorded by 'Proxyman 5.19.0', an HTTP proxy; 2 of 2 requests carry"))
        let run = try bench(["run", "--trace", path, "--backend", "lru", "--capacity", "1MB"])
        #expect(run.status == 0 && run.err.contains("bench: note: a proxy recording (recorded by 'Proxyman 5.19.0'"))
    }

    /// The shared HARs (../shared/data/har, README there): only the Charles, mitmproxy and
    /// Fiddler exports were recorded by a proxy; no request in any carries CFNetwork or Darwin.
    static let shared = SourceCheckout.root.deletingLastPathComponent().appendingPathComponent("shared/data/har").path

    @Test("the shared HARs: exactly the proxies' exports are called proxy recordings",
          .enabled(if: FileManager.default.fileExists(atPath: shared)))
    func sharedHARs() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.shared).filter { $0.hasSuffix(".har") }.sorted()
        var called: [String] = []
        for file in files where try TraceFile(path: Self.shared + "/" + file).readingNotes().contains(where: { $0.hasPrefix("a proxy recording") }) {
            called.append(file)
        }
        #expect(called == ["charles4_single_entry.har", "fiddler4_ie11_304s.har", "mitmproxy_export_example_com.har"])
    }
}
