import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records every transaction of the URLSessions made with `sessionConfiguration`: method,
/// URL, status, request and response headers, body bytes, start and end, and whether the
/// URLCache answered without the network.
///
/// How: a forwarding `URLProtocol` registered first in the configuration's
/// `protocolClasses` hands each request to an inner session (a copy of the app's
/// configuration: its URLCache, cache policy, timeouts and headers) and relays what comes
/// back. A URLProtocol rather than task metrics alone because it sees the request headers
/// as sent and the response as received on both Darwin and corelibs Foundation, and the app
/// installs it once per configuration instead of adopting a delegate on every session.
/// Whether URLCache answered: the inner task's metrics say so on Darwin; corelibs
/// Foundation delivers no metrics, so there the response is compared with the URLCache's
/// entry looked up just before the task started (corelibs hands out the cached object
/// itself). Corelibs never stores responses in a URLCache by itself (it only reads them):
/// on Linux only what the app stored is answered from the cache.
///
/// One NetworkRecorder is active in a process at a time (the last made); `invalidate()`
/// ends it. Requests are not changed.
public final class NetworkRecorder: @unchecked Sendable {
    /// Give this configuration to the app's URLSession. Its `urlCache` is moved to the inner
    /// session, so caching happens once, where the recorder can see it.
    public let sessionConfiguration: URLSessionConfiguration
    let recorder: TraceRecorder
    let innerSession: URLSession
    let innerConfiguration: URLSessionConfiguration
    private let delegate = InnerSessionDelegate()

    nonisolated(unsafe) private static var activeRecorder: NetworkRecorder?
    private static let activeLock = NSLock()
    static var active: NetworkRecorder? { activeLock.withLock { activeRecorder } }

    /// Makes `configuration` (by default a copy of `.default`) record into `recorder`.
    public init(recorder: TraceRecorder, configuration: URLSessionConfiguration = .default) {
        self.recorder = recorder
        innerConfiguration = configuration.copy() as! URLSessionConfiguration
        let delegateQueue = OperationQueue()
        delegateQueue.maxConcurrentOperationCount = 1
        innerSession = URLSession(configuration: innerConfiguration, delegate: delegate, delegateQueue: delegateQueue)
        let outer = configuration.copy() as! URLSessionConfiguration
        outer.urlCache = nil
        outer.protocolClasses = [RecordingURLProtocol.self] + (outer.protocolClasses ?? [])
        sessionConfiguration = outer
        Self.activeLock.withLock { Self.activeRecorder = self }
    }

    /// Stops recording: requests of the recorded sessions fail from now on.
    public func invalidate() {
        Self.activeLock.withLock { if Self.activeRecorder === self { Self.activeRecorder = nil } }
        innerSession.invalidateAndCancel()
    }

    /// Starts the inner task for `loader`. On a global queue, not inside `startLoading`:
    /// corelibs Foundation crashes when a URLProtocol creates and resumes a task from inside
    /// `startLoading` (a dispatch_sync on a queue it already holds); Darwin accepts either.
    func start(_ loader: RecordingURLProtocol) {
        // URLProtocol is not Sendable; the loader is handed over once and its state is
        // touched by the inner session's serial delegate queue afterwards.
        let handOver = LoaderHandOver(loader: loader)
        DispatchQueue.global().async { [self] in
            let loader = handOver.loader
            loader.cachedBefore = innerConfiguration.urlCache?.cachedResponse(for: loader.request)?.response
            let task = innerSession.dataTask(with: loader.request)
            delegate.register(loader, for: task)
            loader.innerTask = task
            task.resume()
        }
    }
}

private struct LoaderHandOver: @unchecked Sendable {
    let loader: RecordingURLProtocol
}

/// The forwarding protocol: each loader is one recorded transaction.
final class RecordingURLProtocol: URLProtocol {
    var innerTask: URLSessionDataTask?
    /// The URLCache's entry before the task started, and the response the task delivered.
    var cachedBefore: URLResponse?
    var received: URLResponse?
    var started: UInt64 = 0
    var bodyBytes = 0
    /// The body, held until the end on corelibs (see `relay(_:)`).
    var heldBody = Data()
    var stopped = false

