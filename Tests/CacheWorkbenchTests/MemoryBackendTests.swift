import Foundation
import Testing
import Dispatch
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

private func keyed(_ key: String, _ size: Int = 1) -> Request { Request(time: 0, key: "k/" + key, size: size) }

private func nscache(_ limit: Int, eviction: NSCacheLike.Options.Eviction = .lru, countLimit: Int = 0) -> NSCacheLike {
    var options = NSCacheLike.Options(totalCostLimit: limit)
    options.eviction = eviction
    options.countLimit = countLimit
    return NSCacheLike(options)
}

@Suite("Memory backends", .onTestWorkers)
struct MemoryBackendTests {
    @Test("nscache lru: a read protects an entry; eviction after the store until within the limit")
    func nscacheLRU() throws {
        let cache = nscache(10)
        try cache.set(keyed("a"), cost: 4, payload: nil)
        try cache.set(keyed("b"), cost: 4, payload: nil)
        #expect(cache.get(keyed("a")))
        try cache.set(keyed("c"), cost: 4, payload: nil)  // 12 > 10: evict b (least recent)
        #expect(cache.keysByRecency == ["k/c", "k/a"])
        #expect(cache.facts == BackendFacts(entries: 2, accountedBytes: 8, evictions: 1))
        try cache.set(keyed("big"), cost: 10, payload: nil)  // evicts a and c, keeps itself
        #expect(cache.keysByRecency == ["k/big"])
    }

    @Test("nscache lowest-cost: cheapest first, newest first among equal costs, reads don't reorder")
    func nscacheLowestCost() throws {
        let cache = nscache(10, eviction: .lowestCost)
        try cache.set(keyed("a"), cost: 3, payload: nil)
        try cache.set(keyed("b"), cost: 3, payload: nil)
        try cache.set(keyed("c"), cost: 4, payload: nil)
        #expect(cache.get(keyed("b")))
        try cache.set(keyed("d"), cost: 2, payload: nil)  // 12 > 10: evict d itself (cheapest)
        #expect(!cache.get(keyed("d")))
        try cache.set(keyed("e"), cost: 3, payload: nil)  // 13: evict e (cost 3, newest of the 3s)
        #expect(!cache.get(keyed("e")) && cache.get(keyed("a")) && cache.get(keyed("b")))
        try cache.set(keyed("f"), cost: 5, payload: nil)  // 15: evict b (3, newer than a), then a
        #expect(Set(cache.keysByRecency) == ["k/c", "k/f"])
    }

    @Test("nscache count limit")
    func countLimit() throws {
        let cache = nscache(1_000, countLimit: 2)
        for key in ["a", "b", "c"] { try cache.set(keyed(key), cost: 1, payload: nil) }
        #expect(cache.keysByRecency == ["k/c", "k/b"])
    }

    @Test("nscache lowest-cost evicts exactly as the real corelibs NSCache", arguments: [UInt64(1), 2])
    func matchesFoundation(seed: UInt64) throws {
        let requests = generated(requests: 6_000, images: 600, seed: seed)
        let options = pixelOptions
        let capacity = 200 << 20
        let ours = try replay(requests, backend: nscache(capacity, eviction: .lowestCost), capacity: capacity, options: options)
        let real = try replay(requests, backend: FoundationNSCache(totalCostLimit: capacity), capacity: capacity, options: options)
        #expect(ours.hits == real.hits)
        #expect(ours.finalFacts == real.finalFacts)
        #expect(ours.finalFacts.evictions > 100)
    }

    @Test("autopurge: over capacity, purge the oldest until usage − preferred bytes are gone")
    func autopurgeArithmetic() throws {
        let cache = AutoPurgingImageCache(memoryCapacity: 10, preferredMemoryUsageAfterPurge: 6)
        cache.set(keyed("a"), cost: 4, payload: nil)
        cache.set(keyed("b"), cost: 4, payload: nil)
        #expect(cache.get(keyed("a")))  // a is now newer than b
        cache.set(keyed("c"), cost: 4, payload: nil)  // 12 > 10: purge ≥ 6: b (4) then a (4)
        #expect(cache.facts == BackendFacts(entries: 1, accountedBytes: 4, evictions: 2))
        #expect(cache.get(keyed("c")) && !cache.get(keyed("a")))
        let o1 = AutoPurgingImageCacheO1(memoryCapacity: 10, preferredMemoryUsageAfterPurge: 6)
        for (key, read) in [("a", false), ("b", false), ("a", true), ("c", false)] {
            if read { _ = o1.get(keyed(key)) } else { try o1.set(keyed(key), cost: 4, payload: nil) }
        }
        #expect(o1.facts == cache.facts)
    }

