import WorkbenchCore
import WorkbenchTraces
import WorkbenchMetrics
/// `bench http-check`: the HTTP model tested against a real browser cache. A WebPageTest
/// first + repeat view export records one browser loading a page with a cold cache, then
/// again with the cache the first load left. For every URL of a run's first view, the model
/// (`HTTPCacheModel`, under each profile, as an unbounded private cache with
/// useProtocolCachePolicy) replays the first view and predicts the repeat view's request:
/// fresh (answered from the cache), revalidate (a conditional request) or fetch. The
/// browser's answer is read from the repeat view:
/// - absent: served from its cache without the network, or not asked at all (the page did
///   not request it again). The HAR cannot tell the two apart: a hit leaves no entry. The
///   check names an absent URL "not asked" only on evidence: the repeat view asked for the
///   same path with another query (a cache-busting query), or the response was no-store
///   (which no cache may serve);
/// - 304: revalidated;
/// - any other status: fetched (200, or a redirect or error that went to the network).
/// The repeat view's request is predicted at its own start time; an absent URL at the
/// repeat view's page start (the earliest the page could have asked for it).
/// The headline agreement counts only the URLs asked again (304 or fetched), the outcomes
/// the recording shows; the absent ones are counted apart (`ProfileCheck.shown`).
/// Complexity: O(n) model steps per profile plus a copy of the model's table per URL.
public struct HTTPCheck: Sendable {
    public enum Prediction: String, CaseIterable, Sendable { case fresh, revalidate, fetch }
    public enum Observation: String, CaseIterable, Sendable {
        case absent, revalidated = "304", fetched

        func agrees(with prediction: Prediction) -> Bool {
            switch (self, prediction) {
            case (.absent, .fresh), (.revalidated, .revalidate), (.fetched, .fetch): true
            default: false
            }
        }
    }

    /// One first-view URL of one run, under one profile.
    public struct URLCheck: Sendable, Equatable {
        public var run: Int
        public var url: String
        public var predicted: Prediction
        public var observed: Observation
        /// Why they disagree, when they do.
        public var reason: String?
    }

    public struct ProfileCheck: Sendable {
        public var profile: HTTPCacheProfile
        public var checks: [URLCheck]

        public func count(_ predicted: Prediction, _ observed: Observation) -> Int {
            checks.filter { $0.predicted == predicted && $0.observed == observed }.count
        }

        public var agreeing: Int { checks.filter { $0.observed.agrees(with: $0.predicted) }.count }

        /// URLs whose repeat-view outcome the recording shows: asked again (a 304 or another
        /// status). An absent URL was served from the browser's cache or not asked at all, and a
        /// WebPageTest repeat view lists network requests only, so the HAR cannot say which.
        public var shown: [URLCheck] { checks.filter { $0.observed != .absent } }
        public var shownAgreeing: Int { shown.filter { $0.observed.agrees(with: $0.predicted) }.count }
        /// Absent URLs with evidence that the page did not ask for them (a cache-busting query,
        /// no-store): not a cache's choice either way.
        public var notAsked: Int { checks.filter { $0.observed == .absent && $0.reason?.hasPrefix("not asked") == true }.count }
    }

    public var path: String
    /// Runs that have both views.
    public var runs: [Int] = []
    public var profiles: [ProfileCheck] = []
    /// URLs the repeat view asked for that its run's first view did not: no prediction.
    public var repeatOnly: [(run: Int, url: String, reason: String)] = []

    /// Far above any HAR's bytes, so no entry is refused for size (the apple profile's
    /// 5%-of-capacity rule included): the browser's cache was not full after one page.
    static let unboundedCapacity = 1 << 50

    static func check(_ reading: HARReading, path: String, profiles: [HTTPCacheProfile]) throws -> HTTPCheck {
        let pairs = RunViews.pairs(reading)
        guard !pairs.isEmpty else {
            throw WorkbenchError("\(path) has no run with both a first and a repeat view (WebPageTest pages with _cached 0 and 1); bench http-check needs a first + repeat view export")
        }
        var result = HTTPCheck(path: path)
        result.runs = pairs.map(\.run)
        for pair in pairs {
            let firstPaths = Set(pair.first.map { Self.withoutQuery($0.keyText) })
            let firstIDs = Set(pair.first.map(\.id))
            var listed = Set<UInt64>()
            for request in pair.repeated where !firstIDs.contains(request.id) && listed.insert(request.id).inserted {
                let reason = firstPaths.contains(Self.withoutQuery(request.keyText)) ? "cache-busting query: the first view asked for the same path with another query" : "not in the first view"
                result.repeatOnly.append((pair.run, request.keyText, reason))
            }
        }
        for profile in profiles {
            var checks: [URLCheck] = []
            for pair in pairs { checks += predict(pair, profile: profile) }
            result.profiles.append(ProfileCheck(profile: profile, checks: checks))
        }
        return result
    }

