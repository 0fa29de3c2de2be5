import WorkbenchCore
import WorkbenchMetrics
#if canImport(Glibc)
import Glibc
#endif

/// A trace file on disk in a known format, reopened for each replay.
public struct TraceFile: Trace {
    public let path: String
    public let format: TraceFormat
    public let skipBadRows: Bool
    public let formatOptions: [String: String]
    /// Why the format was guessed from the file's content, when it was (neither named with
    /// `--format`, nor told by the file's name or a header naming its columns); said in a
    /// note on every run, since a wrong guess must not be silent.
    public internal(set) var guess: String?
    /// `--max-line-bytes` (`LineLengthLimit`), checked here so a bad value fails at once.
    public let maxLineBytes: Int

    public init(path: String, format: TraceFormat? = nil, skipBadRows: Bool = false, formatOptions: [String: String] = [:]) throws {
        try Self.checkRegularFile(path)
        self.path = path
        if let format {
            self.format = format
            guess = nil
        } else {
            (self.format, guess) = try TraceFormat.detection(path: path)
        }
        self.skipBadRows = skipBadRows
        self.formatOptions = formatOptions
        // Options for another format would be silently ignored: refuse them.
        let owners = ["columns": "libcachesim-csv", "header": "libcachesim-csv", "delimiter": "libcachesim-csv",
                      "status": "har", "drop-query": "har", "images-only": "har", "har-pages": "har", "har-view": "har", "har-runs": "har", AppRecordingReader.streamOption: "app-recording"]
        for name in formatOptions.keys.sorted() {
            if let owner = owners[name], owner != self.format.name {
                throw WorkbenchError("--\(name) applies to the \(owner) format, and \(path) is read as \(self.format.name) (name it with --format)")
            }
        }
        // Bad format options fail now, before any replay.
        if self.format.name == "libcachesim-csv" { _ = try LibCacheSimCSVFormat(options: formatOptions) }
        if self.format.name == "har" { _ = try HARFilter(formatOptions) }
        if self.format.name == "app-recording" { _ = try AppRecordingReader.stream(ReadOptions(formatOptions: formatOptions)) }
        maxLineBytes = try LineLengthLimit.bytes(formatOptions)
        if formatOptions[LineLengthLimit.optionName] != nil, LineLengthLimit.formatsWithoutLines.contains(self.format.name) {
            throw WorkbenchError("--\(LineLengthLimit.optionName) applies to text formats read line by line, and \(path) is read as \(self.format.name), which is not")
        }
    }

    public var label: String { path }

    /// A trace is read more than once (its checksum, the working set, each replay), so it
    /// must be a regular file: a pipe or FIFO would be empty on the second reading (and a
    /// FIFO with no writer would hang), so it is refused at once.
    package static func checkRegularFile(_ path: String) throws(TraceError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw TraceError(path: path, line: nil, reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw TraceError(path: path, line: nil, reason: "is a directory, not a trace file")
        default:
            throw TraceError(path: path, line: nil, reason: "is not a regular file (a pipe, FIFO or device); a trace is read several times, so save it to a file first (e.g. `cat … > trace.csv`)")
        }
    }

    public func open(keepKeyNames: Bool) throws -> any RequestSource {
        try format.open(path, ReadOptions(keepKeyNames: keepKeyNames, skipBadRows: skipBadRows, formatOptions: formatOptions, maxLineBytes: maxLineBytes))
    }
}

/// A trace format: one reader plus how to recognise its files. Adding a format is one
/// reader file and one entry in `all`.
public struct TraceFormat: Sendable {
    public let name: String
    public let summary: String
    public let extensions: [String]
    let open: @Sendable (String, ReadOptions) throws -> any RequestSource

