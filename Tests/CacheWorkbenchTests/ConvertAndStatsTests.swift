import Foundation
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

@Suite("bench convert and bench stats", .onTestWorkers)
struct ConvertAndStatsTests {
    /// A B A C B A, sizes A 4, B 2, C 1, at whole seconds.
    static let hand = "time,key,size\n0,A,4\n1,B,2\n2,A,4\n3,C,1\n4,B,2\n5,A,4\n"

    @Test("oracleGeneral: next access by hand (1-based, as libCacheSim's traceConv writes it), and CSV → oracleGeneral → CSV keeps ids, times and sizes")
    func roundTrip() throws {
        let folder = TemporaryFolder()
        let source = try TraceFile(path: folder.file("t.csv", Self.hand))
        let binary = folder.path + "/t.oracleGeneral.bin"
        try TraceConversion.convert(source, to: binary, as: .oracleGeneral)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: binary)))
        #expect(bytes.count == 6 * 24)
        let next = (0..<6).map { index in bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: index * 24 + 16, as: Int64.self) } }
        #expect(next == [3, 5, 6, -1, -1, -1])  // 1-based, as libCacheSim aa0fc40's traceConv writes this trace
        let back = folder.path + "/back.csv"
        try TraceConversion.convert(try TraceFile(path: binary), to: back, as: .csv)
        let original = try InMemoryTrace.load(source, keepKeyNames: false).requests
        let again = try InMemoryTrace.load(try TraceFile(path: back), keepKeyNames: false).requests
        #expect(again.map(\.id) == original.map(\.id))
        #expect(again.map(\.size) == original.map(\.size))
        #expect(again.map(\.time) == original.map(\.time))
        // CSV → CSV keeps the key text.
        let copy = folder.path + "/copy.csv"
        try TraceConversion.convert(source, to: copy, as: .csv)
        #expect(try InMemoryTrace.load(try TraceFile(path: copy), keepKeyNames: true).requests.map(\.keyText) == ["A", "B", "A", "C", "B", "A"])
    }

    @Test("oracleGeneral streamed in chunks rewritten in place: every record once, and a chunk kept by the caller keeps its requests")
    func streamedChunks() throws {
        let folder = TemporaryFolder()
        let rows = (0..<10_000).map { "\($0),\($0 % 777),\($0 % 13 + 1)" }.joined(separator: "\n")
        let source = try TraceFile(path: folder.file("t.csv", "time,key,size\n" + rows + "\n"))
        let binary = folder.path + "/t.oracleGeneral.bin"
        try TraceConversion.convert(source, to: binary, as: .oracleGeneral)
        let expected = try InMemoryTrace.load(source, keepKeyNames: false).requests
        let reader = try TraceFile(path: binary).open(keepKeyNames: false)
        let first = try #require(try reader.nextChunk())  // kept while the next ones are read
        var all = Array(first)
        while let chunk = try reader.nextChunk() { all.append(contentsOf: chunk) }
        #expect(first.count == 4096 && all.count == 10_000)
        #expect(all.map(\.id) == expected.map(\.id) && all.map(\.size) == expected.map(\.size) && all.map(\.time) == expected.map(\.time))
        #expect(first.map(\.id) == expected.prefix(4096).map(\.id))
    }

    @Test("output format from the name, or refused")
    func target() throws {
        #expect(try TraceConversion.Target(named: nil, path: "x.oracleGeneral.bin") == .oracleGeneral)
        #expect(try TraceConversion.Target(named: nil, path: "x.csv") == .csv)
        #expect(throws: WorkbenchError.self) { try TraceConversion.Target(named: nil, path: "x.parquet") }
        #expect(throws: WorkbenchError.self) { try TraceConversion.Target(named: "har", path: "x.csv") }
    }

    @Test("stats: hand-computed reuse distances, one-hit wonders and working set")
    func stats() throws {
        let folder = TemporaryFolder()
        let stats = try TraceStatistics.compute(try TraceFile(path: folder.file("t.csv", Self.hand)))
        #expect(stats.requests == 6)
        #expect(stats.uniqueKeys == 3)
        #expect(stats.workingSetBytes == 7)
        #expect(stats.totalBytes == 17)
        #expect(abs(stats.oneHitWonderShare - 1.0 / 3) < 1e-12)
        #expect(stats.reuseShare == 0.5)
        // A after {B}: 1; B after {A, C}: 2; A after {C, B}: 2.
        #expect(stats.reuseDistancePercentiles.map(\.value) == [2, 2, 2, 2])
        #expect(stats.sizePercentiles.map(\.value) == [4, 4, 4, 4])
        #expect(stats.withoutDimensions == 6)
    }

    @Test("the prefix-sum tree's range and prefix sums agree with a naive sum; one built from values equals one built by adds",
          arguments: [1, 7, 8, 9, 50, 64, 65, 513, 4_097])
    func prefixSumTree(count: Int) {
        let tree = PrefixSumTree(count: count)
        defer { tree.deallocate() }
        var plain = [Int](repeating: 0, count: count)
        var random = SeededRandom(seed: UInt64(count))
        for _ in 0..<500 {
            let index = Int(random.next() % UInt64(count))
            let delta = Int(random.next() % 7) - 3
            tree.add(index, delta)
            plain[index] += delta
            let a = Int(random.next() % UInt64(count)), b = Int(random.next() % UInt64(count))
            #expect(tree.sum(from: min(a, b), to: max(a, b)) == plain[min(a, b)...max(a, b)].reduce(0, +))
            #expect(tree.prefixSum(b) == plain[0...b].reduce(0, +))
        }
        #expect(tree.prefixSum(-1) == 0)
        #expect(tree.prefixSum(count - 1) == plain.reduce(0, +))
        let built = PrefixSumTree(values: plain, count: count)
        defer { built.deallocate() }
        #expect((0..<count).allSatisfy { built.prefixSum($0) == tree.prefixSum($0) })
    }

    @Test("the tree's suffix sums up to the newest position and its moves agree with a naive array, as a stack-distance pass uses them",
          arguments: [1, 7, 8, 9, 64, 65, 513, 4_097])
    func prefixSumTreeMoves(count: Int) {
        // Objects at distinct positions, each moved to the newest position when requested
        // again (with a new size one time in four): the tree holds nothing after `newest`.
        let tree = PrefixSumTree(count: count)
        defer { tree.deallocate() }
        var plain = [Int](repeating: 0, count: count)
        var at: [Int: Int] = [:]  // object → its position
        var random = SeededRandom(seed: UInt64(count) &+ 99)
        for newest in 0..<count {
            let object = Int(random.next() % 40)
            let size = Int(random.next() % 1_000) + 1
            if let last = at[object] {
                #expect(tree.suffixSum(after: last, through: max(last, newest - 1)) == plain[(last + 1)..<max(last + 1, newest)].reduce(0, +))
                let added = random.next() % 4 == 0 ? size : plain[last]
                tree.move(from: last, removing: plain[last], to: newest, adding: added)
                plain[newest] = added
                plain[last] = 0
            } else {
                tree.add(newest, size)
                plain[newest] = size
            }
            at[object] = newest
            let probe = Int(random.next() % UInt64(newest + 1))
            let exact = plain[(probe + 1)..<(newest + 1)].reduce(0, +)
            #expect(tree.suffixSum(after: probe, through: newest) == exact)
            // Stopping above a limit: exact when the sum stays within it, else a part of it above it.
            let limit = Int(random.next() % UInt64(2 * exact + 2)) - 1
            let bounded = tree.suffixSum(after: probe, through: newest, stoppingAbove: limit)
            #expect(exact <= limit ? bounded == exact : (bounded > limit && bounded <= exact))
            #expect(tree.prefixSum(newest) == plain.reduce(0, +))
            // The first position whose prefix sum reaches a target (entries non-negative here).
            let total = plain.reduce(0, +)
            #expect(tree.total == total)
            for target in [Int(random.next() % UInt64(total + 2)), total, total + 1, 0, -5, plain[0], plain[0] + 1] {
                var sum = 0
                let first = target <= 0 ? 0 : (plain.indices.first { sum += plain[$0]; return sum >= target } ?? count)
                #expect(tree.firstPosition(prefixSumAtLeast: target) == first, "target \(target)")
            }
        }
    }

    @Test("CLI: convert, stats, and a truncated binary is exit 2 with the byte offset")
    func cli() throws {
        let folder = TemporaryFolder()
        let csv = folder.file("t.csv", Self.hand)
        let convert = try bench(["convert", csv, folder.path + "/t.oracleGeneral.bin"])
        #expect(convert.status == 0)
        #expect(convert.out.contains("6 requests"))
        let stats = try bench(["stats", folder.path + "/t.oracleGeneral.bin"])
        #expect(stats.status == 0)
        #expect(stats.out.contains("unique keys         3"))
        let cut = folder.bytes("cut.oracleGeneral", Array(try Data(contentsOf: URL(fileURLWithPath: folder.path + "/t.oracleGeneral.bin")).prefix(30)))
        let broken = try bench(["stats", cut])
        #expect(broken.status == 2)
        #expect(broken.err.contains("\(cut): byte 24: truncated record (6 of 24 bytes)"))
    }
}
