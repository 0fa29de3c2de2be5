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

    @Flag(name: .long, help: "Skip malformed trace rows and report how many, instead of stopping at the first.")
    var skipBad = false

    var formatOptions: [String: String] {
        [
            "columns": columns, "header": header, "delimiter": delimiter, "status": status,
            "drop-query": dropQuery ? "on" : nil, "images-only": imagesOnly ? "on" : nil,
        ].compactMapValues { $0 }
    }
}
