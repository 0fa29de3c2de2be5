import WorkbenchCore
import WorkbenchMetrics
/// What `bench stats` says about a HAR's sessions: pages, runs and views, the re-request
/// ceiling of each view, and the clock skew between the recording machine and the servers.
package struct HARSessionSummary: Equatable {
    var pages = 0
    var runs = 0
    var firstViewPages = 0
    var repeatViewPages = 0
    package var firstViewRequests = 0
    var repeatViewRequests = 0
    /// Requests of a view whose key that view requested before (the most any cache replaying
    /// that view alone can hit).
    var firstViewReRequests = 0
    var repeatViewReRequests = 0
    /// Independent runs (`HARRuns`, two or more; 0 otherwise) and, over the first views, the
    /// re-requests of a key the same run requested before (the most a cache emptied at each
    /// run can hit, `--har-runs cold`) and those of a key only earlier runs requested (what
    /// replaying runs as visits adds, `--har-runs visits`). within + across = firstViewReRequests.
    package var independentRuns = 0
    var runsDescribed = ""
    package var withinRunReRequests = 0
    package var acrossRunReRequests = 0
    /// Median over responses with a Date of (Date + Age) − startedDateTime, seconds; nil
    /// without any Date. Date is when the origin made the response and Age how long a cache
    /// held it since (RFC 9111 §5.1), so their sum is the servers' "now".
    var clockSkew: Double?
    var skewSamples = 0
    /// The skew worth printing: more than this, in either direction.
    static let skewThreshold = 60.0
    /// Requests (of every view) that send their own Cache-Control with at least one
    /// directive, and how many send each directive (lower-cased name, once per request);
    /// requests that send `Pragma: no-cache` (HTTP/1.0's no-cache, which RFC 9111 §5.4
    /// deprecates and no profile reads).
    var requestsWithDirectives = 0
    var requestDirectiveCounts: [String: Int] = [:]
    var pragmaNoCacheRequests = 0

    /// `reading` holds every view (`--har-view all`).
    package init(_ reading: HARReading) {
        pages = reading.pages.count
        runs = Set(reading.pages.compactMap(\.run)).count
        repeatViewPages = reading.repeatViewPages
        firstViewPages = pages - repeatViewPages
        var seen: [Bool: Set<UInt64>] = [false: [], true: []]
        var skews: [Double] = []
        independentRuns = reading.runs.count
        runsDescribed = reading.runs.described
        // Each run as a cold replay takes it (`runSegments`): a request in no run with the one before.
        var runOfRequest = [Int](repeating: 0, count: reading.requests.count)
        for (run, range) in reading.runSegments().ranges.enumerated() { for position in range { runOfRequest[position] = run } }
        var seenInRun: [Int: Set<UInt64>] = [:]
        for (offset, request) in reading.requests.enumerated() {
            let isRepeat = reading.isRepeatView[offset]
            let again = !seen[isRepeat, default: []].insert(request.id).inserted
            if isRepeat {
                repeatViewRequests += 1
                if again { repeatViewReRequests += 1 }
            } else {
                firstViewRequests += 1
                if again { firstViewReRequests += 1 }
                let againInRun = !seenInRun[runOfRequest[offset], default: []].insert(request.id).inserted
                if againInRun { withinRunReRequests += 1 } else if again { acrossRunReRequests += 1 }
            }
            countRequestDirectives(request.http?.requestHeaders)
            if let dateText = request.http?.date, let date = HTTPDate.seconds(dateText) {
                let age = Double(CacheControl.deltaSeconds(request.http?.age?.trimmingSpaces))
                skews.append(Double(date) + age - reading.recordedTimes[offset])
            }
        }
        skewSamples = skews.count
        if !skews.isEmpty {
            skews.sort()
            let middle = skews.count / 2
            clockSkew = skews.count % 2 == 1 ? skews[middle] : (skews[middle - 1] + skews[middle]) / 2
        }
    }

    /// Tallies one request's own Cache-Control and Pragma. O(header length).
    private mutating func countRequestDirectives(_ headers: [String: String]?) {
        if let pragma = headers?["pragma"], CacheControl.directives(pragma).contains(where: { $0.name.lowercased() == "no-cache" }) {
            pragmaNoCacheRequests += 1
        }
        guard let text = headers?["cache-control"] else { return }
        let names = Set(CacheControl.directives(text).map { $0.name.lowercased() })
        guard !names.isEmpty else { return }
        requestsWithDirectives += 1
        for name in names { requestDirectiveCounts[name, default: 0] += 1 }
    }

    /// The sentence on the requests' own directives, when any request sends one (or Pragma:
    /// no-cache): "most" when more than half do, as in a HAR recorded with the browser's
    /// "Disable cache".
    var requestDirectivesLine: String? {
        guard requestsWithDirectives > 0 || pragmaNoCacheRequests > 0 else { return nil }
        let total = firstViewRequests + repeatViewRequests
        let most = requestsWithDirectives * 2 > total
        let which = requestDirectiveCounts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "\(ErrorText.quote($0.key, limit: 30).dropFirst().dropLast()) \($0.value)" }.joined(separator: ", ")
        var line = "request directives  " + (most
            ? "most requests send their own Cache-Control (\(requestsWithDirectives) of \(total), \(String(format2: Double(requestsWithDirectives) / Double(total) * 100))%)"
            : "\(requestsWithDirectives) of \(total) requests send their own Cache-Control")
        if !which.isEmpty { line += ": " + which }
        if pragmaNoCacheRequests > 0 { line += "; Pragma: no-cache \(pragmaNoCacheRequests) (HTTP/1.0's, which RFC 9111 §5.4 deprecates: no profile reads it)" }
        if most {
            line += "; as a browser's \"Disable cache\" sends no-cache on every request: --mode http honours them under rfc9111 and apple (RFC 9111 §5.2.1), so a no-cache request is revalidated, never a fresh hit"
        } else if requestsWithDirectives > 0 {
            line += "; --mode http honours them under rfc9111 and apple (RFC 9111 §5.2.1)"
        }
        return line
    }

    package var lines: [String] {
        func share(_ part: Int, _ whole: Int) -> String {
            whole == 0 ? "none (no requests)" : "\(String(format2: Double(part) / Double(whole) * 100))% (\(part) of \(whole))"
        }
        var lines = ["pages               \(pages) (\(runs) WebPageTest run\(runs == 1 ? "" : "s")); first views: \(firstViewPages) pages, \(firstViewRequests) requests; repeat views: \(repeatViewPages) pages, \(repeatViewRequests) requests"]
        lines.append("re-request ceiling  first views \(share(firstViewReRequests, firstViewRequests))")
        if independentRuns >= 2 {
            lines.append("                    within a run \(share(withinRunReRequests, firstViewRequests)): the most a cache emptied at each run can hit (--har-runs cold, the default of run and sweep)")
            lines.append("                    across runs \(share(acrossRunReRequests, firstViewRequests)): requests for what only an earlier run loaded, which a replay of the runs as visits of one user adds (--har-runs visits); the recording tool loaded each run from an empty cache (\(runsDescribed))")
            if withinRunReRequests == 0 && firstViewRequests > 0 {
                lines.append("                    no first-view request repeats a key within its run: one page load gives a memory cache nothing to hold; repeat visits are a separate question (the repeat view, or --har-runs visits)")
            }
        }
        if repeatViewPages > 0 {
            lines.append("                    repeat views \(share(repeatViewReRequests, repeatViewRequests)); the browser's cache hits are absent from a repeat view, so its ceiling leaves them out")
        }
        if let requestDirectivesLine { lines.append(requestDirectivesLine) }
        if let clockSkew, abs(clockSkew) > Self.skewThreshold {
            lines.append("clock skew          the servers' Date (+ Age) is \(String(format2: abs(clockSkew))) s \(clockSkew > 0 ? "ahead of" : "behind") the recorded start times (median of \(skewSamples) responses); " + (clockSkew > 0
                ? "apparent ages clamp to 0 (RFC 9111 §4.2.3: max(0, response_time − date)), so the HTTP replay's ages are not inflated"
                : "each response looks that much older on arrival (RFC 9111 §4.2.3 apparent_age), so the HTTP replay finds it stale sooner"))
        }
        return lines
    }
}
