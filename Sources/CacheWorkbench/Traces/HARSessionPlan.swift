import WorkbenchCore
import WorkbenchMetrics
/// How a HAR's pages are replayed, one after another or interleaved (`--har-pages`).
public enum HARPageOrder: String, CaseIterable, Sendable {
    /// Each run (WebPageTest `_run`), else each page, in its own start order, one after the
    /// other; a run that overlaps the one before in time is moved later (the default).
    case sequential
    /// Every entry by start time, whatever its page: overlapping runs interleave.
    case asRecorded = "as-recorded"
}

/// Which views of a WebPageTest export are replayed (`--har-view`). A repeat view
/// (`_cached: 1`) lists only what reached the network: the browser answered its cache hits
/// without it, so they are absent, and a hit ratio over a repeat view leaves them out.
public enum HARView: String, CaseIterable, Sendable {
    /// First views, and every page that is not a repeat view (the default).
    case first
    /// Repeat views only.
    case `repeat`
    case all
}

/// The order and times a HAR's entries are replayed in, and what was left out.
///
/// Pages group entries (`pageref` → `pages[].id`); pages with the same WebPageTest `_run`
/// form one group (a run's first view, then its repeat view); pages without `_run` are a
/// group each, and entries without a known page form one group. `sequential` replays the
/// groups one after another, ordered by their first start time (ties: first in the file),
/// each in its own start order; a group that starts before the previous one ended is moved
/// later by the overlap, so times never run backwards and the gaps inside a group are kept.
/// When no group overlaps another this is exactly start order, as `as-recorded` is.
/// Complexity: O(n log n) for n entries.
struct HARSessionPlan {
    struct Entry {
        var time: Double
        var index: Int
        var pageref: String?
    }

    struct Item {
        /// The entry's index in the document.
        var index: Int
        /// Replay time (moved later in `sequential` when its group overlapped).
        var time: Double
        /// The time the recording gives.
        var recordedTime: Double
        /// Index into the document's pages; nil when the entry names no known page.
        var page: Int?
        var isRepeatView: Bool
    }

    var items: [Item] = []
    /// Entries of the views `--har-view` left out.
    var leftOutRepeatEntries = 0
    var leftOutFirstEntries = 0
    /// Groups moved later to follow the one before, and the largest move (seconds).
    var movedGroups = 0
    var largestMove = 0.0

    init() {}

    init(pages: [HARDocument.Page], entries: [Entry], order: HARPageOrder, view: HARView) {
        var pageIndex: [String: Int] = [:]
        for (index, page) in pages.enumerated() { if let id = page.id, pageIndex[id] == nil { pageIndex[id] = index } }
        var chosen: [Item] = []
        for entry in entries {
            let page = entry.pageref.flatMap { pageIndex[$0] }
            let isRepeat = page.map { (pages[$0].cached ?? 0) >= 1 } ?? false
            switch (view, isRepeat) {
            case (.first, true): leftOutRepeatEntries += 1
            case (.repeat, false): leftOutFirstEntries += 1
            default: chosen.append(Item(index: entry.index, time: entry.time, recordedTime: entry.time, page: page, isRepeatView: isRepeat))
            }
        }
        chosen.sort { ($0.time, $0.index) < ($1.time, $1.index) }
        guard order == .sequential else {
            items = chosen
            return
        }
        // Groups in order of their first entry (the list is in start order).
        var groupOf: [String: Int] = [:]
        var groups: [[Item]] = []
        for item in chosen {
            let name = item.page.map { page in pages[page].run.map { "run \($0)" } ?? "page \(page)" } ?? "no page"
            if let group = groupOf[name] {
                groups[group].append(item)
            } else {
                groupOf[name] = groups.count
                groups.append([item])
            }
        }
        var last = -Double.infinity
        items.reserveCapacity(chosen.count)
        for group in groups {
            let move = last.isFinite ? max(0, last - group[0].time) : 0
            if move > 0 {
                movedGroups += 1
                largestMove = max(largestMove, move)
            }
            for var item in group {
                // max() keeps times from running backwards through rounding of time + move.
                item.time = max(item.time + move, last)
                last = item.time
                items.append(item)
            }
        }
    }
}