    /// Replays the first view, then predicts each URL's repeat-view request on a copy of the
    /// model, so one prediction does not change another.
    static func predict(_ pair: RunViews, profile: HTTPCacheProfile) -> [URLCheck] {
        var model = HTTPCacheModel(settings: HTTPReplaySettings(profile: profile), capacity: unboundedCapacity)
        var stored = Set<UInt64>()
        var notStored: [UInt64: NotStoredReason] = [:]
        var last: [UInt64: Request] = [:]
        var order: [UInt64] = []
        for request in pair.first {
            if last.updateValue(request, forKey: request.id) == nil { order.append(request.id) }
            guard let keyed = model.cacheRequest(request) else {
                _ = model.answerWithoutKey(request)
                continue
            }
            let found = model.looksUp(request) && stored.contains(keyed.id)
            let before = model.counts.notStored
            let step = model.answer(request, key: keyed.id, found: found, cost: request.size)
            if step.remove { stored.remove(keyed.id) }
            if step.store { stored.insert(keyed.id) }
            // The profile's reason for not storing it, for the explanation of a "fetch".
            notStored[request.id] = step.store ? nil : NotStoredReason.allCases.first { model.counts.notStored[$0, default: 0] > before[$0, default: 0] }
        }
        var asked: [UInt64: Request] = [:]
        for request in pair.repeated where asked[request.id] == nil { asked[request.id] = request }
        let repeatPaths = Dictionary(pair.repeated.map { (withoutQuery($0.keyText), $0.keyText) }, uniquingKeysWith: { first, _ in first })
        return order.map { id in
            let firstResponse = last[id]!
            let probe = asked[id] ?? Request(
                time: max(pair.repeatStart, firstResponse.time), id: id, size: firstResponse.size, name: firstResponse.name, http: firstResponse.http)
            var trial = model
            let predicted: Prediction
            if let keyed = trial.cacheRequest(probe) {
                let before = trial.counts.revalidations
                let step = trial.answer(probe, key: keyed.id, found: trial.looksUp(probe) && stored.contains(keyed.id), cost: probe.size)
                predicted = trial.counts.revalidations > before ? .revalidate : step.outcome.servedFromCache ? .fresh : .fetch
            } else {
                predicted = .fetch
            }
            let observed: Observation = switch asked[id]?.http?.status {
            case nil: .absent
            case .some(304): .revalidated
            default: .fetched
            }
            var check = URLCheck(run: pair.run, url: firstResponse.keyText, predicted: predicted, observed: observed)
            if !observed.agrees(with: predicted) {
                check.reason = explain(
                    first: firstResponse, repeated: asked[id], predicted: predicted, observed: observed, notStored: notStored[id], repeatPaths: repeatPaths)
            }
            return check
        }
    }

    /// The recorded facts that explain a disagreement, first match: a cache-busting query, no-store,
    /// a redirect, size 0, a conditional request answered with a new body, the profile's reason
    /// for not storing the response; else the caching headers, for a reader to judge.
    static func explain(
        first: Request, repeated: Request?, predicted: Prediction, observed: Observation, notStored: NotStoredReason?, repeatPaths: [String: String]
    ) -> String {
        let http = first.http
        let control = CacheControl(parsing: http?.cacheControl)
        if observed == .absent, let other = repeatPaths[withoutQuery(first.keyText)], other != first.keyText {
            return "not asked: cache-busting query (the repeat view asked for \(ErrorText.quote(other, limit: 80)) instead)"
        }
        if control.noStore {
            return observed == .absent ? "not asked: no-store (no cache may serve it)" : "no-store"
        }
        for status in [http?.status, repeated?.http?.status].compactMap({ $0 }) where (300...399).contains(status) && status != 304 {
            return "redirect (status \(status))"
        }
        if first.size == 0 { return "size 0" }
        // A 200 to a conditional request: the browser revalidated and the resource had changed.
        if observed == .fetched, let headers = repeated?.http?.requestHeaders, headers["if-none-match"] != nil || headers["if-modified-since"] != nil {
            return "revalidated and changed: the browser sent a conditional request and got a new body (status \(repeated?.http?.status ?? 0))"
        }
        if predicted == .fetch, let notStored { return "this profile does not store it (\(notStored.rawValue))" }
        // The request's cookies pick the variant, and exports (these included) often leave cookies out.
        if observed != .absent, StoredResponse.varyNames(http?.vary).contains("cookie"), first.http?.requestHeaders["cookie"] == nil {
            return "Vary: Cookie, and the HAR holds no Cookie header to compare the two views' variants"
        }
        var facts: [String] = []
        if let value = http?.cacheControl { facts.append("Cache-Control: \(value)") }
        if let value = http?.expires { facts.append("Expires: \(value)") }
        if http?.etag != nil { facts.append("ETag") }
        if http?.lastModified != nil { facts.append("Last-Modified") }
        if let value = http?.vary { facts.append("Vary: \(value)") }
        return "unexplained (" + (facts.isEmpty ? "no caching headers" : facts.joined(separator: "; ")) + ")"
    }

