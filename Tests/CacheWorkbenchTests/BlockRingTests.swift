import Dispatch
import Foundation
import Testing
@testable import WorkbenchCore
@testable import WorkbenchTraces

/// `BlockRing`: one read of a trace shared by a fanned-out sweep's cores, read ahead on a
/// thread of its own.
@Suite("block ring")
struct BlockRingTests {
    /// Requests 0..<count, one id each.
    static func requests(_ count: Int) -> [Request] {
        (0..<count).map { Request(time: Double($0), id: UInt64($0), size: 1 + $0 % 7) }
    }

    static func source(_ count: Int) throws -> any RequestSource {
        try InMemoryTrace(label: "t", requests: requests(count)).open(keepKeyNames: false)
    }

    /// Consumer `consumer`'s blocks, in order, until the end (at most 1,000).
    static func drain(_ ring: BlockRing<Request, Double?>, _ consumer: Int = 0) -> [[Request]] {
        var all: [[Request]] = []
        while all.count < 1000, let (elements, _) = ring.next(consumer) {
            all.append(Array(elements))
            ring.release(consumer)
        }
        return all
    }

    @Test("blocks come in trace order and sizes, the last short (none after an exact multiple); a reader's larger chunks are kept whole")
    func blocksInOrder() throws {
        for (count, size, sizes) in [(10_000, 4096, [4096, 4096, 1808]), (8192, 4096, [4096, 4096]), (0, 4096, []), (5, 1, [1, 1, 1, 1, 1])] {
            let ring = BlockRing<Request, Double?>(ScriptedSource(total: count, chunk: min(size, 512)), consumers: 1, blockSize: size)
            let blocks = Self.drain(ring)
            try ring.finish()
            #expect(blocks.map(\.count) == sizes, "\(count) by \(size)")
            #expect(blocks.flatMap { $0 }.map(\.id) == Self.requests(count).map(\.id))
        }
        // The in-memory cursor hands out 16,384 requests a chunk.
        let ring = BlockRing<Request, Double?>(try Self.source(40_000), consumers: 1, blockSize: 10_000)
        let blocks = Self.drain(ring)
        try ring.finish()
        #expect(blocks.map(\.count) == [16_384, 16_384, 7232])
        #expect(blocks.flatMap { $0 }.map(\.id) == Self.requests(40_000).map(\.id))
    }

    @Test("two consumers at their own pace each see every block in order; progress is reported as the slower releases, with the mark taken after that block")
    func consumersAtTheirPace() throws {
        let ring = BlockRing<Request, Double?>(try Self.source(40_000), consumers: 2, slots: 2, blockSize: 16_384)
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var ids: [[UInt64]] = [[], []]
        }
        let seen = Seen()
        let group = DispatchGroup()
        for consumer in 0..<2 {
            group.enter()
            Thread {
                var ids: [UInt64] = []
                while let (elements, _) = ring.next(consumer) {
                    ids += elements.map(\.id)
                    if consumer == 1 { usleep(20_000) }  // the slow one
                    ring.release(consumer)
                }
                seen.lock.withLock { seen.ids[consumer] = ids }
                group.leave()
            }.start()
        }
        var marks: [Double?] = []
        while let mark = ring.waitForProgress() { marks.append(mark) }
        group.wait()
        try ring.finish()
        #expect(seen.ids[0] == (0..<40_000).map(UInt64.init) && seen.ids[1] == seen.ids[0])
        // The cursor's progress after each block, in order (some may be passed over, never reordered).
        #expect(!marks.isEmpty && marks.last == 1 && marks.map { $0 ?? -1 } == marks.map { $0 ?? -1 }.sorted(), "\(marks)")
        #expect(Set(marks.compactMap { $0 }).isSubset(of: [16_384.0 / 40_000, 32_768.0 / 40_000, 1]))
    }

    /// Hands out `chunk` requests per call, signalling `calls` at each, failing at `failAt`.
    final class ScriptedSource: RequestSource, @unchecked Sendable {
        let total: Int, chunk: Int, failAt: Int?
        var position = 0
        let calls = DispatchSemaphore(value: 0)
        init(total: Int, chunk: Int, failAt: Int? = nil) { (self.total, self.chunk, self.failAt) = (total, chunk, failAt) }
        func nextChunk() throws -> ArraySlice<Request>? {
            calls.signal()
            if let failAt, position >= failAt { throw TraceError(path: "scripted", line: position + 1, reason: "scripted failure") }
            guard position < total else { return nil }
            let end = min(total, position + chunk)
            defer { position = end }
            return BlockRingTests.requests(end)[position..<end]
        }
        var progress: Double? { Double(position) / Double(total) }
        var skippedRows: Int { 0 }
    }

    /// Counts `calls` signals until `count` or 10 s without one.
    static func calls(_ source: ScriptedSource, upTo count: Int) -> Int {
        var seen = 0
        while seen < count, source.calls.wait(timeout: .now() + 10) == .success { seen += 1 }
        return seen
    }

    @Test("the next blocks are read while a consumer holds one, up to the ring's slots and no further (without the ring the source would wait for the consumer)")
    func readsAheadWithinTheRing() throws {
        let source = ScriptedSource(total: 10_000, chunk: 100)
        let ring = BlockRing<Request, Double?>(source, consumers: 1, slots: 3, blockSize: 300)
        let held = ring.next(0)
        #expect(held.map { Array($0.elements.map(\.id)) } == (0..<300).map(UInt64.init))
        // Three slots: blocks 0, 1 and 2 read (9 calls) while block 0 is held, and no 10th.
        #expect(Self.calls(source, upTo: 9) == 9)
        #expect(source.calls.wait(timeout: .now() + 0.5) == .timedOut)
        ring.release(0)
        #expect(Self.calls(source, upTo: 3) == 3)  // block 3, into block 0's slot
        ring.cancel()
        try ring.finish()
    }

    @Test("a read's error ends the blocks after those read before it, and finish throws it; cancel stops the reader and the consumers")
    func errorsAndCancel() throws {
        let failing = BlockRing<Request, Double?>(ScriptedSource(total: 1000, chunk: 100, failAt: 500), consumers: 1, slots: 2, blockSize: 300)
        let first = failing.next(0)
        #expect(first?.elements.count == 300)
        failing.release(0)
        #expect(failing.next(0) == nil)
        #expect(throws: TraceError.self) { try failing.finish() }
        let cancelled = BlockRing<Request, Double?>(ScriptedSource(total: 100_000, chunk: 100), consumers: 2, slots: 2, blockSize: 300)
        #expect(cancelled.next(0) != nil)
        cancelled.cancel()
        #expect(cancelled.next(1) == nil && cancelled.waitForProgress() == nil)
        try cancelled.finish()
    }
}