/// A HAR read with its pages: the requests in replay order and, for each, its page and view.
package struct HARReading {
    package var pages: [HARDocument.Page]
    package var requests: [Request] = []
    var recordedTimes: [Double] = []
    package var requestPages: [Int?] = []
    package var isRepeatView: [Bool] = []
    var skipped = 0
    var plan = HARSessionPlan()
    var creator: HARDocument.Creator?
    /// The export's independent runs (`HARRuns`).
    var runs: HARRuns

    init(pages: [HARDocument.Page]) {
        self.pages = pages
        runs = HARRuns(pages: pages)
    }

    mutating func append(_ request: Request, item: HARSessionPlan.Item) {
        requests.append(request)
        recordedTimes.append(item.recordedTime)
        requestPages.append(item.page)
        isRepeatView.append(item.isRepeatView)
    }

    var repeatViewPages: Int { pages.filter { ($0.cached ?? 0) >= 1 }.count }

    /// What a replay of this reading must say about it: repeat views (present, replayed or
    /// left out), runs moved to follow each other, and how independent runs are replayed
    /// (`runs`). One line each.
    package func notes(view: HARView, order: HARPageOrder, runs replay: RunsReplay = .notReplayed, chosen: HARRunsMode? = nil) -> [String] {
        var notes: [String] = []
        if let line = runsNote(replay, chosen: chosen) { notes.append(line) }
        let repeats = repeatViewPages
        if repeats > 0 {
            let absent = "the browser answered a repeat view's cache hits without the network, so they are absent from the HAR"
            switch view {
            case .first:
                notes.append("this HAR holds \(repeats) repeat view\(repeats == 1 ? "" : "s") (WebPageTest _cached: 1); \(absent); its \(plan.leftOutRepeatEntries) repeat-view requests are left out (--har-view first)")
            case .repeat, .all:
                let replayed = isRepeatView.filter { $0 }.count
                notes.append("\(replayed) requests from \(repeats) repeat view\(repeats == 1 ? "" : "s") are replayed (--har-view \(view.rawValue)); \(absent) and a hit ratio here leaves them out")
            }
        }
        if order == .sequential && plan.movedGroups > 0 {
            let one = plan.movedGroups == 1
            notes.append("--har-pages sequential: \(plan.movedGroups) run\(one ? "" : "s") or page\(one ? "" : "s") started before the previous one ended and \(one ? "was" : "were") replayed after it, moved later by up to \(String(format2: plan.largestMove)) s (gaps within each kept); --har-pages as-recorded interleaves them by start time")
        }
        if let proxy = ProxyRecording(self) { notes.append(proxy.note) }
        return notes
    }
}

/// How a command treats a HAR's independent runs, for its notes (`HARReading.notes`).
public enum RunsReplay: Sendable, Equatable {
    /// Not a replay (`bench stats` gives both ceilings instead): nothing said.
    case notReplayed
    /// `bench run` and `bench sweep`: `--har-runs` honoured (the HTTP mode keeps visits).
    case honoured(httpMode: Bool)
    /// A command that takes the requests as one stream (`bench mrc`, `bench analyze`,
    /// `bench convert`): said, since it treats runs as visits of one user. `how` is the
    /// sentence's subject and verb, "bench mrc replays them".
    case asVisits(how: String)
}

extension HARReading {
    /// The sentence on independent runs: how this command replays them; nil for a HAR with
    /// fewer than two runs (replayed as always) or for `notReplayed`.
    func runsNote(_ replay: RunsReplay, chosen: HARRunsMode?) -> String? {
        guard runs.count >= 2 else { return nil }
        let held = "this HAR holds \(runs.described)"
        let visits = "one after another into one cache, as successive visits of one user, so a later run's request for what an earlier run loaded can hit (the recording tool loaded each run from an empty cache)"
        switch replay {
        case .notReplayed:
            return nil
        case .asVisits(let how):
            return "\(held); \(how) \(visits); --har-runs cold (each run from an empty cache) applies to bench run and bench sweep"
        case .honoured(let httpMode):
            switch chosen ?? (httpMode ? .visits : .cold) {
            case .cold:
                return "\(held); --har-runs cold (the default): each run is replayed from an empty cache (a fresh backend, and a fresh folder for a disk backend), so a row's hit ratio in the table (run_hit_ratio_mean, run_byte_hit_ratio_mean in the CSV) is the mean over runs of each run's, with its range; hits, requests, object_hit_ratio and byte_hit_ratio are totals over the runs; --har-runs visits replays them as successive visits"
            case .visits:
                return "\(held); \(httpMode && chosen == nil ? "--mode http" : "--har-runs visits") replays them \(visits)"
            }
        }
    }
}
