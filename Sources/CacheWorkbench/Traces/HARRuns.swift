import WorkbenchCore
import WorkbenchMetrics
import Foundation

/// How a HAR's independent runs are replayed (`--har-runs`).
public enum HARRunsMode: String, CaseIterable, Sendable {
    /// Each run from an empty cache, as the tool loaded it (the default for two or more runs
    /// in `bench run` and `bench sweep`).
    case cold
    /// The runs one after another into one cache, as successive visits of one user.
    case visits

    static let optionName = "har-runs"
}

/// The independent runs of a HAR export: page loads the recording tool made each from an
/// empty browser cache, so reuse between them is not a cache's to find.
///
/// - WebPageTest: pages with `_run` N (a run's first view, and with `--har-view all|repeat`
///   its repeat view, `_cached: 1`). Its documentation: the First View "was done with a
///   browser that had its cache and cookies cleared out" (WebPageTest's "Interpreting test
///   results", quoted at calendar.perfplanet.com/2021/first-view-and-repeat-view-in-a-service-worker-world/;
///   how it clears them: blog.patrickmeenan.com/2012/11/clearing-ies-caches-not-as-simple-as-it.html).
/// - browsertime (sitespeed.io; its Chrome HARs are made by chrome-har): every iteration
///   restarts the browser (`--iterations`: "restarting the browser between each test",
///   lib/support/cli.js:1061 at sitespeedio/browsertime e5b04fd; a warm cache needs
///   `--preURL`, cli.js:1325–1328). It titles a Chrome or Safari page `URL run N`
///   (lib/chrome/har.js:136, lib/safari/har.js:112) and writes the tested URL in `_url`
///   (lib/chrome/har.js:139–146, lib/firefox/webdriver/firefox.js:290); a Firefox page keeps
///   the document's title, so there the k-th page of one `_url` is run k.
///
/// Pages of one URL without these fields (DevTools, Fiddler, chrome-har alone: chrome-har
/// titles a page by its URL, index.js:43 at sitespeedio/chrome-har bb599c6) are reloads in
/// one browser, not runs. Complexity: O(pages).
struct HARRuns: Equatable {
    enum Source: Equatable {
        case none
        case webPageTest
        /// browsertime's page titles `URL run N`.
        case browsertimeTitles
        /// browsertime's `_url`, the k-th page of a URL being run k.
        case browsertimeURLs
    }

    /// Each page's run (0, 1, … in run-number order); nil for a page in no run.
    var runOfPage: [Int?]
    /// Distinct runs (0 or 1: nothing to replay apart).
    var count: Int
    var source: Source

    init(pages: [HARDocument.Page]) {
        runOfPage = Array(repeating: nil, count: pages.count)
        count = 0
        source = .none
        if pages.contains(where: { $0.run != nil }) {
            number(pages.map(\.run), source: .webPageTest)
        } else if pages.count >= 2, pages.allSatisfy({ $0.url != nil }) {
            let iterations = pages.map { Self.iteration(title: $0.title) }
            if iterations.allSatisfy({ $0 != nil }) {
                number(iterations, source: .browsertimeTitles)
            } else {
                var seen: [String: Int] = [:]
                number(pages.map { page -> Int? in
                    let k = seen[page.url!, default: 0]
                    seen[page.url!] = k + 1
                    return k
                }, source: .browsertimeURLs)
            }
        }
        if count < 2 {  // one run: replayed as today, nothing to say
            runOfPage = Array(repeating: nil, count: pages.count)
            count = 0
            source = .none
        }
    }

    /// Numbers the runs 0, 1, … in the order of `keys` (run numbers as the tool wrote them).
    private mutating func number(_ keys: [Int?], source: Source) {
        let ordered = Set(keys.compactMap { $0 }).sorted()
        let index = Dictionary(uniqueKeysWithValues: ordered.enumerated().map { ($1, $0) })
        runOfPage = keys.map { $0.flatMap { index[$0] } }
        count = ordered.count
        self.source = source
    }

    /// N of a browsertime title `… run N`; nil for any other title.
    static func iteration(title: String?) -> Int? {
        guard let title, let mark = title.range(of: " run ", options: .backwards) else { return nil }
        let digits = title[mark.upperBound...]
        guard !digits.isEmpty, digits.utf8.count <= 9, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(digits)
    }

    /// How the runs were recognised, for notes: "3 WebPageTest runs (_run)".
    var described: String {
        switch source {
        case .none: "no runs"
        case .webPageTest: "\(count) WebPageTest runs (pages' _run), each from a browser whose cache was cleared"
        case .browsertimeTitles: "\(count) browsertime runs (pages titled '… run N'), each in a restarted browser"
        case .browsertimeURLs: "\(count) browsertime runs (the k-th page of each _url), each in a restarted browser"
        }
    }
}

extension HARReading {
    /// Each replayed request's run (`HARRuns`), nil when its page is in none.
    var requestRuns: [Int?] { requestPages.map { $0.flatMap { runs.runOfPage[$0] } } }

    /// The runs as they lie in replay order, as positions among `requests`: a run starts where
    /// a request's run differs from the one before (a request in no run stays with the run
    /// before it, the first when before any). A run met again after another is a run of its
    /// own: browsertime's iterations of one URL after another URL's are each a restarted
    /// browser. `reentered` says that happened, which under `--har-pages as-recorded` is
    /// overlapping runs interleaved. A run none of whose requests was kept has no range.
    /// O(requests).
    func runSegments() -> (ranges: [Range<Int>], reentered: Bool) {
        var starts: [Int] = []
        var current: Int?
        var seen = Set<Int>()
        var reentered = false
        for (position, run) in requestRuns.enumerated() {
            guard let run, run != current else { continue }
            if !seen.insert(run).inserted { reentered = true }
            if current != nil { starts.append(position) }
            current = run
        }
        let bounds = [0] + starts + [requests.count]
        return (zip(bounds, bounds.dropFirst()).map { $0..<$1 }.filter { !$0.isEmpty }, reentered)
    }

    /// `runSegments` for `--har-runs cold`; throws when `as-recorded` interleaved overlapping
    /// runs, since a cache cannot be emptied at a boundary that is not there.
    func runRanges(path: String, order: HARPageOrder) throws(TraceError) -> [Range<Int>] {
        let (ranges, reentered) = runSegments()
        if reentered && order == .asRecorded {
            throw TraceError(path: path, line: nil, reason: "--har-runs cold: --har-pages as-recorded interleaves overlapping runs by start time, so no cache can be emptied between runs; use --har-pages sequential or --har-runs visits")
        }
        return ranges
    }
}
