import ArgumentParser
import CacheWorkbench

/// How a trace file is read: shared by `run`, `convert` and `stats`.
struct TraceReadingOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Trace format; detected from the file name or header when omitted. See `bench list`.", valueName: "name"))
    var format: String?

    @Option(name: .long, help: ArgumentHelp("libcachesim-csv: 1-based columns, e.g. time=1,key=2,size=3 (key required).", valueName: "mapping"))
    var columns: String?

    @Option(name: .long, help: ArgumentHelp("libcachesim-csv: whether the first line is a header, on | off (default: detected).", valueName: "on|off"))
    var header: String?

    @Option(name: .long, help: ArgumentHelp("libcachesim-csv: field delimiter, one character, tab or space (default ,).", valueName: "char"))
    var delimiter: String?

    @Flag(name: .long, help: "Skip malformed trace rows and report how many, instead of stopping at the first.")
    var skipBad = false

    var formatOptions: [String: String] {
        ["columns": columns, "header": header, "delimiter": delimiter].compactMapValues { $0 }
    }
}
