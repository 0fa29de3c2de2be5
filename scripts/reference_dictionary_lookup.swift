// A reference point for `nscache --key-hash full` get latency: Swift's own
// Dictionary<String, Int> looked up with every key of a trace, in trace order, each
// lookup timed with two clock reads exactly as `bench` times a backend call (a miss
// inserts the key, as demand fill does). No lock and no recency list, so this is a floor
// for a string-keyed cache on this machine, not a competitor.
//
//   swiftc -O scripts/reference_dictionary_lookup.swift -o /tmp/dictionary_lookup
//   /tmp/dictionary_lookup trace.csv        # native CSV with a header; key in column 2
import Foundation

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write("usage: dictionary_lookup TRACE.csv\n".data(using: .utf8)!)
    exit(2)
}
let text = try String(contentsOfFile: CommandLine.arguments[1], encoding: .utf8)
let keys = text.split(separator: "\n").dropFirst().map { String($0.split(separator: ",", omittingEmptySubsequences: false)[1]) }

func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

var dictionary: [String: Int] = [:]
var nanoseconds: [UInt64] = []
nanoseconds.reserveCapacity(keys.count)
var hits = 0
for (index, key) in keys.enumerated() {
    let started = now()
    let found = dictionary[key] != nil
    nanoseconds.append(now() - started)
    if found { hits += 1 } else { dictionary[key] = index }
}
nanoseconds.sort()
print("entries \(dictionary.count), hits \(hits), lookup p50 \(nanoseconds[nanoseconds.count / 2]) ns, p99 \(nanoseconds[nanoseconds.count * 99 / 100]) ns")
