import WorkbenchCore
import WorkbenchTraces
#if canImport(Glibc)
import Glibc
#endif

/// How a string-keyed memory backend hashes its keys (`--key-hash`).
public enum StringKeyHash: String, Sendable, CaseIterable {
    /// CoreFoundation's CFStringHash, what NSCache hashes NSString keys with on Apple
    /// platforms and in swift-corelibs-foundation: every UTF-16 unit of strings up to 96
    /// units, otherwise only the first, middle and last 32 units plus the length. Long
    /// keys that differ only outside those windows collide.
    case cf
    /// Swift's Hasher (SipHash-1-3) over the whole key's UTF-8 bytes.
    case full
    /// The SHA-256 digest of the key's UTF-8, stored as the key (as disk caches name
    /// files): fixed-size keys, no collisions in practice.
    case digest
}

/// CFStringHash, ported from CFString.c (`__CFStrHashCharacters`), so long-URL collisions
/// can be studied without Foundation. A test checks it against `NSString.hash`.
public enum CFStringHash {
    static let everythingLimit = 96

    public static func hash(_ string: String) -> UInt {
        var string = string
        // ASCII (every URL): UTF-16 units are the UTF-8 bytes, so hash them in place.
        if let ascii = string.withUTF8({ bytes in bytes.allSatisfy { $0 < 0x80 } ? hash(units: bytes, wraps: false) : nil }) {
            return ascii
        }
        let units = Array(string.utf16)
        return units.withUnsafeBufferPointer { hash(units: $0, wraps: units.contains { $0 > 0xFF }) }
    }

    /// Over UTF-16 units (or bytes standing for them).
    @inline(__always)
    public static func hash<Unit: FixedWidthInteger>(units: UnsafeBufferPointer<Unit>, wraps: Bool) -> UInt {
        let length = units.count
        var result = UInt(bitPattern: length)
        // In C each product `unit * constant` is an `int`, and overflows for large units
        // (undefined behaviour). In the CoreFoundation of swift-corelibs-foundation 6.3 the
        // path for strings CF stores as 8-bit (every unit <= 255) computes it in 64 bits,
        // while the UTF-16 path wraps at 32 bits and sign-extends. Measured against
        // NSString.hash (see the tests); ASCII keys, every URL, are the same either way.
        // `wraps`: the string has a unit above 0xFF, so CF stores it as UTF-16.
        @inline(__always) func product(_ unit: Unit, _ constant: Int32) -> UInt {
            wraps ? UInt(bitPattern: Int(Int32(truncatingIfNeeded: Int(unit)) &* constant))
                : UInt(unit) &* UInt(constant)
        }
        @inline(__always) func four(_ start: Int) {
            result = result &* 67_503_105 &+ product(units[start], 16_974_593) &+ product(units[start + 1], 66_049)
                &+ product(units[start + 2], 257) &+ UInt(units[start + 3])
        }
        if length <= everythingLimit {
            var index = 0
            while index + 4 <= length {
                four(index)
                index += 4
            }
            while index < length {
                result = result &* 257 &+ UInt(units[index])
                index += 1
            }
        } else {
            for window in [0, (length >> 1) - 16, length - 32] {
                for start in stride(from: window, to: window + 32, by: 4) { four(start) }
            }
        }
        return result &+ (result << UInt(length & 31))
    }
}

/// A key as a string-keyed backend stores it: its text (or digest) and its hash under
/// the chosen scheme. Equality compares the full key literally, code unit by code unit, as
/// NSString's isEqual: does (not Swift's canonical equivalence, which would also be slower).
struct HashedKey: Equatable {
    var hash: UInt64
    var text: String

    static func == (a: HashedKey, b: HashedKey) -> Bool { a.hash == b.hash && sameText(a.text, b.text) }

    /// Byte equality of the UTF-8 forms (literal, like NSString's isEqual:). Borrows the
    /// native storage: copying the strings to call `withUTF8` cost two atomic refcount
    /// operations per compare (18% of `get` at 100k entries).
    @inline(__always)
    static func sameText(_ a: String, _ b: String) -> Bool {
        let compared = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
            }
        }
        return (compared ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }

    /// Calls `body` with the key's UTF-8 bytes, borrowing native storage (no copy, no
    /// reference counting) when the string has it.
    @inline(__always)
    func withUTF8<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return result }
        var copy = text
        return copy.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    init(_ request: Request, scheme: StringKeyHash) {
        let key = request.keyText
        switch scheme {
        case .cf:
            text = key
            hash = UInt64(CFStringHash.hash(key))
        case .full:
            var key = key
            var hasher = Hasher()
            key.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            text = key
            hash = UInt64(bitPattern: Int64(hasher.finalize()))
        case .digest:
            var key = key
            let digest = key.withUTF8 { SHA256Digest.hash(UnsafeRawBufferPointer($0)) }
            // 64 hex characters stand for the 32 digest bytes; the first 8 bytes are the hash.
            var first: UInt64 = 0
            for byte in digest.prefix(8) { first = first << 8 | UInt64(byte) }
            text = HexText.encode(digest)
            hash = first
        }
    }
}
