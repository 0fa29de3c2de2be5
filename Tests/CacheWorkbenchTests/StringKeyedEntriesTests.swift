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

@Suite("StringKeyedEntries and KeyArena", .onTestWorkers)
struct StringKeyedEntriesTests {
    /// A key whose hash is forced into a handful of values, so chains are long and
    /// removals happen at the head, middle and tail of them.
    private func key(_ index: Int) -> HashedKey {
        var key = HashedKey(Request(time: 0, key: "https://cdn.example/" + String(repeating: "x", count: index % 40) + "/\(index)", size: 1), scheme: .full)
        key.hash = UInt64(index % 7)
        return key
    }

    @Test("agrees with a naive model over random inserts, reads, removes and oldest-first removals", .timeLimit(.minutes(1)))
    func differential() throws {
        var entries = StringKeyedEntries()
        var costs: [Int: Int] = [:]
        var recency: [Int] = []  // oldest first
        var random = SeededRandom(seed: 9)
        for step in 0..<40_000 {
            let index = Int(random.next() % 300)
            let slot = entries.find(key(index))
            #expect((slot != nil) == (costs[index] != nil))
            switch random.next() % 5 {
            case 0, 1:
                if let slot {
                    entries.replace(slot, cost: step, payload: nil)
                } else {
                    try entries.insert(key(index), cost: step, payload: nil)
                }
                costs[index] = step
                recency.removeAll { $0 == index }
                recency.append(index)
            case 2:
                if let slot {
                    entries.touch(slot)
                    recency.removeAll { $0 == index }
                    recency.append(index)
                }
            case 3:
                if let slot {
                    #expect(entries.remove(slot) == costs.removeValue(forKey: index))
                    recency.removeAll { $0 == index }
                }
            default:
                if let oldest = recency.first {
                    #expect(entries.removeOldest() == costs.removeValue(forKey: oldest))
                    recency.removeFirst()
                }
            }
            #expect(entries.count == costs.count)
            #expect(entries.totalCost == costs.values.reduce(0, +))
        }
        var order: [String] = []
        var slot = entries.newest
        while slot >= 0 {
            order.append(entries.key(slot))
            slot = entries.older(slot)
        }
        #expect(order == recency.reversed().map { key($0).text })
    }

    @Test("the arena reuses a freed span for a key of the same rounded size and compares bytes exactly")
    func arena() throws {
        var arena = KeyArena()
        func store(_ text: String) throws -> KeyArena.Span {
            var text = text
            return try text.withUTF8 { try arena.store(UnsafeRawBufferPointer($0)) }
        }
        func equal(_ span: KeyArena.Span, _ text: String) -> Bool {
            var text = text
            return text.withUTF8 { arena.bytesEqual(span, UnsafeRawBufferPointer($0)) }
        }
        let first = try store("https://a.example/1")  // 19 bytes: two granules
        let second = try store("é")
        let empty = try store("")
        #expect(arena.string(first) == "https://a.example/1")
        #expect(arena.string(second) == "é")
        #expect(arena.string(empty) == "")
        #expect(equal(first, "https://a.example/1"))
        #expect(!equal(first, "https://a.example/2"))
        #expect(!equal(first, "https://a.example/"))
        #expect(equal(empty, ""))
        #expect(second.offset == first.offset + 2)
        arena.release(first)
        let reused = try store("https://b.example/22")  // 20 bytes: also two granules
        #expect(reused.offset == first.offset)
        #expect(arena.string(reused) == "https://b.example/22")
        #expect(arena.string(second) == "é")
        let longer = try store(String(repeating: "z", count: 40))  // three granules: a fresh span
        #expect(longer.offset > second.offset)
    }
}
