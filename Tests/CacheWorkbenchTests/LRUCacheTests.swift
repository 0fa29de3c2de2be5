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

@Suite("LRU backend", .onTestWorkers)
struct LRUCacheTests {
    /// Capacity 10 bytes; hand-computed:
    /// A4 miss [A] 4 · B4 miss [B A] 8 · A hit [A B] · C4 miss, evict B, [C A] 8 ·
    /// B4 miss, evict A, [B C] 8 · D2 miss [D B C] 10 · A4 miss, evict C, [A D B] 10.
    @Test("hand-computed trace: hits, misses, byte hit ratio, evictions, order")
    func handComputed() throws {
        let cache = LRUCache(capacity: 10)
        let requests = trace([(1, 4), (2, 4), (1, 4), (3, 4), (2, 4), (4, 2), (1, 4)])
        let tally = try replay(requests, backend: cache, capacity: 10)
        #expect(tally.requests == 7)
        #expect(tally.hits == 1)
        #expect(tally.misses == 6)
        #expect(tally.hitBytes == 4 && tally.requestedBytes == 26)
        #expect(tally.byteHitRatio == 4.0 / 26.0)
        #expect(tally.finalFacts.evictions == 3)
        #expect(cache.keysByRecency == [1, 4, 2])
        #expect(cache.usedBytes == 10)
        #expect(tally.memory.accounted == 10)
    }

    @Test("a hit moves the key to the front so another is evicted")
    func recencyProtects() {
        let cache = LRUCache(capacity: 3)
        for id: UInt64 in [1, 2, 3] { cache.set(Request(time: 0, id: id, size: 1), cost: 1) }
        #expect(cache.get(Request(time: 0, id: 1, size: 1)))
        cache.set(Request(time: 0, id: 4, size: 1), cost: 1)
        #expect(cache.keysByRecency == [4, 1, 3])
        #expect(!cache.get(Request(time: 0, id: 2, size: 1)))
    }

    @Test("one large insert evicts several; remove frees its bytes; slots are reused")
    func multiEvictAndRemove() {
        let cache = LRUCache(capacity: 10)
        for id: UInt64 in 1...5 { cache.set(Request(time: 0, id: id, size: 2), cost: 2) }
        cache.set(Request(time: 0, id: 9, size: 7), cost: 7)
        #expect(cache.keysByRecency == [9, 5])
        #expect(cache.facts == BackendFacts(entries: 2, accountedBytes: 9, evictions: 4))
        cache.remove(Request(time: 0, id: 9, size: 7))
        #expect(cache.keysByRecency == [5])
        #expect(cache.usedBytes == 2)
        cache.remove(Request(time: 0, id: 42, size: 1))  // absent: no effect
        for id: UInt64 in 20...23 { cache.set(Request(time: 0, id: id, size: 2), cost: 2) }
        #expect(cache.keysByRecency == [23, 22, 21, 20, 5])
        #expect(cache.usedBytes == 10)
    }

    @Test("set on a present key updates its cost and evicts others if needed")
    func overwrite() {
        let cache = LRUCache(capacity: 10)
        cache.set(Request(time: 0, id: 1, size: 4), cost: 4)
        cache.set(Request(time: 0, id: 2, size: 4), cost: 4)
        cache.set(Request(time: 0, id: 2, size: 9), cost: 9)
        #expect(cache.keysByRecency == [2])
        #expect(cache.usedBytes == 9)
    }

    @Test("never holds more than its capacity, on a generated trace")
    func capacityInvariant() throws {
        var spec = ImageFeedSpec()
        spec.requests = 20_000
        spec.keys = .id
        let cache = LRUCache(capacity: 50 << 20)
        for request in ImageFeedGenerator(spec: spec).requests() {
            if !cache.get(request), request.size <= cache.capacity {
                cache.set(request, cost: request.size)
            }
            #expect(cache.usedBytes <= cache.capacity)
        }
        #expect(cache.facts.evictions > 0)
    }
}

@Suite("LRU against a naive reference", .onTestWorkers)
struct LRUDifferentialTests {
    /// The textbook LRU: an array ordered from least to most recent, O(n) per request,
    /// written from libCacheSim's cache_get_base and sharing no code with `LRUCache`.
    struct NaiveLRU {
        let capacity: Int
        var entries: [(key: UInt64, size: Int)] = []
        var used = 0
        var hits = 0
        var hitBytes = 0
        var evictions = 0

        mutating func request(_ key: UInt64, _ size: Int) {
            guard size > 0 else { return }
            if let position = entries.firstIndex(where: { $0.key == key }) {
                entries.append(entries.remove(at: position))
                hits += 1
                hitBytes += size
                return
            }
            guard size <= capacity else { return }
            while used + size > capacity {
                used -= entries.removeFirst().size
                evictions += 1
            }
            entries.append((key, size))
            used += size
        }
    }

    @Test("same hits, hit bytes, evictions and final order on generated traces", arguments: [
        (UInt64(1), 2 << 20), (UInt64(2), 20 << 20), (UInt64(3), 200 << 20),
    ])
    func agrees(seed: UInt64, capacity: Int) throws {
        var spec = ImageFeedSpec()
        spec.requests = 20_000
        spec.images = 2_000
        spec.seed = seed
        let requests = ImageFeedGenerator(spec: spec).requests()
        var reference = NaiveLRU(capacity: capacity)
        for request in requests { reference.request(request.id, request.size) }
        let cache = LRUCache(capacity: capacity)
        let tally = try replay(requests, backend: cache, capacity: capacity)
        #expect(tally.hits == reference.hits)
        #expect(tally.hitBytes == reference.hitBytes)
        #expect(tally.finalFacts.evictions == reference.evictions)
        #expect(cache.keysByRecency == reference.entries.reversed().map(\.key))
        #expect(tally.hits > 0 && reference.evictions > 0)
    }
}