    static func withoutQuery(_ url: String) -> String { url.firstIndex(of: "?").map { String(url[..<$0]) } ?? url }

    public var text: String {
        var lines = ["http-check \(path): \(runs.count) run\(runs.count == 1 ? "" : "s") with a first and a repeat view (runs \(runs.map(String.init).joined(separator: ", ")))"]
        lines.append("model: an unbounded private cache, useProtocolCachePolicy, fed each run's first view; the repeat view's request predicted at its start time (an absent URL at the repeat view's start)")
        lines.append("browser: absent = served from its cache or not asked (a hit leaves no entry); 304 = revalidated; fetched = any other status")
        for check in profiles {
            let total = check.checks.count
            lines.append("")
            // The headline counts only what the recording shows; the absent URLs come apart.
            let shown = check.shown.count
            lines.append("profile \(check.profile.rawValue): \(check.shownAgreeing) of \(shown) first-view URLs agree where the recording shows the browser's choice (asked again in the repeat view: 304 or fetched)")
            let absent = Prediction.allCases.map { check.count($0, .absent) }
            lines.append("  not shown: \(total - shown) of \(total) first-view URLs are absent from the repeat view, a hit from the browser's cache or not asked, which the recording cannot tell apart (predicted fresh \(absent[0]), revalidate \(absent[1]), fetch \(absent[2]); \(check.notAsked) not asked on evidence: a cache-busting query or no-store); with them, \(check.agreeing) of \(total) agree if every absent URL was a cache hit")
            let heading: [String] = Observation.allCases.map { $0.rawValue.padding(10, left: true) }
            lines.append("  predicted \\ browser" + heading.joined() + "total".padding(8, left: true))
            for predicted in Prediction.allCases {
                let counts: [Int] = Observation.allCases.map { check.count(predicted, $0) }
                let cells: [String] = counts.map { String($0).padding(10, left: true) }
                let rowTotal: Int = counts.reduce(0, +)
                lines.append("  " + predicted.rawValue.padding(20) + cells.joined() + String(rowTotal).padding(8, left: true))
            }
            let disagreements = check.checks.filter { $0.reason != nil }
            if !disagreements.isEmpty { lines.append("  disagreements (\(disagreements.count)):") }
            for item in disagreements {
                lines.append("    run \(item.run)  \(item.predicted.rawValue) → \(item.observed.rawValue)  \(item.reason ?? "")  \(ErrorText.quote(item.url, limit: 100))")
            }
        }
        if !repeatOnly.isEmpty {
            lines.append("")
            lines.append("requested only in a repeat view (\(repeatOnly.count), no first-view response to predict from):")
            for item in repeatOnly { lines.append("  run \(item.run)  \(item.reason)  \(ErrorText.quote(item.url, limit: 100))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// One WebPageTest run's first view and repeat view, each in start order (recorded times).
struct RunViews {
    var run: Int
    var first: [Request] = []
    var repeated: [Request] = []
    /// The repeat view's page start (its earliest entry when the page gives no time).
    var repeatStart: Double

    /// Runs (pages' `_run`; pages without one are run 0) with both views, in run order.
    static func pairs(_ reading: HARReading) -> [RunViews] {
        var byRun: [Int: RunViews] = [:]
        for (offset, request) in reading.requests.enumerated() {
            guard let page = reading.requestPages[offset] else { continue }
            let run = reading.pages[page].run ?? 0
            var views = byRun[run] ?? RunViews(run: run, repeatStart: .infinity)
            if reading.isRepeatView[offset] {
                views.repeated.append(request)
                let pageStart = reading.pages[page].startedDateTime.flatMap(ISO8601Time.seconds)
                views.repeatStart = min(views.repeatStart, pageStart ?? request.time)
            } else {
                views.first.append(request)
            }
            byRun[run] = views
        }
        // A repeat view whose every URL was a hit has no entries: its page still says it ran.
        for page in reading.pages where (page.cached ?? 0) >= 1 {
            let run = page.run ?? 0
            guard var views = byRun[run], views.repeated.isEmpty, let start = page.startedDateTime.flatMap(ISO8601Time.seconds) else { continue }
            views.repeatStart = min(views.repeatStart, start)
            byRun[run] = views
        }
        return byRun.values.filter { !$0.first.isEmpty && $0.repeatStart.isFinite }.sorted { $0.run < $1.run }
    }
}
