import WorkbenchCore
import WorkbenchMetrics
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte-level parsers for trace fields. Each returns the value or throws a one-line
/// reason (the reader adds file and line). No allocation on the success path.
enum FieldParsing {
    struct Failure: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    static func text(_ bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// A shortened, escaped copy of a field for an error message.
    static func quote(_ bytes: UnsafeRawBufferPointer) -> String { ErrorText.quote(bytes, limit: 40) }

    /// A non-negative whole number of bytes, at most `SizeLimits.largestObject`.
    @inline(__always)
    static func size(_ bytes: UnsafeRawBufferPointer, column: String) throws(Failure) -> Int {
        guard let value = wholeNumber(bytes) else { throw wholeNumberFailure(bytes, column: column) }
        guard value <= SizeLimits.largestObject else { throw tooLarge(bytes, column: column) }
        return value
    }

    /// A whole number up to `limit` (counts such as op_count).
    static func count(_ bytes: UnsafeRawBufferPointer, column: String, limit: Int) throws(Failure) -> Int {
        guard let value = wholeNumber(bytes) else { throw wholeNumberFailure(bytes, column: column) }
        guard value <= limit else { throw Failure("\(column) \(quote(bytes)) is above the largest accepted, \(limit)") }
        return value
    }

    static func tooLarge(_ bytes: UnsafeRawBufferPointer, column: String) -> Failure {
        Failure("\(column) \(quote(bytes)) is larger than the largest object accepted, 2^53 bytes (8 PiB)")
    }

    /// Pixel dimensions whose decoded cost (width × height × 4) stays within the object
    /// limit; both 0 means unknown.
    static func checkDimensions(width: UInt32, height: UInt32) throws(Failure) {
        guard SizeLimits.pixelCost(width: width, height: height) != nil else {
            throw Failure("width × height × 4 (\(width) × \(height) × 4) is larger than the largest object accepted, 2^53 bytes")
        }
    }

    /// A pixel dimension; an empty field means unknown (0).
    @inline(__always)
    static func dimension(_ bytes: UnsafeRawBufferPointer, column: String) throws(Failure) -> UInt32 {
        if bytes.isEmpty { return 0 }
        guard let value = wholeNumber(bytes) else { throw wholeNumberFailure(bytes, column: column) }
        guard value <= Int(UInt32.max) else { throw Failure("\(column) \(quote(bytes)) is too large") }
        return UInt32(value)
    }

    /// Digits only; nil when empty, not digits, or above `Int.max`.
    @inline(__always)
    static func wholeNumber(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 19 else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ UInt64(digit)  // 19 digits cannot wrap a UInt64 (1.8e19)
        }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }

    static func wholeNumberFailure(_ bytes: UnsafeRawBufferPointer, column: String) -> Failure {
        if bytes.isEmpty { return Failure("\(column) is empty") }
        if bytes.first == UInt8(ascii: "-"), wholeNumber(UnsafeRawBufferPointer(rebasing: bytes.dropFirst())) != nil {
            return Failure("\(column) is negative (\(text(bytes)))")
        }
        if bytes.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) { return tooLarge(bytes, column: column) }
        return Failure("\(column) \(quote(bytes)) is not a whole number")
    }

    /// 10^n for n in 0...15, exactly (every one is representable in a Double).
    @inline(__always)
    private static func powerOfTen(_ n: Int) -> Double {
        var value = 1.0
        for _ in 0..<n { value *= 10 }
        return value
    }

    /// Seconds: a decimal number, fractions and exponents allowed.
    @inline(__always)
    static func time(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Double {
        // Fast path: [-]digits[.digits] with at most 15 significant digits is exact in a
        // Double, and one division by an exact power of ten rounds correctly.
        let count = bytes.count
        var index = 0
        let negative = count > 0 && bytes[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        var mantissa: UInt64 = 0
        let integerStart = index
        while index < count, case let digit = bytes[index] &- UInt8(ascii: "0"), digit < 10 {
            mantissa = mantissa &* 10 &+ UInt64(digit)
            index += 1
        }
        var digits = index - integerStart
        var fractionDigits = 0
        if index < count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < count, case let digit = bytes[index] &- UInt8(ascii: "0"), digit < 10 {
                mantissa = mantissa &* 10 &+ UInt64(digit)
                index += 1
            }
            fractionDigits = index - fractionStart
            digits += fractionDigits
        }
        if index == count && digits > 0 && digits <= 15 {
            let value = Double(mantissa) / powerOfTen(fractionDigits)
            return negative ? -value : value
        }
        return try slowTime(bytes)
    }

    private static func slowTime(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Double {
        guard !bytes.isEmpty else { throw Failure("time is empty") }
        guard bytes.count < 64 else { throw Failure("time \(quote(bytes)) is not a number") }
        var copy = [CChar](repeating: 0, count: bytes.count + 1)
        for (offset, byte) in bytes.enumerated() { copy[offset] = CChar(bitPattern: byte) }
        let parsed: Double? = copy.withUnsafeBufferPointer { buffer in
            var end: UnsafeMutablePointer<CChar>? = nil
            let value = strtod(buffer.baseAddress!, &end)
            guard let end, end - UnsafeMutablePointer(mutating: buffer.baseAddress!) == bytes.count else { return nil }
            return value
        }
        guard let parsed, parsed.isFinite,
              bytes.allSatisfy({ $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "x") && $0 != UInt8(ascii: "X") })
        else { throw Failure("time \(quote(bytes)) is not a number") }
        return parsed
    }

    /// get | set | delete, any case; empty means get.
    @inline(__always)
    static func operation(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Operation {
        switch bytes.count {
        case 0: return .get
        case 3:
            let lower = (bytes[0] | 0x20, bytes[1] | 0x20, bytes[2] | 0x20)
            if lower == (UInt8(ascii: "g"), UInt8(ascii: "e"), UInt8(ascii: "t")) { return .get }
            if lower == (UInt8(ascii: "s"), UInt8(ascii: "e"), UInt8(ascii: "t")) { return .set }
        case 6:
            if text(bytes).lowercased() == "delete" { return .delete }
        default: break
        }
        throw Failure("op \(quote(bytes)) is not get, set or delete")
    }

    /// A key field: its integer or digest, and its text when names are kept.
    ///
    /// Keys are byte strings compared byte for byte by every backend (a NUL inside is part
    /// of the key). A key that is not valid UTF-8 is refused: backends that store by text
    /// would otherwise fold distinct invalid keys into one (U+FFFD) while the id-keyed
    /// ones keep them apart, and the same trace would give different hit counts.
    @inline(__always)
    static func key(_ bytes: UnsafeRawBufferPointer, keepName: Bool) throws(Failure) -> (id: UInt64, name: String?) {
        guard !bytes.isEmpty else { throw Failure("key is empty") }
        guard isValidUTF8(bytes) else { throw Failure("key \(quote(bytes)) is not valid UTF-8 text") }
        let key = KeyDigest.parse(bytes)
        return (key.id, keepName && !key.isInteger ? text(bytes) : nil)
    }

    /// ASCII (the common case) checked a word at a time, anything else by the decoder.
    @inline(__always)
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index + 8 <= count {
            if bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
            index += 8
        }
        while index < count, bytes[index] < 0x80 { index += 1 }
        return index == count || String(validating: UnsafeRawBufferPointer(rebasing: bytes[index...]), as: UTF8.self) != nil
    }

    /// Whether a field looks like a column name rather than data (for header detection).
    static func isWord(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let first = bytes.first else { return false }
        return (first | 0x20) >= UInt8(ascii: "a") && (first | 0x20) <= UInt8(ascii: "z")
    }

    static func lowercasedText(_ bytes: UnsafeRawBufferPointer) -> String { text(bytes).lowercased() }

    /// Drops a UTF-8 byte-order mark from the start of a file's first line.
    static func skipByteOrderMark(_ row: inout UnsafeRawPointer, _ length: inout Int) {
        if length >= 3, row.load(as: UInt8.self) == 0xEF, row.load(fromByteOffset: 1, as: UInt8.self) == 0xBB,
           row.load(fromByteOffset: 2, as: UInt8.self) == 0xBF {
            row += 3
            length -= 3
        }
    }
}
