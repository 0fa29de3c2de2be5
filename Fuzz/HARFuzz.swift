// libFuzzer entry for the HAR reader (scripts/fuzz har): the input is parsed as a HAR
// document with and without --skip-bad and the filters on. A TraceError is a correct
// answer; a crash, a hang or a sanitizer report is a finding.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHAR(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    for (skipBad, options) in [(false, [String: String]()), (true, ["drop-query": "on", "images-only": "on", "status": "2xx,304"])] {
        do {
            let (requests, _) = try HARTraceReader.parse(bytes, path: "fuzz.har", filter: try HARFilter(options), keepKeyNames: true, skipBad: skipBad)
            for (earlier, later) in zip(requests, requests.dropFirst()) { precondition(earlier.time <= later.time, "not in start order") }
            for request in requests { precondition(request.size >= 0, "negative size") }
            // A HEAD's response has no content (RFC 9110 §9.3.2).
            for request in requests where request.http?.isHEAD == true { precondition(request.size == 0, "a HEAD with a body") }
        } catch {}
    }
    return 0
}
