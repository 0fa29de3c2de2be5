import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation
import HeapModule

/// The download-time model (`--coalesce`, `--max-active-downloads`, `--origin-latency`):
/// each origin fetch is a download that takes the HAR's recorded time (else the latency
/// model), starts when one of `limit` slots is free (first come, first served, as
/// AFImageDownloader's and SDWebImage's FIFO queues), and delivers its response to the
/// cache when it finishes. With coalescing, a request for a URL whose download is in
/// flight joins it instead of starting another (all four libraries key by URL).
///
/// Downloads start in the order they are asked for, so with `limit` slots a new one starts
/// when the earliest of the last `limit` started ones finishes: a heap of those finish
/// times gives each start in O(log limit). Completions wait in a heap by finish time.
struct DownloadScheduler {
    /// A fetched response waiting for its download to finish; `order` breaks ties between
    /// equal finish times (first asked, first stored).
    struct Completion: Comparable {
        var finish: Double
        var order: Int
        /// The request the backend stores it under (the profile's key).
        var request: Request
        /// The response the HTTP model stores; nil when only a library's own cache takes the
        /// body (a layer that reads no headers, `LayeredHTTPReplay`).
        var entry: StoredResponse?
        var cost: Int

        static func < (a: Completion, b: Completion) -> Bool { (a.finish, a.order) < (b.finish, b.order) }
        static func == (a: Completion, b: Completion) -> Bool { (a.finish, a.order) == (b.finish, b.order) }
    }

    let settings: DownloadSettings
    private var random: SeededRandom
    private var busySlots = Heap<Double>()
    /// When each URL's latest download finishes (a past time means none in flight).
    private var inFlight: [UInt64: Double] = [:]
    private var completions = Heap<Completion>()
    /// Downloads started, and how long each waited for a slot (trace time).
    private(set) var queueWait = LatencyRecorder()

    init(settings: DownloadSettings, seed: UInt64) {
        self.settings = settings
        random = SeededRandom(seed: seed ^ 0x0D0E_A1D5)
    }

    /// Whether a request for `url` at `now` joins a download in flight.
    func joins(url: UInt64, at now: Double) -> Bool {
        guard settings.coalesce, let finish = inFlight[url] else { return false }
        return finish > now
    }

    /// Starts a download for `url` asked for at `now`; returns when it finishes.
    mutating func start(url: UInt64, at now: Double, recordedSeconds: Double?) -> Double {
        var begin = now
        if settings.maxActive > 0 && busySlots.count >= settings.maxActive {
            begin = max(now, busySlots.popMin()!)
        }
        let finish = begin + (recordedSeconds ?? settings.latency.sample(&random))
        if settings.maxActive > 0 { busySlots.insert(finish) }
        queueWait.record(UInt64(min((begin - now) * 1e9, 3.6e12).rounded()))
        inFlight[url] = max(inFlight[url] ?? finish, finish)
        return finish
    }

    /// Holds a fetched response until its download finishes at `finish`.
    mutating func deliver(at finish: Double, request: Request, entry: StoredResponse?, cost: Int) {
        completions.insert(Completion(finish: finish, order: Int(queueWait.count), request: request, entry: entry, cost: cost))
    }

    /// The responses whose downloads finished by `now`, in finish order.
    mutating func finished(by now: Double) -> [Completion] {
        var done: [Completion] = []
        while let first = completions.min, first.finish <= now {
            done.append(completions.removeMin())
        }
        return done
    }

    /// Every response still in flight (the replay's end delivers them).
    mutating func drain() -> [Completion] { finished(by: .infinity) }
}
