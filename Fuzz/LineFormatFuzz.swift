// libFuzzer entry for the line-oriented trace readers (scripts/fuzz wikimedia, webcachesim,
// twitter, cachelib, tencent, libcachesim-csv, oracle-general, arc-lis, lirs, vscsi, lcs,
// libcachesim-txt): CWB_FUZZ_FORMAT names the
// reader. The input is written to a file (readers stream files) and read to the end, with
// and without --skip-bad; libcachesim-csv also takes its first line as the --columns,
// --header and --delimiter options. A TraceError or WorkbenchError is a correct answer; a
// crash, a hang or a sanitizer report is a finding.
import Glibc

private let format = String(cString: getenv("CWB_FUZZ_FORMAT") ?? strdup("wikimedia"))
private let inputPath = "/dev/shm/cwb-fuzz-\(format)-\(getpid()).txt"

private func open(_ path: String, _ options: ReadOptions, _ formatOptions: [String: String]) throws -> any RequestSource {
    switch format {
    case "wikimedia": return try LineTraceReader(path: path, format: WikimediaFormat(), options: options)
    case "webcachesim": return try LineTraceReader(path: path, format: WebcachesimFormat(), options: options)
    case "twitter": return try LineTraceReader(path: path, format: TwitterFormat(), options: options)
    case "cachelib": return try LineTraceReader(path: path, format: CacheLibFormat(), options: options)
    case "tencent": return try LineTraceReader(path: path, format: TencentPhotoFormat(), options: options)
    case "libcachesim-csv": return try LineTraceReader(path: path, format: LibCacheSimCSVFormat(options: formatOptions), options: options)
    case "oracle-general": return try OracleGeneralReader(path: path)
    case "arc-lis": return try LineTraceReader(path: path, format: ARCListFormat(), options: options)
    case "lirs": return try LineTraceReader(path: path, format: LIRSFormat(), options: options)
    case "vscsi": return try VSCSIReader(path: path)
    case "lcs": return try LCSReader(path: path)
    case "libcachesim-txt": return try LineTraceReader(path: path, format: LibCacheSimTextFormat(), options: options)
    default: fatalError("CWB_FUZZ_FORMAT: unknown format \(format)")
    }
}

/// The fuzz input as a trace, so `InMemoryTrace.load` takes its bulk path.
private struct OracleFile: Trace {
    let path: String
    var label: String { path }
    func open(keepKeyNames: Bool) throws -> any RequestSource { try OracleGeneralReader(path: path) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLineFormat(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var body = UnsafeBufferPointer(start: data, count: size)
    var formatOptions: [String: String] = [:]
    if format == "libcachesim-csv", let newline = body.firstIndex(of: 0x0A) {
        // First line: columns;header;delimiter.
        let parts = String(decoding: body[..<newline], as: UTF8.self).split(separator: ";", omittingEmptySubsequences: false)
        for (name, value) in zip(["columns", "header", "delimiter"], parts) where !value.isEmpty { formatOptions[name] = String(value) }
        body = UnsafeBufferPointer(rebasing: body[(newline + 1)...])
    }
    let file = fopen(inputPath, "w")!
    fwrite(body.baseAddress, 1, body.count, file)
    fclose(file)
    var streamed: [Request]? = nil
    for skipBad in [false, true] {
        do {
            let source = try open(inputPath, ReadOptions(keepKeyNames: true, skipBadRows: skipBad), formatOptions)
            var rows = 0
            var all: [Request] = []
            while let chunk = try source.nextChunk() {
                rows += chunk.count
                if format == "oracle-general" && !skipBad { all += chunk }
                for request in chunk {
                    precondition(request.size >= 0 && request.size <= SizeLimits.largestObject, "size out of range")
                    if request.hasDimensions { precondition(SizeLimits.pixelCost(width: request.width, height: request.height) != nil, "pixel cost out of range") }
                    if let name = request.name { precondition(!name.isEmpty, "empty key") }
                }
            }
            precondition(format == "cachelib" || format == "arc-lis" || rows <= body.count, "more rows than bytes")
            // Binary records: at most one request per record's bytes.
            if format == "vscsi" { precondition(rows <= body.count / 32, "more vscsi records than bytes allow") }
            if format == "lcs" {
                // The 8 KiB layout's records are 24 bytes or more; the 1 KiB layout's (a format
                // string from byte 8) 1 byte or more.
                let oneKiB = body.count > 8 && body[8] == UInt8(ascii: "<")
                precondition(rows <= (oneKiB ? max(0, body.count - 1024) : max(0, body.count - 8192) / 24), "more lcs records than bytes allow")
            }
            if format == "arc-lis" { precondition(rows <= body.count * ARCListFormat.largestRun, "more blocks than lines allow") }
            if format == "oracle-general" && !skipBad { streamed = all }
        } catch {}
    }
    // oracleGeneral also loads in bulk (decoded into uninitialized memory) and packed (the
    // records kept, decoded per chunk): the same requests, or an error exactly when
    // streaming failed.
    if format == "oracle-general" {
        let loaded = try? InMemoryTrace.load(OracleFile(path: inputPath), keepKeyNames: false).requests
        precondition(loaded == streamed, "bulk load differs from streaming")
        var packed: [Request]?
        if let trace = try? InMemoryTrace.preload(OracleFile(path: inputPath), keepKeyNames: false), let source = try? trace.open(keepKeyNames: false) {
            var all: [Request] = []
            while let chunk = try? source.nextChunk() { all += chunk }
            packed = all
        }
        precondition(packed == streamed, "packed load differs from streaming")
    }
    return 0
}