    override class func canInit(with request: URLRequest) -> Bool {
        guard let scheme = request.url?.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && NetworkRecorder.active != nil
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let network = NetworkRecorder.active else {
            client?.urlProtocol(self, didFailWithError: URLError(.cancelled))
            return
        }
        started = network.recorder.now
        network.start(self)
    }

    override func stopLoading() {
        stopped = true
        innerTask?.cancel()
    }

    /// Records the transaction once the inner task is done.
    func finish(task: URLSessionTask, metrics: URLSessionTaskMetrics?, error: Error?) {
        guard let network = NetworkRecorder.active else { return }
        let response = task.response as? HTTPURLResponse
        let sentRequest = task.currentRequest ?? request
        var requestHeaders = (sentRequest.allHTTPHeaderFields ?? [:]).map { ($0.key, $0.value) }
        let sentNames = Set(requestHeaders.map { $0.0.lowercased() })
        // The session's own headers go out with every request that does not set them.
        for (name, value) in network.innerConfiguration.httpAdditionalHeaders ?? [:] {
            guard let name = name as? String, !sentNames.contains(name.lowercased()) else { continue }
            requestHeaders.append((name, "\(value)"))
        }
        let responseHeaders = (response?.allHeaderFields ?? [:]).compactMap { field -> (String, String)? in
            guard let name = field.key as? String else { return nil }
            return (name, "\(field.value)")
        }
        let httpSource: HTTPSource
        switch metrics?.transactionMetrics.last?.resourceFetchType {
        case .localCache?: httpSource = .cache
        case .networkLoad?, .serverPush?: httpSource = .network
        default:
            // No metrics (corelibs): the cache's own object came back, or the network answered.
            if let received, let cachedBefore, received === cachedBefore { httpSource = .cache } else { httpSource = .network }
        }
        network.recorder.enqueue(.http(HTTPTransaction(
            method: sentRequest.httpMethod ?? "GET", url: (request.url ?? sentRequest.url)?.absoluteString ?? "",
            status: error == nil ? (response?.statusCode ?? 0) : 0,
            requestHeaders: requestHeaders.sorted { $0.0 < $1.0 }, responseHeaders: responseHeaders.sorted { $0.0 < $1.0 },
            bodyBytes: bodyBytes, start: started, source: httpSource,
            error: error.map { error in
                let ns = error as NSError
                return "\(ns.domain) \(ns.code): \(ns.localizedDescription)"
            })))
    }
}

/// Routes the inner session's callbacks to the loader that started each task.
final class InnerSessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var loaders: [Int: RecordingURLProtocol] = [:]
    private var metrics: [Int: URLSessionTaskMetrics] = [:]

    func register(_ loader: RecordingURLProtocol, for task: URLSessionTask) {
        lock.withLock { loaders[task.taskIdentifier] = loader }
    }

    private func loader(_ task: URLSessionTask) -> RecordingURLProtocol? {
        lock.withLock { loaders[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let loader = loader(dataTask), !loader.stopped {
            loader.received = response
            // The inner session's URLCache stores it; the app's session must not again.
            loader.client?.urlProtocol(loader, didReceive: response, cacheStoragePolicy: .notAllowed)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let loader = loader(dataTask), !loader.stopped else { return }
        loader.bodyBytes += data.count
        #if canImport(FoundationNetworking)
        // Corelibs' protocol client keeps only the last didLoad's data for completion-handler
        // and async tasks (it expects the whole body at once): hold it until the end.
        loader.heldBody.append(data)
        #else
        loader.client?.urlProtocol(loader, didLoad: data)  // streamed: progressive decoding still works
        #endif
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        lock.withLock { self.metrics[task.taskIdentifier] = metrics }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let (loader, metrics) = lock.withLock {
            (loaders.removeValue(forKey: task.taskIdentifier), self.metrics.removeValue(forKey: task.taskIdentifier))
        }
        guard let loader else { return }
        loader.finish(task: task, metrics: metrics, error: error)
        guard !loader.stopped else { return }
        if let error {
            loader.client?.urlProtocol(loader, didFailWithError: error)
        } else {
            if !loader.heldBody.isEmpty { loader.client?.urlProtocol(loader, didLoad: loader.heldBody) }
            loader.client?.urlProtocolDidFinishLoading(loader)
        }
    }
}
