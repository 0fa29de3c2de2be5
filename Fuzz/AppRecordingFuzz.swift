// libFuzzer entry for the app-recording reader (scripts/fuzz app-recording,
// AppRecordingReader.swift, AppRecordingLine.swift): the input is written to a file (the
// reader streams files) and read to the end in both streams (image, http), with and without
// --skip-bad, and its facts read. A TraceError or WorkbenchError is a correct answer; a
// crash, a hang, a sanitizer report or a broken invariant below is a finding.
import Glibc

private let inputPath = "/dev/shm/cwb-fuzz-app-recording-\(getpid()).jsonl"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAppRecording(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let file = fopen(inputPath, "w")!
    fwrite(data, 1, size, file)
    fclose(file)
    let lineCount = UnsafeBufferPointer(start: data, count: size).reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
    for stream in ["image", "http"] {
        for skipBad in [false, true] {
            let options = ReadOptions(keepKeyNames: true, skipBadRows: skipBad, formatOptions: [AppRecordingReader.streamOption: stream])
            do {
                let source = try AppRecordingReader.open(path: inputPath, options: options)
                var requests: [Request] = []
                while try source.append(to: &requests, limit: 7) > 0 {}
                let facts = try AppRecordingReader.facts(path: inputPath, options: options)
                let summary = facts.summary
                precondition(requests.count <= lineCount, "more requests than lines")
                precondition(requests.count == (stream == "image" ? summary.imageEvents : summary.eventsByKind["http", default: 0]), "requests and counted events differ")
                precondition(summary.imageSources.values.reduce(0, +) == summary.imageEvents, "image sources do not add up")
                precondition(summary.encodedBytesFromEarlierEvent <= summary.imagesWithoutEncodedBytes, "more sizes filled than missing")
                precondition(skipBad || summary.skippedLines == 0, "lines skipped without --skip-bad")
                for (earlier, later) in zip(requests, requests.dropFirst()) { precondition(earlier.time <= later.time, "time goes back") }
                for request in requests {
                    precondition(request.time >= 0 && request.size >= 0 && request.size <= SizeLimits.largestObject, "time or size out of range")
                    if request.hasDimensions { precondition(SizeLimits.pixelCost(width: request.width, height: request.height) != nil, "pixel cost out of range") }
                    if let name = request.name { precondition(!name.isEmpty, "empty key") }
                    precondition((stream == "image") == (request.recorded != nil) && (stream == "http") == (request.http != nil), "wrong stream")
                    if request.http?.isHEAD == true { precondition(request.size == 0, "a HEAD with a body") }
                }
                for (earlier, later) in zip(facts.lifecycle, facts.lifecycle.dropFirst()) {
                    precondition(earlier.requestsBefore <= later.requestsBefore && earlier.time <= later.time, "lifecycle out of order")
                }
                precondition(facts.lifecycle.allSatisfy { $0.requestsBefore <= requests.count }, "a lifecycle event after the end")
            } catch {}
        }
    }
    return 0
}