    public static let all: [TraceFormat] = [
        TraceFormat(
            name: "csv", summary: "native CSV: time,key,size[,width,height][,op], header optional",
            extensions: ["csv", "txt"],
            open: { path, options in try CSVTraceReader(path: path, options: options) }),
        TraceFormat(
            name: "har", summary: "HAR 1.2 (Chrome, Firefox, Safari, Charles, Proxyman, Fiddler, WebPageTest): URL, size, status, caching headers",
            extensions: ["har"],
            open: { path, options in try HARTraceReader.open(path: path, options: options) }),
        TraceFormat(
            name: "app-recording", summary: "an app's own recording (CacheTraceRecorder, JSON Lines): image lookups with the app's outcome and decoded size, URLSession log, lifecycle",
            extensions: ["jsonl"],
            open: { path, options in try AppRecordingReader.open(path: path, options: options) }),
        TraceFormat(
            name: "libcachesim-csv", summary: "libCacheSim-style CSV with --columns time=N,key=N,size=N, --header on|off, --delimiter",
            extensions: [],
            open: { path, options in try LineTraceReader(path: path, format: LibCacheSimCSVFormat(options: options.formatOptions), options: options) }),
        TraceFormat(
            name: "oracle-general", summary: "libCacheSim oracleGeneral binary: 24-byte records u32 time, u64 id, u32 size, i64 next access",
            extensions: ["oraclegeneral", "oraclegeneral.bin"],
            open: { path, _ in try OracleGeneralReader(path: path) }),
        TraceFormat(
            name: "wikimedia", summary: "Wikimedia 2019 upload TSV: relative_unix, hashed_path_query, image_type, response_size, time_firstbyte",
            extensions: ["tsv"],
            open: { path, options in try LineTraceReader(path: path, format: WikimediaFormat(), options: options) }),
        TraceFormat(
            name: "webcachesim", summary: "space-separated 'time id size' (webcachesim, LRB)",
            extensions: ["tr"],
            open: { path, options in try LineTraceReader(path: path, format: WebcachesimFormat(), options: options) }),
        TraceFormat(
            name: "twitter", summary: "Twitter cache traces: timestamp,key,key size,value size,client id,operation,TTL",
            extensions: [],
            open: { path, options in try LineTraceReader(path: path, format: TwitterFormat(), options: options) }),
        TraceFormat(
            name: "cachelib", summary: "Meta CacheLib kvcache CSV: header with key, op, size [, op_time, key_size, op_count, ttl]",
            extensions: [],
            open: { path, options in try LineTraceReader(path: path, format: CacheLibFormat(), options: options) }),
        TraceFormat(
            name: "arc-lis", summary: "ARC paper block traces: start_block n_blocks ignored request_no; 512-byte blocks",
            extensions: ["lis"],
            open: { path, options in try LineTraceReader(path: path, format: ARCListFormat(), options: options) }),
        TraceFormat(
            name: "lirs", summary: "LIRS-style block traces: one block number per line; 512-byte blocks",
            extensions: ["trc"],
            open: { path, options in try LineTraceReader(path: path, format: LIRSFormat(), options: options) }),
        TraceFormat(
            name: "tencent", summary: "Tencent photo CDN: YYYYMMDDHHMMSS id format spec size hit terminal ms (space-separated)",
            extensions: [],
            open: { path, options in try LineTraceReader(path: path, format: TencentPhotoFormat(), options: options) }),
        TraceFormat(
            name: "vscsi", summary: "libCacheSim vscsi block traces: vscsi1 (32-byte) or vscsi2 (40-byte) records, told apart as libCacheSim does",
            extensions: ["vscsi"],
            open: { path, _ in try VSCSIReader(path: path) }),
        TraceFormat(
            name: "lcs", summary: "libCacheSim lcs binary: 8 KiB self-describing header, then v1–v8 records (v2+ carry the op)",
            extensions: ["lcs"],
            open: { path, _ in try LCSReader(path: path) }),
        TraceFormat(
            name: "libcachesim-txt", summary: "libCacheSim txt: one object id per line, each request 1 byte, time = line number",
            extensions: [],
            open: { path, options in try LineTraceReader(path: path, format: LibCacheSimTextFormat(), options: options) }),
    ]

    public static func named(_ name: String) throws -> TraceFormat {
        guard let format = all.first(where: { $0.name == name.lowercased() }) else {
            throw WorkbenchError("unknown trace format '\(name)'; known: \(all.map(\.name).joined(separator: ", "))")
        }
        return format
    }

    /// By name (after any compression extension: `x.tsv.zst` is Wikimedia), then by the
    /// header line for CSV-like files (Wikimedia's and CacheLib's name their columns);
    /// native CSV when nothing else claims the file.
    public static func detect(path: String) throws -> TraceFormat { try detection(path: path).format }

