import Foundation
import Testing
@testable import CacheWorkbench

private func unit(_ keys: [UInt64]) -> [(UInt64, Int)] { keys.map { ($0, 1) } }

private let (A, B, C, D): (UInt64, UInt64, UInt64, UInt64) = (1, 2, 3, 4)
private let (o, x) = (false, true)

/// The shared AdaptSize sample (`../shared/data/traces/`, webcachesim format) written as the
/// `time,key,size` CSV the reference script reads; nil (with the reason printed) when absent.
private func sharedSample(in folder: TemporaryFolder) throws -> String? {
    let path = sharedTrace("webcachesim_adaptsize_request.trace.xz")
    guard FileManager.default.fileExists(atPath: path) else {
        print("skipped the shared sample: \(path) is absent")
        return nil
    }
    let requests = try InMemoryTrace.load(TraceFile(path: path, format: TraceFormat.named("webcachesim")), keepKeyNames: false).requests
    let csv = folder.path + "/adaptsize.csv"
    try OutputFile.write(requests.map { "\(Int($0.time)),\($0.id),\($0.size)\n" }.joined(), to: csv)
    return csv
}

/// `backend` against libCacheSim's `reference` class on the shared sample at 1, 16 and 256 MiB.
private func expectEqualOnSharedSample(backend: String, reference: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let folder = TemporaryFolder()
    guard let csv = try sharedSample(in: folder) else { return }
    for capacity in [1 << 20, 16 << 20, 256 << 20] {
        try expectEqualToLibCacheSim(backend: backend, reference: reference, parameters: [], options: [:],
                                     trace: csv, capacity: capacity, sourceLocation: sourceLocation)
    }
}

@Suite("Adaptive policies: LeCaR")
struct AdaptivePolicyTests {
    @Test("lecar: weight 1 on LRU is LRU, weight 0 is LFU (oldest among the lowest count)")
    func lecarExperts() throws {
        let trace = unit([A, A, B, C, B, A])
        // Capacity 2. At C the cache holds A (2 requests, least recent) and B (1): LRU evicts
        // A, so B hits and A misses (evicting C); LFU evicts B, then C for B, and A hits.
        let lru = try PolicySimulator<LeCaRPolicy>(capacity: 2, options: ["lru-weight": "1", "update-weight": "0"])
        #expect(try policyOutcomes(lru, trace) == [o, x, o, o, x, o])
        let lfu = try PolicySimulator<LeCaRPolicy>(capacity: 2, options: ["lru-weight": "0", "update-weight": "0"])
        #expect(try policyOutcomes(lfu, trace) == [o, x, o, o, o, x])
        #expect(lfu.keys(\.lru) == [A, B])
        #expect(lfu.settings == "update-weight=0;lru-weight=0.0;generator=lehmer64;seed=3735928559")
    }

    @Test("lecar: a hit in LRU's history lowers LRU's weight by exp(−0.45 · dr^t), both renormalized")
    func lecarLearns() throws {
        // Capacity 2, w_lru 1 (w_lfu stays 0.5, as LeCaR_init leaves it): request 4 (C)
        // evicts A by LRU; request 5 (A) finds it in LRU's history one request later.
        let cache = try PolicySimulator<LeCaRPolicy>(capacity: 2, options: ["lru-weight": "1"])
        _ = try policyOutcomes(cache, unit([A, A, B, C]))
        #expect(cache.policyState(\.lruWeight) == 1 && cache.policyState(\.lfuWeight) == 0.5)
        _ = try policyOutcomes(cache, unit([A]))
        let dr = 0.005.squareRoot()  // 0.005^(1/capacity), capacity 2
        let lowered = exp(-0.45 * dr) + 1e-10  // ≈ 0.968681
        let sum = lowered + 0.5 + 2e-10
        #expect(abs(cache.policyState(\.lruWeight) - lowered / sum) < 1e-12)  // ≈ 0.65956
        #expect(abs(cache.policyState(\.lfuWeight) - (0.5 + 1e-10) / sum) < 1e-12)
        // A miss outside the histories changes nothing; update-weight=0 never learns.
        let before = cache.policyState(\.lruWeight)
        _ = try policyOutcomes(cache, unit([D]))
        #expect(cache.policyState(\.lruWeight) == before)
        let fixed = try PolicySimulator<LeCaRPolicy>(capacity: 2, options: ["lru-weight": "1", "update-weight": "0"])
        _ = try policyOutcomes(fixed, unit([A, A, B, C, A]))
        #expect(fixed.policyState(\.lruWeight) == 1)
    }

    @Test("lecar: bad parameters are errors")
    func lecarOptions() {
        #expect(throws: WorkbenchError.self) { try PolicySimulator<LeCaRPolicy>(capacity: 2, options: ["update-weight": "2"]) }
        #expect(throws: WorkbenchError.self) { try PolicySimulator<LeCaRPolicy>(capacity: 2, options: ["lru-weight": "1.5"]) }
    }

    @Test("lecar equals libCacheSim's LeCaR (its draws reproduced)")
    func lecarExact() throws {
        try expectEqualToLibCacheSim(backend: "lecar", reference: "LeCaR")
        try expectEqualToLibCacheSim(backend: "lecar", reference: "LeCaR", parameters: ["lru_weight=0.3"])
        try expectEqualToLibCacheSim(backend: "lecar", reference: "LeCaR", parameters: ["update_weight=0"])
        try expectEqualOnSharedSample(backend: "lecar", reference: "LeCaR")
    }
}
