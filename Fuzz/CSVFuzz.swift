// libFuzzer entry for the native CSV reader (scripts/fuzz csv): the input is written to a
// file (the reader streams files) and read to the end, with and without --skip-bad, then
// once more under a line limit (--max-line-bytes) taken from the first byte (1–256 bytes),
// so the over-long-line path is fuzzed too: every row read under it must come from a file
// that has no line longer than the limit, or the read must fail. A TraceError is a correct
// answer; a crash, a hang or a sanitizer report is a finding.
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
    if size > 0 {
        let limit = Int(data[0]) + 1
        do {
            let reader = try CSVTraceReader(path: inputPath, options: ReadOptions(skipBadRows: true, maxLineBytes: limit))
            while try reader.nextChunk() != nil {}
            // Read to the end: no line (quoted line breaks aside) may exceed the limit.
            var run = 0, quotes = false
            for index in 0..<size {
                if data[index] == 0x22 { quotes = true }
                run = data[index] == 0x0A ? 0 : run + 1
                precondition(quotes || run <= limit, "a line longer than the limit was read")
            }
        } catch {}
    }
    return 0
}
