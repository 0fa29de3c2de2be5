import WorkbenchCore
import Foundation

/// One read of a trace shared by several consumers (a fanned-out sweep's cores), in blocks of
/// about `blockSize` elements (requests or key records): a reading thread fills a ring of
/// `slots` blocks ahead, each consumer takes the blocks in order at its own pace, and a slot
/// is read again once every consumer has released it. With each block comes a `Mark` taken on
/// the reading thread right after it was read (the progress, the facts gathered so far), so
/// no consumer reads the reader's state while a later read changes it.
///
/// Why a ring: fed one block at a time (read, then every core feeds it, then the next), the
/// cores waited for the read and for each other at every block. On a 26.4 GB trace (larger
/// than memory) 2 points fed that way took 42.2 s against 28.4 s with a read per point, each
/// point's own feeding 16.5 and 17.8 s of it (docs/sweep.md).
///
/// Complexity: O(blockSize) per block on the reading thread; `next`, `release` and
/// `waitForProgress` O(consumers) under one lock, once per block.
public final class BlockRing<Element, Mark>: @unchecked Sendable {
    /// A slot's block: written by the reading thread only while no consumer holds it.
    private final class Slot {
        var elements: [Element] = []
    }

    private let read: (inout [Element], Int) throws -> Int
    private let mark: () -> Mark
    private let blockSize: Int
    private let slots: [Slot]
    private let condition = NSCondition()
    // Under `condition`:
    /// Blocks read and handed over so far (block `n` is in slot `n % slots.count`).
    private var published = 0
    /// Each slot's block's mark.
    private var marks: [Mark?]
    /// The mark of the last block every consumer has released.
    private var releasedMark: Mark?
    /// Blocks every consumer has released.
    private var releasedByAll = 0
    /// Blocks each consumer has released.
    private var released: [Int]
    /// Whether the reader has handed over its last block (or failed).
    private var ended = false
    private var failure: (any Error)?
    private var cancelled = false
    /// Blocks every consumer had released when `waitForProgress` last returned.
    private var reported = 0
    private let readerDone = DispatchGroup()

    /// Starts the reading thread. `read` appends the next elements to its array (about the
    /// count it is given; more is kept) and returns how many, 0 at the end; `mark` says where
    /// the read stands after a block. The caller calls `finish` before it drops or reads the
    /// reader itself (after an error too: a read under way holds it).
    public init(consumers: Int, slots: Int = 4, blockSize: Int, read: @escaping (inout [Element], Int) throws -> Int, mark: @escaping () -> Mark) {
        self.read = read
        self.mark = mark
        self.blockSize = max(1, blockSize)
        self.slots = (0..<max(2, slots)).map { _ in Slot() }
        released = Array(repeating: 0, count: max(1, consumers))
        marks = Array(repeating: nil, count: self.slots.count)
        readerDone.enter()
        let thread = Thread { [self] in
            readBlocks()
            readerDone.leave()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Bytes of the slots' arrays, for a heap figure that leaves them out (after `finish`).
    public var bufferBytes: Int { slots.reduce(0) { $0 + $1.elements.capacity * MemoryLayout<Element>.stride } }

    private func readBlocks() {
        var number = 0
        while true {
            condition.lock()
            while !cancelled && number - releasedByAll >= slots.count { condition.wait() }
            let stop = cancelled
            condition.unlock()
            if stop { break }
            let slot = slots[number % slots.count]  // no consumer holds it now
            slot.elements.removeAll(keepingCapacity: true)
            if slot.elements.capacity < blockSize { slot.elements.reserveCapacity(blockSize) }
            var error: (any Error)?
            do {
                while slot.elements.count < blockSize {
                    if try read(&slot.elements, blockSize - slot.elements.count) == 0 { break }
                }
            } catch let thrown {
                error = thrown
            }
            let taken = mark()
            condition.lock()
            if let error {
                failure = error
                ended = true
            } else {
                if !slot.elements.isEmpty {
                    marks[number % slots.count] = taken
                    published += 1
                }
                if slot.elements.count < blockSize { ended = true }  // short or empty: the last
            }
            let last = ended
            condition.broadcast()
            condition.unlock()
            if last { break }
            number += 1
        }
    }

    /// Consumer `consumer`'s next block and its mark, waiting for it to be read; nil at the
    /// end (after a read failed, the blocks read before it are handed out first and `finish`
    /// throws the error) or after `cancel`. The buffer stays valid
    /// until the consumer's `release`.
    public func next(_ consumer: Int) -> (elements: UnsafeBufferPointer<Element>, mark: Mark)? {
        condition.lock()
        defer { condition.unlock() }
        while !cancelled && released[consumer] >= published && !ended { condition.wait() }
        guard !cancelled, released[consumer] < published else { return nil }
        let number = released[consumer]
        let elements = slots[number % slots.count].elements.withUnsafeBufferPointer { $0 }
        return (elements, marks[number % slots.count]!)
    }

    /// The consumer is done with the block `next` gave it.
    public func release(_ consumer: Int) {
        condition.lock()
        released[consumer] += 1
        let all = released.min()!
        if all > releasedByAll {
            // Before the reader may refill the slot (it waits for this lock).
            releasedByAll = all
            releasedMark = marks[(all - 1) % slots.count]
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until every consumer has released at least one more block than at the last
    /// return, and returns the mark of the last such block; nil once all blocks are released
    /// or after `cancel`.
    public func waitForProgress() -> Mark? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if cancelled { return nil }
            if releasedByAll > reported {
                reported = releasedByAll
                return releasedMark!
            }
            if ended && releasedByAll == published { return nil }
            condition.wait()
        }
    }

    /// Stops the reader and every consumer at their next block.
    public func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Stops the reader if it has not ended, waits for its thread and throws the read's error,
    /// if any. Call after the consumers have stopped, before the reader is dropped or read
    /// elsewhere.
    public func finish() throws {
        condition.lock()
        if !ended { cancelled = true }  // consumers that stopped early: the reader stops too
        condition.broadcast()
        condition.unlock()
        readerDone.wait()
        condition.lock()
        let error = failure
        condition.unlock()
        if let error { throw error }
    }
}

extension BlockRing where Element == Request, Mark == Double? {
    /// `source`'s requests in blocks, each with the source's progress after it.
    public convenience init(_ source: any RequestSource, consumers: Int, slots: Int = 4, blockSize: Int) {
        self.init(consumers: consumers, slots: slots, blockSize: blockSize, read: { try source.append(to: &$0, limit: $1) }, mark: { source.progress })
    }
}
