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
    typealias Settings = DownloadSettings

    struct Completion: Comparable {
        var finish: Double
        var order: Int
        var request: Request
        var entry: StoredResponse
        var key: UInt64
        var cost: Int

        static func < (a: Completion, b: Completion) -> Bool { (a.finish, a.order) < (b.finish, b.order) }
        static func == (a: Completion, b: Completion) -> Bool { (a.finish, a.order) == (b.finish, b.order) }
    }

    let settings: Settings
    private var random: SeededRandom
    private var busySlots = Heap<Double>()
    private var inFlight: [UInt64: Double] = [:]
    private var completions = Heap<Completion>()
    private var started = 0
    private(set) var queueWait = LatencyRecorder()
    private(set) var coalesced = 0

    init(settings: Settings, seed: UInt64) {
        self.settings = settings
        random = SeededRandom(seed: seed ^ 0x0D0E_A1D5)
    }

    /// Whether a request for `url` at `now` joins a download in flight (and is counted).
    mutating func joins(url: UInt64, at now: Double) -> Bool {
        guard settings.coalesce, let finish = inFlight[url], finish > now else { return false }
        coalesced += 1
        return true
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
        started += 1
        return finish
    }

    /// Holds a fetched response until its download finishes.
    mutating func deliver(_ completion: Completion) {
        var completion = completion
        completion.order = started
        completions.insert(completion)
    }

    /// The responses whose downloads finished by `now`, in finish order.
    mutating func finished(by now: Double) -> [Completion] {
        var done: [Completion] = []
        while let first = completions.min, first.finish <= now {
            done.append(completions.removeMin())
        }
        for completion in done where (inFlight[completion.request.id] ?? 0) <= completion.finish {
            inFlight[completion.request.id] = nil
        }
        return done
    }

    /// Every response still in flight (the replay's end delivers them).
    mutating func drain() -> [Completion] { finished(by: .infinity) }
}
