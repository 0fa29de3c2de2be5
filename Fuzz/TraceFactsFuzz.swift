import Foundation

// libFuzzer entry for the trace facts cache's entries read back from disk (scripts/fuzz
// facts): any bytes as an entry's JSON (TraceFactsEntry, decoded as TraceFactsCache.load
// decodes it) and its validation. A refusal is a correct answer; a crash, an entry kept
// whose figures are impossible, one kept for another file version or reading, or a kept
// entry that does not survive being written and read again, is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTraceFacts(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size <= TraceFactsEntry.sizeLimit,
          let entry = try? JSONDecoder().decode(TraceFactsEntry.self, from: Data(bytes: data, count: size)) else { return 0 }
    guard let kept = entry.validated(for: entry.identity, reading: entry.reading) else { return 0 }
    guard let workingSet = kept.workingSet else { preconditionFailure("a kept entry without a working set") }
    precondition(kept.version == TraceFactsEntry.currentVersion, "an entry of another version kept")
    precondition(kept.sha256.utf8.count == 64 && kept.sha256.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }, "a digest that is not one")
    precondition(kept.requests >= 0 && kept.droppedZeroSize >= 0 && kept.uniqueKeys >= 0 && kept.largestSize >= 0, "a negative count")
    precondition(kept.droppedZeroSize + kept.uniqueKeys <= kept.requests, "more keys and drops than requests")
    precondition(workingSet >= ByteTotal(kept.uniqueKeys) && workingSet <= ByteTotal(kept.uniqueKeys) * ByteTotal(kept.largestSize), "an impossible working set")
    // Another file version, or another reading of this one, never takes it.
    var other = entry.identity
    other.changedNanoseconds = other.changedNanoseconds == 0 ? 1 : 0
    precondition(entry.validated(for: other, reading: entry.reading) == nil, "kept for a changed file")
    precondition(entry.validated(for: entry.identity, reading: entry.reading + "x") == nil, "kept for another reading")
    // Written as the cache writes it and read back: the same entry, kept again.
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    guard let written = try? encoder.encode(kept), let again = try? JSONDecoder().decode(TraceFactsEntry.self, from: written) else {
        preconditionFailure("a kept entry that cannot be written and read back")
    }
    precondition(again == kept && again.validated(for: entry.identity, reading: entry.reading) != nil, "an entry changed by a round trip")
    return 0
}
