// minimal-loop POLICY CAPACITY_BYTES TRACE.oracleGeneral [MAX_REQUESTS]
// minimal-loop curve CAPACITY,CAPACITY,... TRACE.oracleGeneral [MAX_REQUESTS]
//
// Replays the first MAX_REQUESTS records of an oracleGeneral trace through a minimal loop
// (`MinimalLoop`), or computes the minimal exact LRU curve at the given capacities in bytes,
// ascending (`MinimalCurve`): the trace is loaded into two arrays first (and, for a curve, its
// distinct keys counted), then only the loop is timed. Prints `policy=… capacity=… requests=…
// hits=… seconds=… mreq_per_s=…`, for a curve `policy=curve capacities=… requests=… seconds=…
// mreq_per_s=…` and a `capacity=… hits=…` line per capacity. Under `valgrind --tool=callgrind`,
// the loop's instructions are `MinimalLoop.hits`'s or `MinimalCurve.hits`'s, inclusive
// (`callgrind_annotate --inclusive=yes`): loading N records and counting their keys grow with N.
// A curve's capacities must each hold the largest object (it has no too-large rule).
import Foundation
import MinimalLoops

let arguments = CommandLine.arguments
let usage = "usage: minimal-loop lru|fifo|clock|sieve CAPACITY_BYTES TRACE.oracleGeneral [MAX_REQUESTS]\n       minimal-loop curve CAPACITY,CAPACITY,... TRACE.oracleGeneral [MAX_REQUESTS]\n"
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(message.data(using: .utf8)!)
    exit(2)
}
let isCurve = arguments.count >= 2 && arguments[1] == "curve"
guard arguments.count >= 4, isCurve || MinimalPolicy(rawValue: arguments[1]) != nil else { fail(usage) }
let capacities = arguments[2].split(separator: ",").map { Int($0) }
guard !capacities.isEmpty, capacities.allSatisfy({ ($0 ?? 0) > 0 }), isCurve || capacities.count == 1 else { fail(usage) }
guard let data = FileManager.default.contents(atPath: arguments[3]) else { fail("minimal-loop: cannot read \(arguments[3])\n") }
var limit = Int.max
if arguments.count > 4 {
    guard let value = Int(arguments[4]), value >= 0 else { fail("minimal-loop: MAX_REQUESTS must be a count of 0 or more, not \(arguments[4])\n") }
    limit = value
}
let trace = PackedTrace(oracleGeneral: [UInt8](data), limit: limit)
/// `body`'s result and its wall time, formatted with the rate of the trace's requests.
func timed<Result>(_ body: () -> Result) -> (Result, String) {
    let started = DispatchTime.now().uptimeNanoseconds
    let result = body()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    let rate = Double(trace.ids.count) / max(seconds, 1e-9) / 1e6
    return (result, "seconds=\(String(format: "%.4f", seconds)) mreq_per_s=\(String(format: "%.2f", rate))")
}
if isCurve {
    let sorted = capacities.map { $0! }.sorted()
    guard Set(sorted).count == sorted.count else { fail("minimal-loop: repeated capacity\n") }
    let largest = Int(trace.sizes.max() ?? 0)
    guard sorted[0] >= largest else {
        fail("minimal-loop: capacity \(sorted[0]) is below the largest object (\(largest) bytes): the minimal curve has no too-large rule\n")
    }
    let distinct = Set(trace.ids).count
    guard distinct < Int(Int32.max) else { fail("minimal-loop: \(distinct) keys: slots are 32-bit\n") }
    let (hits, time) = timed { MinimalCurve.hits(trace, capacities: sorted, distinctKeys: distinct) }
    print("policy=curve capacities=\(sorted.count) requests=\(trace.ids.count) \(time)")
    for (capacity, count) in zip(sorted, hits) { print("capacity=\(capacity) hits=\(count)") }
} else {
    let policy = MinimalPolicy(rawValue: arguments[1])!
    let (hits, time) = timed { MinimalLoop.hits(policy, trace, capacity: capacities[0]!) }
    print("policy=\(policy.rawValue) capacity=\(capacities[0]!) requests=\(trace.ids.count) hits=\(hits) \(time)")
}