    @Test("autopurge and autopurge-o1: identical hits and evictions on generated traces", arguments: [UInt64(3), 4])
    func autopurgeVariantsAgree(seed: UInt64) throws {
        let requests = generated(requests: 20_000, images: 1_000, seed: seed)
        let options = pixelOptions
        let capacity = 100 << 20
        let sorted = try replay(requests, backend: AutoPurgingImageCache(memoryCapacity: capacity, preferredMemoryUsageAfterPurge: capacity * 6 / 10), capacity: capacity, options: options)
        let listed = try replay(requests, backend: AutoPurgingImageCacheO1(memoryCapacity: capacity, preferredMemoryUsageAfterPurge: capacity * 6 / 10), capacity: capacity, options: options)
        #expect(sorted.hits == listed.hits && sorted.hitBytes == listed.hitBytes)
        #expect(sorted.finalFacts == listed.finalFacts)
        #expect(sorted.finalFacts.evictions > 1_000)
    }

    @Test("accounted cost never above the limit once a store returns", arguments: ["nscache", "foundation-nscache", "autopurge", "autopurge-o1"])
    func limitHolds(name: String) throws {
        let capacity = 50 << 20
        let backend = try BackendRegistry.named(name).make(BackendConfig(capacityBytes: capacity))
        var seen = 0
        for request in generated(requests: 5_000) where try !backend.get(request) {
            let cost = CostModel.pixels.cost(of: request)
            guard cost <= capacity else { continue }
            try backend.set(request, cost: cost, payload: nil)
            #expect(backend.facts.accountedBytes <= capacity)
            seen += 1
        }
        #expect(seen > 1_000 && backend.facts.evictions > 0)
    }

    @Test("memory warnings: NSCache-based and AF caches drop everything; corelibs NSCache ignores them")
    func warnings() throws {
        for (name, releases) in [("nscache", true), ("autopurge", true), ("autopurge-o1", true), ("foundation-nscache", false), ("lru", false)] {
            let backend = try BackendRegistry.named(name).make(BackendConfig(capacityBytes: 1 << 20))
            try backend.set(keyed("a"), cost: 100, payload: nil)
            try backend.set(keyed("b"), cost: 50, payload: nil)
            let released = try backend.didReceiveMemoryWarning()
            #expect(released == (releases ? 150 : 0), "\(name)")
            #expect(try backend.get(keyed("a")) == !releases, "\(name)")
        }
    }

    @Test("digest and full key hashes give the same hits as cf on ordinary keys")
    func keyHashesAgree() throws {
        let requests = generated(requests: 5_000)
        var hits: [Int] = []
        for hash in StringKeyHash.allCases {
            var options = NSCacheLike.Options(totalCostLimit: 30 << 20)
            options.keyHash = hash
            hits.append(try replay(requests, backend: NSCacheLike(options), capacity: 30 << 20).hits)
        }
        #expect(Set(hits).count == 1 && hits[0] > 0)
    }

    @Test("options: unknown values are refused with the backend's name")
    func options() {
        #expect(throws: WorkbenchError.self) { try NSCacheLike.Options(BackendConfig(capacityBytes: 1, options: ["key-hash": "md5"])) }
        #expect(throws: WorkbenchError.self) { try NSCacheLike.Options(BackendConfig(capacityBytes: 1, options: ["eviction": "fifo"])) }
        #expect(throws: WorkbenchError.self) { try BackendConfig(capacityBytes: 100, options: ["purge-target": "1.5"]).purgeTarget() }
        #expect(try! BackendConfig(capacityBytes: 100).purgeTarget() == 60)
    }
}

@Suite("nscache under concurrent use", .onTestWorkers)
struct NSCacheConcurrencyTests {
    /// Without the mutex the lists corrupt and a walk never ends (checked by removing it):
    /// the time limit turns that hang into a failure.
    @Test("eight threads of gets and sets keep the accounting consistent", .timeLimit(.minutes(1)))
    func concurrent() {
        let cache = nscache(64 * 100)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            var random = SeededRandom(seed: UInt64(thread))
            for _ in 0..<20_000 {
                let request = keyed("k\(random.next() % 500)")
                if !cache.get(request) { try? cache.set(request, cost: 100, payload: nil) }
            }
        }
        let facts = cache.facts
        #expect(facts.accountedBytes == facts.entries * 100)
        #expect(facts.accountedBytes <= 64 * 100 && facts.entries == 64)
        #expect(Set(cache.keysByRecency).count == 64)
    }
}
