/// The largest sizes the workbench accepts, chosen so that no arithmetic on sizes, costs,
/// counts or capacities can overflow, and documented in the README.
///
/// - An object (a trace's size column, a pixel cost) is at most 2^53 bytes (8 PiB), far
///   above any cached object, exact as a `Double`, and small enough that a cost plus a
///   capacity always fits in an `Int`. A larger size in a trace is a bad row.
/// - A capacity is at most 2^60 bytes (1 EiB).
/// - Sums over a trace (bytes requested, hit bytes, working set) are `ByteTotal`s, 128-bit:
///   2^63 requests of the largest object still fit.
/// - A disk backend's body is at most 1 GiB (SQLite's default SQLITE_MAX_LENGTH is 10^9
///   bytes; the body is built in memory before the timed write). A larger object makes
///   that run fail with a message, never a silent skip.
public enum SizeLimits {
    public static let largestObject = 1 << 53
    public static let largestCapacity = 1 << 60
    public static let largestDiskBody = 1 << 30

    /// A pixel cost `width × height × 4`, or nil when it would exceed `largestObject`.
    @inline(__always)
    public static func pixelCost(width: UInt32, height: UInt32) -> Int? {
        let (pixels, overflow) = UInt64(width).multipliedReportingOverflow(by: UInt64(height))
        guard !overflow, pixels <= UInt64(largestObject / 4) else { return nil }
        return Int(pixels) * 4
    }
}

/// A sum of byte counts over a whole trace: wide enough never to overflow.
public typealias ByteTotal = Int128

extension ByteTotal {
    /// For reports: exact below 2^53, the nearest `Double` above. Values that fit 64 bits
    /// (all but absurd ones) convert directly: the generic 128-bit conversion is far slower.
    @inline(__always) public var asDouble: Double {
        if let small = Int64(exactly: self) { return Double(small) }
        return Double(self)
    }
}

/// Disk-backend limits, under the name the disk code reads best.
package enum DiskLimits {
    package static let largestBody = SizeLimits.largestDiskBody
}
