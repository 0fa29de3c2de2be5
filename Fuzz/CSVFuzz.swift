// libFuzzer entry for the native CSV reader (scripts/fuzz csv): the input is written to a
// file (the reader streams files) and read to the end, with and without --skip-bad. A
// TraceError is a correct answer; a crash, a hang or a sanitizer report is a finding.
import Glibc

private let inputPath = "/dev/shm/cwb-fuzz-csv-\(getpid()).csv"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let file = fopen(inputPath, "w")!
    fwrite(data, 1, size, file)
    fclose(file)
    for skipBad in [false, true] {
        do {
            let reader = try CSVTraceReader(path: inputPath, options: ReadOptions(keepKeyNames: true, skipBadRows: skipBad))
            var rows = 0
            while let chunk = try reader.nextChunk() {
                rows += chunk.count
                for request in chunk { precondition(request.size >= 0, "negative size") }
            }
            precondition(rows <= size, "more rows than bytes")
        } catch {}
    }
    return 0
}
