import ArgumentParser
import CacheWorkbench

/// How a trace file is read: shared by `run`, `convert` and `stats`.
struct TraceReadingOptions: ParsableArguments {
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Trace format; detected from the file name or header when omitted. See `bench list`.", valueName: "name"))
    var format: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("libcachesim-csv: 1-based columns, e.g. time=1,key=2,size=3 (key required).", valueName: "mapping"))
    var columns: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("libcachesim-csv: whether the first line is a header, on | off (default: detected).", valueName: "on|off"))
    var header: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("libcachesim-csv: field delimiter, one character, tab or space (default ,).", valueName: "char"))
    var delimiter: String?

    @Flag(name: .long, help: "har: key by the URL without its query string.")
    var dropQuery = false

    @Flag(name: .long, help: "har: only entries whose response is an image (image/*).")
    var imagesOnly = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("har: only these response statuses, e.g. 200,304 or 2xx.", valueName: "list"))
    var status: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("har: `sequential` replays each run or page in its own start order, one after the other (default); `as-recorded` interleaves all entries by start time.", valueName: "order"))
    var harPages: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("har: which WebPageTest views to replay, first | repeat | all (default first: a repeat view lacks the browser's cache hits).", valueName: "view"))
    var harView: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("har: independent runs (WebPageTest _run, browsertime iterations) in run and sweep: `cold` replays each from an empty cache and gives the mean over runs (default with two or more runs); `visits` replays them into one cache as successive visits of one user.", valueName: "cold|visits"))
    var harRuns: String?

    @Flag(name: .long, help: "Skip malformed trace rows and report how many, instead of stopping at the first.")
    var skipBad = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Text formats: the longest line accepted (default 16MiB); a longer one stops the read with its line number.", valueName: "size"))
    var maxLineBytes: String?

    var formatOptions: [String: String] {
        [
            "columns": columns, "header": header, "delimiter": delimiter, "status": status, "har-pages": harPages, "har-view": harView, "har-runs": harRuns,
            "drop-query": dropQuery ? "on" : nil, LineLengthLimit.optionName: maxLineBytes, "images-only": imagesOnly ? "on" : nil,
        ].compactMapValues { $0 }
    }
}

extension TraceReadingOptions {
    /// Prints what the replay must say about how `path` was read (a HAR's repeat views and
    /// moved runs) as `bench: note:` lines on stderr.
    func writeReadingNotes(path: String?, runs: RunsReplay = .notReplayed) throws {
        guard let path else { return }
        let trace = try TraceFile(path: path, format: format.map(TraceFormat.named), skipBadRows: skipBad, formatOptions: formatOptions)
        for note in try trace.readingNotes(runs: runs) { FileDescriptorOutput.write("bench: note: \(note)\n", to: 2) }
    }
}
