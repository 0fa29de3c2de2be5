import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// Every counted request's outcome (hit or miss), one bit each, in replay order: what a
/// warned replay and its counterfactual are compared on (`WarningCost`), and what the
/// report pairs two rows on (the `outcome_bits` column: McNemar's test over the requests
/// one row hit and the other missed). Kept for a warned run, and for any run of at most
/// `pairedRequestLimit` counted requests (128 KiB a row at the limit); 10 million requests
/// take 1.25 MB. Append O(1) amortized, read O(1).
public struct OutcomeBits: Sendable, Equatable {
    private var words: [UInt64] = []
    public private(set) var count = 0

    public init() {}

    /// The most counted requests whose outcomes a row keeps for the report's paired test:
    /// 2^20, a 128 KiB bit set and a 175 KiB `outcome_bits` cell per row. Above it the
    /// report compares rows with the unpaired rule (and says so); at that many requests its
    /// margin is under 0.1 point.
    public static let pairedRequestLimit = 1 << 20

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

    /// The `outcome_bits` cell: request i's outcome is bit i % 8 (least significant first)
    /// of byte i / 8, 1 for a hit, the last byte's unused bits 0, in standard base64 with
    /// padding. O(count).
    public var base64: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity((count + 7) / 8)
        for index in 0..<((count + 7) / 8) { bytes.append(UInt8(truncatingIfNeeded: words[index >> 3] >> UInt64((index & 7) * 8))) }
        return Data(bytes).base64EncodedString()
    }
}
