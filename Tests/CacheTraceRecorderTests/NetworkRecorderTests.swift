import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import CacheTraceRecorder

/// The forwarding URLProtocol on this platform's Foundation (corelibs on Linux): it starts
/// its inner task from another queue, because creating it inside startLoading crashes
/// corelibs. Covered: both ways an app calls URLSession (completion handler, async/await),
/// both paths a response takes (the network, the inner session's URLCache — which on
/// corelibs answers only what was stored in it, since corelibs never stores by itself),
/// a 304 revalidation, and a failed connection.
@Suite("CacheTraceRecorder: URLSession transactions through the forwarding URLProtocol", .serialized)
struct NetworkRecorderTests {
    /// Large enough to arrive in many pieces (a forwarding protocol must relay them all).
    static let body = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7) }

    /// /fresh: cacheable for an hour; /etag: must revalidate, 304 on a matching If-None-Match.
    static func server() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { path, head in
            let etag = "\"v1\""
            if path.hasPrefix("/etag"), head.lowercased().contains("if-none-match: \"v1\"") {
                return .init(status: 304, headers: [("ETag", etag), ("Cache-Control", "no-cache")], body: [])
            }
            let control = path.hasPrefix("/fresh") ? "max-age=3600" : "no-cache"
            return .init(
                status: 200,
                headers: [("Content-Type", "image/png"), ("Cache-Control", control), ("ETag", etag), ("Set-Cookie", "session=s3cret"),
                          ("Last-Modified", "Wed, 21 Oct 2026 07:28:00 GMT")],
                body: body)
        }
    }

    static func configuration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = URLCache(memoryCapacity: 4 << 20, diskCapacity: 0, diskPath: nil)
        configuration.requestCachePolicy = .useProtocolCachePolicy
        return configuration
    }

    /// A GET with the app's credentials set, through a completion handler.
    static func get(_ session: URLSession, _ url: String) async throws -> (Data?, Int, Error?) {
        var request = URLRequest(url: URL(string: url)!)
        request.setValue("session=app-secret", forHTTPHeaderField: "Cookie")
        request.setValue("Bearer app-token", forHTTPHeaderField: "Authorization")
        request.setValue("RecorderTest/1", forHTTPHeaderField: "User-Agent")
        return await withCheckedContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                continuation.resume(returning: (data, (response as? HTTPURLResponse)?.statusCode ?? 0, error))
            }.resume()
        }
    }

    @Test("a loopback GET: status, headers as sent and received (no Cookie, Set-Cookie, Authorization), body bytes, start ≤ end")
    func loopbackGet() async throws {
        let server = try Self.server()
        let folder = RecordingFolder()
        let recorder = try TraceRecorder(configuration: .init(folder: folder.url))
        let network = NetworkRecorder(recorder: recorder, configuration: Self.configuration())
        defer { network.invalidate() }
        let session = URLSession(configuration: network.sessionConfiguration)
        let (data, status, error) = try await Self.get(session, "http://127.0.0.1:\(server.port)/fresh/a.png?w=10")
        #expect(error == nil && status == 200 && data.map(Array.init) == Self.body)
        // And through async/await, the other way apps call it.
        let (asyncData, asyncResponse) = try await session.data(from: URL(string: "http://127.0.0.1:\(server.port)/etag/b.png")!)
        #expect(Array(asyncData) == Self.body && (asyncResponse as? HTTPURLResponse)?.statusCode == 200)
        recorder.close()

        let lines = try folder.lines()
        let http = lines.filter { $0["kind"] as? String == "http" }
        #expect(http.count == 2, "\(lines)")
        let first = try #require(http.first)
        #expect(first["method"] as? String == "GET" && first["url"] as? String == "http://127.0.0.1:\(server.port)/fresh/a.png?w=10")
        #expect(first["status"] as? Int == 200 && first["body_bytes"] as? Int == 200_000 && first["source"] as? String == "network")
        #expect(first["error"] == nil)
        let start = try #require(first["start"] as? Int), end = try #require(first["end"] as? Int)
        #expect(start <= end && end == first["t"] as? Int)
        let responseHeaders = try #require(first["response_headers"] as? [String: String])
        let lowered = Dictionary(uniqueKeysWithValues: responseHeaders.map { ($0.key.lowercased(), $0.value) })
        #expect(lowered["cache-control"] == "max-age=3600" && lowered["etag"] == "\"v1\"" && lowered["content-type"] == "image/png")
        #expect(lowered["content-length"] == "200000" && lowered["last-modified"] == "Wed, 21 Oct 2026 07:28:00 GMT")
        let requestHeaders = try #require(first["request_headers"] as? [String: String])
        #expect(requestHeaders["User-Agent"] == "RecorderTest/1")
        // The server got the credentials (requests are not changed); the recording has none.
        #expect(server.received.first?.contains("Cookie: session=app-secret") == true)
        let raw = String(decoding: try Data(contentsOf: folder.url.appendingPathComponent("recording-0.jsonl")), as: UTF8.self)
        for secret in ["app-secret", "app-token", "s3cret", "Authorization", "Cookie"] { #expect(!raw.contains(secret), "\(secret)") }
    }

    @Test("the URLCache path (a second request answered by the inner session's URLCache: source cache) and the revalidation path (a 304)")
    func cacheAndRevalidation() async throws {
        let server = try Self.server()
        let folder = RecordingFolder()
        let recorder = try TraceRecorder(configuration: .init(folder: folder.url))
        let configuration = Self.configuration()
        let cache = try #require(configuration.urlCache)
        let network = NetworkRecorder(recorder: recorder, configuration: configuration)
        defer { network.invalidate() }
        let session = URLSession(configuration: network.sessionConfiguration)
        let fresh = URL(string: "http://127.0.0.1:\(server.port)/fresh/c.png")!
        let (data, response) = try await session.data(from: fresh)
        #expect(data.count == 200_000 && (response as? HTTPURLResponse)?.statusCode == 200)
        // Corelibs never stores a response in a URLCache by itself (docs/foundation-urlcache.md);
        // Darwin's URLSession would have stored this one already. Store it as an app on Linux must.
        if cache.cachedResponse(for: URLRequest(url: fresh)) == nil {
            cache.storeCachedResponse(CachedURLResponse(response: response, data: data), for: URLRequest(url: fresh))
        }
        let (again, againResponse) = try await session.data(from: fresh)
        #expect(again.count == 200_000 && (againResponse as? HTTPURLResponse)?.statusCode == 200)
        // The app revalidates what it holds itself: the server answers 304.
        var conditional = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/etag/d.png")!)
        conditional.setValue("\"v1\"", forHTTPHeaderField: "If-None-Match")
        let (_, notModified) = try await session.data(for: conditional)
        #expect((notModified as? HTTPURLResponse)?.statusCode == 304)
        recorder.close()

        #expect(server.received.filter { $0.contains("/fresh/c.png") }.count == 1, "the second answer came from the URLCache")
        let http = try folder.lines().filter { $0["kind"] as? String == "http" }
        #expect(http.map { $0["source"] as? String } == ["network", "cache", "network"])
        #expect(http.map { $0["status"] as? Int } == [200, 200, 304])
        #expect(http.map { $0["body_bytes"] as? Int } == [200_000, 200_000, 0])
        #expect((http[2]["request_headers"] as? [String: String])?["If-None-Match"] == "\"v1\"")
        let revalidated = (http[2]["response_headers"] as? [String: String] ?? [:]).map { ($0.key.lowercased(), $0.value) }
        #expect(Dictionary(uniqueKeysWithValues: revalidated)["etag"] == "\"v1\"")
    }

    @Test("a refused connection: status 0 and the error, recorded; the app gets the error")
    func refusedConnection() async throws {
        // A port bound but not listening: the connection is refused.
        let closed = try LoopbackHTTPServer(listening: false) { _, _ in .init(status: 200, headers: [], body: []) }
        let port = closed.port
        let folder = RecordingFolder()
        let recorder = try TraceRecorder(configuration: .init(folder: folder.url))
        let network = NetworkRecorder(recorder: recorder, configuration: Self.configuration())
        defer { network.invalidate() }
        let session = URLSession(configuration: network.sessionConfiguration)
        let (_, status, error) = try await Self.get(session, "http://127.0.0.1:\(port)/x.png")
        #expect(error != nil && status == 0)
        recorder.close()
        let http = try folder.lines().filter { $0["kind"] as? String == "http" }
        #expect(http.count == 1 && http.first?["status"] as? Int == 0 && http.first?["body_bytes"] as? Int == 0)
        let message = try #require(http.first?["error"] as? String)
        #expect(message.hasPrefix("NSURLErrorDomain -1004"), "\(message)")
    }
}
