/// Every counted request's outcome (hit or miss), one bit each, in replay order: what a
/// warned replay and its counterfactual are compared on (`WarningCost`). Kept only when a
/// run simulates memory warnings, so ordinary replays pay nothing; 10 million requests
/// take 1.25 MB. Append O(1) amortized, read O(1).
public struct OutcomeBits: Sendable, Equatable {
    private var words: [UInt64] = []
    public private(set) var count = 0

    public init() {}

    public init(_ outcomes: [Bool]) {
        for hit in outcomes { append(hit) }
    }

    @inline(__always)
    public mutating func append(_ hit: Bool) {
        if count & 63 == 0 { words.append(0) }
        if hit { words[count >> 6] |= 1 << UInt64(count & 63) }
        count += 1
    }

    public subscript(index: Int) -> Bool {
        precondition(index >= 0 && index < count, "outcome \(index) of \(count)")
        return words[index >> 6] & (1 << UInt64(index & 63)) != 0
    }

    /// The last index in `range` (clamped to both sets) where `self` and `other` differ, or nil.
    /// Compares a word at a time: O(range / 64).
    public func lastDifference(from other: OutcomeBits, in range: Range<Int>) -> Int? {
        let upper = min(range.upperBound, count, other.count)
        var index = upper - 1
        while index >= range.lowerBound {
            let word = index >> 6
            // Bits of this word from the range's start (or the word's) up to `index`.
            let low = max(range.lowerBound, word << 6) & 63
            let high = index & 63
            let span = high - low + 1
            let mask: UInt64 = (span == 64 ? ~0 : ((1 << UInt64(span)) - 1)) << UInt64(low)
            let differing = (words[word] ^ other.words[word]) & mask
            if differing != 0 { return (word << 6) + 63 - differing.leadingZeroBitCount }
            index = (word << 6) + low - 1
        }
        return nil
    }
}
