import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The table's notes on what a row is a model of and what its disk figures rest on
/// (issue 21 §7, §8): the durability every disk latency ran under, and which NSCache a
/// row is (the LRU model, or the Linux corelibs object).
enum ModelNotes {
    static func notes(_ results: [RunResult]) -> [String] {
        durabilityNotes(results) + familyNotes(results) + clockProNotes(results) + learnedNotes(results)
    }

    /// `clockpro` is libCacheSim's ClockPro.c as it runs, which is not the paper's CLOCK-Pro:
    /// said for rows that evicted nothing (what the sentence claims; a row that evicted would
    /// not be this model, and gets no such sentence).
    static func clockProNotes(_ results: [RunResult]) -> [String] {
        results.filter { $0.backend == "clockpro" && $0.replayed && $0.tally.finalFacts.evictions == 0 }.map {
            "\(TableReport.rowLabel($0)): evicted nothing (evictions 0): libCacheSim's ClockPro.c, which clockpro follows, enters every object cold and refuses one once the cold bytes would pass capacity × init-ratio-cold, so it keeps the first objects that fit and never evicts; it is not the paper's CLOCK-Pro (docs/policies-queues.md)"
        }
    }

    /// The learned policies run in libCacheSim's Python package: their counts are libCacheSim's
    /// own, their time is mostly the round trip to that process.
    static func learnedNotes(_ results: [RunResult]) -> [String] {
        let names = Set(LearnedPolicyProcess.classes.map(\.key))
        let rows = results.filter { names.contains($0.backend) && $0.replayed }
        guard !rows.isEmpty else { return [] }
        let labels = rows.reduce(into: [String]()) { if !$0.contains($1.backendLabel) { $0.append($1.backendLabel) } }
        return ["\(labels.joined(separator: ", ")): libCacheSim's own code (its PyPI package, in a Python process), so their hits are libCacheSim's; "
            + (rows.contains { $0.timing } ? "latencies and req/s measure a round trip to that process, not the policy" : "req/s measures a round trip to that process per request, not the policy")]
    }

    /// One sentence on the durability the disk rows ran under: the same level for all (equal
    /// terms), or the levels apart (then latencies compare durability too).
    static func durabilityNotes(_ results: [RunResult]) -> [String] {
        var notes: [String] = []
        var levels: [(label: String, level: Durability)] = []
        for result in results {
            guard let level = result.tally.finalDetails.durability else { continue }
            if level == .uncontrolled {
                notes.append("\(result.backendLabel): durability uncontrolled: swift-corelibs-foundation writes its files with its own code, which --durability does not reach and the I/O probe does not see (fsyncs –)")
            } else if !levels.contains(where: { $0.label == result.backendLabel }) {
                levels.append((result.backendLabel, level))
            }
        }
        let distinct = levels.reduce(into: [Durability]()) { if !$0.contains($1.level) { $0.append($1.level) } }
        if distinct.count == 1 {
            notes.insert("disk latencies, writes and fsyncs rest on durability \(distinct[0].rawValue) for every disk backend (\(meaning(distinct[0]))); --durability none|consistent|full sets it", at: 0)
        } else if distinct.count > 1 {
            let each = levels.map { "\($0.label) \($0.level.rawValue)" }.joined(separator: ", ")
            notes.insert("disk rows ran under different durability (\(each)): their latencies, writes and fsyncs differ by durability as well as by design; one --durability level (and no --synchronous or --fsync) puts them on equal terms", at: 0)
        }
        return notes
    }

    /// What a level promises, in words.
    static func meaning(_ level: Durability) -> String {
        switch level {
        case .none: "no fsync: a store survives the app's crash, not a power loss"
        case .consistent: "each body fsynced before it is renamed or committed: a power loss keeps old or new bodies, never torn ones, and may lose the latest stores"
        case .full: "each store fsynced with its folder or WAL before set returns: it survives a power loss"
        case .uncontrolled: "not set by the workbench"
        }
    }

    /// Which NSCache a row is: said once per kind present.
    static func familyNotes(_ results: [RunResult]) -> [String] {
        var notes: [String] = []
        let parts = results.map { ModelFamily.components(of: $0.backend) }
        if parts.contains(where: { $0.contains("nscache") }) {
            notes.append("nscache (alone or as a tier's memory: sdwebimage, kingfisher) is a model, not Apple's NSCache: an LRU with hard cost and count limits; Apple documents both limits as hints (\"not a strict limit\") and its eviction order as not guaranteed, so these hit ratios are the model's")
        }
        if parts.contains(where: { $0.contains("foundation-nscache") }) {
            notes.append("foundation-nscache is the Linux swift-corelibs-foundation NSCache (lowest cost evicted first, reads ignored), not Apple's: a comparison, never an iOS candidate (model_of linux-corelibs)")
        }
        return notes
    }
}