    /// The format, and why when it is a guess from the content (see `TraceFile.guess`):
    /// libCacheSim's binaries by their magic or record layout, and text traces by the
    /// shape of their first line — Tencent's photo CDN (8 space-separated fields, a
    /// YYYYMMDDHHMMSS timestamp first), Twitter's (7 comma-separated fields, a memcached
    /// command sixth: libCacheSim's `twitter_cluster52.csv` sample has this layout),
    /// webcachesim's (three space-separated whole numbers) and libCacheSim's txt (one field a line).
    public static func detection(path: String) throws -> (format: TraceFormat, guess: String?) {
        let lower = Compression.innerPath(path).lowercased()
        // `.bin` too: `bench convert t.csv t.bin` writes oracleGeneral, so it reads back.
        if lower.contains("oraclegeneral") || lower.hasSuffix(".bin") { return (try named("oracle-general"), nil) }
        // libCacheSim's own rule (bin/cli_reader_utils.c, detect_trace_type): the name
        // contains `.lcs` or `.vscsi` (`w01.vscsi.lcs.zst` is lcs).
        if lower.contains(".lcs") { return (try named("lcs"), nil) }
        if lower.contains(".vscsi") { return (try named("vscsi"), nil) }
        if let format = all.dropFirst().first(where: { format in format.extensions.contains { lower.hasSuffix("." + $0) } }) {
            return (format, nil)
        }
        let head = try firstBytes(path)
        if head.count >= 8, head.prefix(8).reversed().reduce(UInt64(0), { $0 << 8 | UInt64($1) }) == LCSReader.magic {
            return (try named("lcs"), "its first 8 bytes are lcs's magic 0x123456789abcdef0")
        }
        if head.contains(0), let layout = VSCSIReader.layout(head) {
            return (try named("vscsi"), "binary, and its first two records carry \(layout.rawValue)'s version bytes")
        }
        // A text trace's first field is a time or a column name; keys may hold NUL bytes,
        // but a NUL there means a binary file, whose message would otherwise be CSV's.
        if let zero = head.prefix(while: { $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: "\t") && $0 != 0x0A }).firstIndex(of: 0) {
            throw TraceError(path: path, line: 1, reason: "binary data (a NUL byte at offset \(zero)), not a text trace; name its format with --format (oracle-general, lcs and vscsi are libCacheSim's binaries; `bench list` shows all)")
        }
        let line = String(decoding: head.prefix { $0 != 0x0A }, as: UTF8.self)
        let header = line.lowercased()
        // JSON Lines whose first line is a recording's header, else JSON: an HTTP archive.
        if header.trimmingSpaces.hasPrefix("{") && line.contains("\"\(AppRecordingReader.formatMarker)\"") { return (try named("app-recording"), nil) }
        if header.trimmingSpaces.hasPrefix("{") { return (try named("har"), nil) }
        if header.contains("relative_unix") && header.contains("hashed_path_query") { return (try named("wikimedia"), nil) }
        let names = Set(header.split(separator: ",").map { String($0).trimmingSpaces })
        // CacheLib's own column names; the native CSV's header (time,key,size,…,op) has none.
        if names.isSuperset(of: ["key", "op", "size"]) && !names.isDisjoint(with: ["op_time", "key_size", "op_count"]) {
            return (try named("cachelib"), nil)
        }
        if let (format, guess) = try guessByFirstLine(line.trimmingSpaces) { return (format, guess) }
        return (all[0], nil)
    }

    /// Text layouts with no header or name of their own, told by the first line's shape
    /// (none of them is a native CSV row: that has 3 to 6 comma-separated fields).
    static func guessByFirstLine(_ line: String) throws -> (TraceFormat, String)? {
        let spaced = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if spaced.count == 8, spaced[0].utf8.count == 14, spaced[0].utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            return (try named("tencent"), "its first line has 8 space-separated fields starting with a YYYYMMDDHHMMSS timestamp (Tencent's photo CDN layout)")
        }
        let commas = line.split(separator: ",", omittingEmptySubsequences: false)
        if commas.count == 7, Double(String(commas[0]).trimmingSpaces) != nil,
           ["get", "gets", "set", "add", "replace", "cas", "append", "prepend", "incr", "decr", "delete"].contains(String(commas[5]).trimmingSpaces.lowercased()) {
            return (try named("twitter"), "its first line has 7 comma-separated fields with a memcached command sixth (Twitter's cache-trace layout)")
        }
        // webcachesim's `time id size` (AdaptSize's and LRB's traces): three whole numbers.
        if spaced.count == 3, commas.count == 1, spaced.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }) {
            return (try named("webcachesim"), "its first line is three space-separated whole numbers (webcachesim's 'time id size' layout)")
        }
        if !line.isEmpty, spaced.count == 1, commas.count == 1 {
            return (try named("libcachesim-txt"), "its first line is one field (libCacheSim's txt layout: one object id per line, each request 1 byte)")
        }
        return nil
    }

    /// The first bytes (at most 4 KiB), decompressed if need be.
    static func firstBytes(_ path: String) throws -> [UInt8] {
        let file = try ChunkedFileReader(path: path, initialCapacity: 4096)
        _ = try file.refill()
        return Array(UnsafeRawBufferPointer(start: file.buffer + file.start, count: min(4096, file.end - file.start)))
    }
}

extension TraceFile {
    /// This file as `--mode http` reads it: an app recording's http events (its URLSession
    /// log) instead of its image lookups; any other format unchanged.
    public func readingHTTPStream() throws -> TraceFile {
        guard format.name == "app-recording", formatOptions[AppRecordingReader.streamOption] == nil else { return self }
        var options = formatOptions
        options[AppRecordingReader.streamOption] = AppRecordingReader.Stream.http.rawValue
        var file = try TraceFile(path: path, format: format, skipBadRows: skipBadRows, formatOptions: options)
        file.guess = guess
        return file
    }
}
