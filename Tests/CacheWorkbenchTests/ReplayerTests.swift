import Testing
@testable import CacheWorkbench
@testable import WorkbenchReports
@testable import WorkbenchCommands
@testable import WorkbenchCore
@testable import WorkbenchMetrics
@testable import WorkbenchTraces
@testable import WorkbenchHTTP
@testable import WorkbenchBackends
@testable import WorkbenchSimulation
@testable import WorkbenchExperiments

/// One test per demand-fill rule of DESIGN.md.
@Suite("Replayer: demand-fill rules", .onTestWorkers)
struct ReplayerTests {
    @Test("rule 1: a miss inserts, so the next request for the key hits")
    func missInserts() throws {
        let tally = try replay(trace([(1, 5), (1, 5), (2, 5), (2, 5)]), backend: LRUCache(capacity: 100), capacity: 100)
        #expect(tally.hits == 2 && tally.misses == 2)
        #expect(tally.objectHitRatio == 0.5)
    }

    @Test("rule 2: a hit does not change the stored size; byte hits count the request's size")
    func hitKeepsSize() throws {
        let cache = LRUCache(capacity: 100)
        let tally = try replay(trace([(1, 4), (1, 90)]), backend: cache, capacity: 100)
        #expect(tally.hits == 1)
        #expect(cache.usedBytes == 4)
        #expect(tally.requestedBytes == 94 && tally.hitBytes == 90)
    }

    @Test("rule 3: an object larger than the capacity is a miss and not inserted")
    func tooLarge() throws {
        let cache = LRUCache(capacity: 10)
        let tally = try replay(trace([(1, 11), (1, 11), (2, 10), (2, 10)]), backend: cache, capacity: 10)
        #expect(tally.misses == 3 && tally.hits == 1)
        #expect(tally.tooLarge == 2)
        #expect(cache.keysByRecency == [2])
    }

    @Test("rule 4: size-0 requests are dropped and counted, not replayed")
    func zeroSizeDropped() throws {
        let tally = try replay(trace([(1, 0), (1, 5), (2, 0), (1, 5)]), backend: LRUCache(capacity: 10), capacity: 10)
        #expect(tally.traceRequests == 4)
        #expect(tally.droppedZeroSize == 2)
        #expect(tally.requests == 2 && tally.hits == 1)
    }

    @Test("rule 5: evict until used + size fits, no per-object overhead")
    func evictUntilFits() throws {
        let cache = LRUCache(capacity: 10)
        let tally = try replay(trace([(1, 5), (2, 5), (3, 10)]), backend: cache, capacity: 10)
        #expect(tally.finalFacts.evictions == 2)
        #expect(cache.usedBytes == 10)
    }

    @Test("rule 6: % and fractions are shares of unique keys × first size (size 0 excluded)")
    func workingSet() throws {
        let requests = trace([(1, 4), (2, 6), (1, 100), (3, 0)])
        let summary = try TraceSummary.scan(InMemoryTrace(label: "t", requests: requests), costModel: .encoded)
        #expect(summary == { var s = TraceSummary(); s.requests = 4; s.droppedZeroSize = 1; s.uniqueKeys = 2; s.workingSetBytes = 10; s.largestSize = 100; return s }())
        #expect(try Capacity(parsing: "50%").resolve(workingSetBytes: summary.workingSetBytes) == 5)
        #expect(try Capacity(parsing: "0.3").resolve(workingSetBytes: summary.workingSetBytes) == 3)
        #expect(try Capacity(parsing: "64MB").resolve(workingSetBytes: 10) == 64 << 20)
    }

    @Test("pixel cost: width × height × 4, falling back to size without dimensions")
    func pixelCost() throws {
        let withDimensions = Request(time: 0, id: 1, size: 10, width: 3, height: 2)
        #expect(CostModel.pixels.cost(of: withDimensions) == 24)
        #expect(CostModel.encoded.cost(of: withDimensions) == 10)
        #expect(CostModel.pixels.cost(of: Request(time: 0, id: 2, size: 10)) == 10)
        var options = ReplayOptions()
        options.costModel = .pixels
        let cache = LRUCache(capacity: 30)
        _ = try replay([withDimensions, Request(time: 1, id: 2, size: 10, width: 1, height: 2)], backend: cache, capacity: 30, options: options)
        #expect(cache.keysByRecency == [2])  // 24 + 8 > 30 evicts the first
    }

    @Test("timing on records one get per request and one set per insert; off records none")
    func timing() throws {
        let requests = trace([(1, 1), (1, 1), (2, 1), (3, 50)])
        let timed = try replay(requests, backend: LRUCache(capacity: 10), capacity: 10)
        #expect(timed.get?.count == 4 && timed.set?.count == 2)
        var options = ReplayOptions()
        options.timing = false
        let untimed = try replay(requests, backend: LRUCache(capacity: 10), capacity: 10, options: options)
        #expect(untimed.get == nil && untimed.set == nil)
        #expect(untimed.hits == timed.hits)
    }

    @Test("a backend error ends the run and is recorded, not thrown")
    func backendFailure() throws {
        final class Failing: CacheBackend {
            struct Broken: Error, CustomStringConvertible { var description: String { "disk on fire" } }
            static let needsKeyNames = false
            static let holdsPayloads = false
            var facts: BackendFacts { BackendFacts(entries: 0, accountedBytes: 0, evictions: 0) }
            var settings: String { "" }
            func didReceiveMemoryWarning() throws -> Int { 0 }
            func get(_ request: Request) throws -> Bool {
                if request.id == 3 { throw Broken() }
                return false
            }
            func set(_ request: Request, cost: Int, payload: Payload?) throws {}
            func remove(_ request: Request) throws {}
        }
        let tally = try replay(trace([(1, 1), (2, 1), (3, 1), (4, 1)]), backend: Failing(), capacity: 10)
        #expect(tally.failure == "disk on fire")
        #expect(tally.requests == 3)
    }

    @Test("results are identical for the same trace and options")
    func deterministic() throws {
        var spec = ImageFeedSpec()
        spec.requests = 10_000
        let requests = ImageFeedGenerator(spec: spec).requests()
        let first = try replay(requests, backend: LRUCache(capacity: 30 << 20), capacity: 30 << 20)
        let second = try replay(requests, backend: LRUCache(capacity: 30 << 20), capacity: 30 << 20)
        #expect(first.hits == second.hits && first.hitBytes == second.hitBytes)
        #expect(first.finalFacts == second.finalFacts)
    }
}
