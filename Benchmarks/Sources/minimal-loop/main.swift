// minimal-loop POLICY CAPACITY_BYTES TRACE.oracleGeneral [MAX_REQUESTS]
//
// Replays the first MAX_REQUESTS records of an oracleGeneral trace through a minimal loop
// (`MinimalLoop`): the trace is loaded into two arrays first, then only the loop is timed.
// Prints `policy=… capacity=… requests=… hits=… seconds=… mreq_per_s=…`. Under
// `valgrind --tool=callgrind`, the instructions of MAX_REQUESTS = N less those of N = 0 are
// the loop's (the loading is the same).
import Foundation
import MinimalLoops

let arguments = CommandLine.arguments
guard arguments.count >= 4, let policy = MinimalPolicy(rawValue: arguments[1]), let capacity = Int(arguments[2]) else {
    FileHandle.standardError.write("usage: minimal-loop lru|fifo|clock|sieve CAPACITY_BYTES TRACE.oracleGeneral [MAX_REQUESTS]\n".data(using: .utf8)!)
    exit(2)
}
guard let data = FileManager.default.contents(atPath: arguments[3]) else {
    FileHandle.standardError.write("minimal-loop: cannot read \(arguments[3])\n".data(using: .utf8)!)
    exit(2)
}
let trace = PackedTrace(oracleGeneral: [UInt8](data), limit: arguments.count > 4 ? Int(arguments[4]) ?? .max : .max)
let started = DispatchTime.now().uptimeNanoseconds
let hits = MinimalLoop.hits(policy, trace, capacity: capacity)
let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
print("policy=\(policy.rawValue) capacity=\(capacity) requests=\(trace.ids.count) hits=\(hits) seconds=\(String(format: "%.4f", seconds)) mreq_per_s=\(String(format: "%.2f", Double(trace.ids.count) / max(seconds, 1e-9) / 1e6))")
