// libFuzzer entry for the HAR reader (scripts/fuzz har): the input is parsed as a HAR
// document with and without --skip-bad, the filters on, and each page order and view; its
// session summary, notes and http-check run on every reading; its independent runs
// (HARRuns) cover the requests in order, and their ceilings add up. A TraceError or WorkbenchError
// is a correct answer; a crash, a hang or a sanitizer report is a finding.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHAR(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    let optionSets: [(Bool, [String: String])] = [
        (false, [:]), (true, ["drop-query": "on", "images-only": "on", "status": "2xx,304"]),
        (false, ["har-view": "all", "har-pages": "as-recorded"]), (true, ["har-view": "repeat", "har-runs": "visits"]), (true, ["har-view": "all", "har-runs": "cold"]),
    ]
    for (skipBad, options) in optionSets {
        do {
            let filter = try HARFilter(options)
            let reading = try HARTraceReader.read(bytes, path: "fuzz.har", filter: filter, keepKeyNames: true, skipBad: skipBad)
            let requests = reading.requests
            precondition(reading.recordedTimes.count == requests.count && reading.requestPages.count == requests.count
                && reading.isRepeatView.count == requests.count, "parallel arrays differ")
            for (earlier, later) in zip(requests, requests.dropFirst()) { precondition(earlier.time <= later.time, "not in replay order") }
            for request in requests { precondition(request.size >= 0, "negative size") }
            // A HEAD's response has no content (RFC 9110 §9.3.2).
            for request in requests where request.http?.isHEAD == true { precondition(request.size == 0, "a HEAD with a body") }
            if filter.view == .first { precondition(!reading.isRepeatView.contains(true), "a repeat view replayed with --har-view first") }
            if filter.view == .repeat { precondition(!reading.isRepeatView.contains(false), "a first view replayed with --har-view repeat") }
            for replay in [RunsReplay.notReplayed, .honoured(httpMode: false), .honoured(httpMode: true), .asVisits(how: "bench mrc replays them")] {
                _ = reading.notes(view: filter.view, order: filter.pageOrder, runs: replay, chosen: filter.runs)
            }
            precondition(reading.runs.runOfPage.count == reading.pages.count && (reading.runs.count == 0 || reading.runs.count >= 2), "runs miscounted")
            let (ranges, _) = reading.runSegments()
            precondition(ranges.reduce(0) { $0 + $1.count } == requests.count, "runs do not cover the requests")
            for (earlier, later) in zip(ranges, ranges.dropFirst()) { precondition(earlier.upperBound == later.lowerBound, "runs not in order") }
            if (try? reading.runRanges(path: "fuzz.har", order: filter.pageOrder)) == nil { precondition(filter.pageOrder == .asRecorded, "runs refused under --har-pages sequential") }
            if filter.view == .all {
                let summary = HARSessionSummary(reading)
                precondition(summary.firstViewRequests + summary.repeatViewRequests == requests.count, "views do not add up")
                precondition(summary.withinRunReRequests + summary.acrossRunReRequests == summary.firstViewReRequests, "run ceilings do not add up")
                _ = summary.lines
                if filter.pageOrder == .asRecorded, let check = try? HTTPCheck.check(reading, path: "fuzz.har", profiles: HTTPCacheProfile.allCases) {
                    _ = check.text
                }
            }
        } catch {}
    }
    return 0
}
