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

@Suite("IdIndex (open addressing with backward-shift deletion)", .onTestWorkers)
struct IdIndexTests {
    @Test("agrees with Dictionary over random inserts, replaces and removes")
    func differential() {
        var index = IdIndex()
        defer { index.deallocate() }
        var model: [UInt64: Int32] = [:]
        var random = SeededRandom(seed: 42)
        for step in 0..<200_000 {
            // Small key ranges force long probe runs and wrap-around; multiples of 2^k
            // collide on their home bucket under multiplicative hashing.
            let key = step % 3 == 0 ? random.next() % 512 : (random.next() % 64) << 40
            switch random.next() % 3 {
            case 0, 1:
                let value = Int32(truncatingIfNeeded: random.next() & 0x7fff_ffff)
                index.insert(key, value)
                model[key] = value
            default:
                #expect(index.remove(key) == model.removeValue(forKey: key))
            }
            if step % 997 == 0 {
                #expect(index.count == model.count)
                for probe in 0..<UInt64(600) { #expect(index.find(probe) == model[probe]) }
                for (key, value) in model { #expect(index.find(key) == value) }
            }
        }
        for (key, value) in model { #expect(index.find(key) == value) }
    }

    @Test("grows past its initial size and keeps every entry")
    func growth() {
        var index = IdIndex()
        defer { index.deallocate() }
        for key in 0..<UInt64(100_000) { index.insert(key * 7919, Int32(key)) }
        #expect(index.count == 100_000)
        #expect((0..<UInt64(100_000)).allSatisfy { index.find($0 * 7919) == Int32($0) })
        #expect(index.find(1) == nil)
    }
}
