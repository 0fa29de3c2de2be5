/// A cache capacity as the user wrote it: absolute bytes, or a share of the trace's
/// working set (resolved once the working set is known).
///
/// Accepted: `1048576`, `64KiB`/`64KB`/`64K`, `64MiB`/`64MB`/`64M`, `1.5GiB`, `1TiB`,
/// `1PiB`, `1EiB` (the largest, 2^60 bytes; every unit is binary: `MB` means 2²⁰, as DESIGN.md rule 6 says), `10%`, `0.1`,
/// and `ram:15%` (a share of `--device`'s RAM, `DeviceClass`).
public enum Capacity: Sendable, Equatable, CustomStringConvertible {
    case bytes(Int)
    /// A fraction in (0, 1] of the working-set bytes.
    case share(Double)
    /// A percentage in (0, 100] of a device's physical RAM (`ram:P%`), as typed.
    case deviceRAM(percent: Double, DeviceClass)

    /// `device` is `--device`'s class; a `ram:P%` capacity without one is an error naming the fix.
    public init(parsing text: String, device: DeviceClass? = nil) throws(WorkbenchError) {
        let spec = text.trimmingSpaces
        func bad(_ why: String) -> WorkbenchError {
            WorkbenchError("capacity '\(text)': \(why)")
        }
        if spec.lowercased().hasPrefix("ram:") {
            let percent = String(spec.dropFirst(4)).trimmingSpaces
            guard percent.hasSuffix("%"), let value = Double(percent.dropLast()), value > 0, value <= 100 else {
                throw bad("a share of the device's RAM is ram:P% with P above 0 and at most 100 (ram:15%, ram:0.5%)")
            }
            guard let device else {
                throw bad("a share of the device's RAM needs --device NAME (bench list --devices names them)")
            }
            self = .deviceRAM(percent: value, device)
            return
        }
        if spec.hasSuffix("%") {
            guard let percent = Double(spec.dropLast()), percent > 0, percent <= 100 else {
                throw bad("a percentage must be a number above 0 and at most 100")
            }
            self = .share(percent / 100)
            return
        }
        let units: [(suffixes: [String], multiplier: Double)] = [
            (["EIB", "EB", "E"], 1_152_921_504_606_846_976),
            (["PIB", "PB", "P"], 1_125_899_906_842_624),
            (["TIB", "TB", "T"], 1_099_511_627_776),
            (["GIB", "GB", "G"], 1_073_741_824),
            (["MIB", "MB", "M"], 1_048_576),
            (["KIB", "KB", "K"], 1024),
            (["B"], 1),
        ]
        let upper = spec.uppercased()
        for unit in units {
            for suffix in unit.suffixes where upper.hasSuffix(suffix) {
                let number = String(spec.dropLast(suffix.count)).trimmingSpaces
                guard let value = Double(number), value.isFinite else {
                    throw bad("expected a number and a unit (B, KiB, MiB, GiB, TiB, PiB or EiB), a percentage (10%) or a fraction (0.1)")
                }
                guard value > 0 else { throw bad("must be above 0 bytes") }
                let bytes = (value * unit.multiplier).rounded()
                guard bytes >= 1 else { throw bad("must be at least 1 byte") }
                guard bytes <= Double(SizeLimits.largestCapacity) else { throw bad("above the largest capacity accepted, 1EiB (2^60 bytes)") }
                self = .bytes(Int(bytes))
                return
            }
        }
        if let bytes = Int(spec) {
            guard bytes > 0 else { throw bad("must be above 0 bytes") }
            guard bytes <= SizeLimits.largestCapacity else { throw bad("above the largest capacity accepted, 1EiB (2^60 bytes)") }
            self = .bytes(bytes)
            return
        }
        if !spec.isEmpty, spec.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) {
            // Digits only, yet not an Int: more than 2^63 - 1.
            throw bad("above the largest capacity accepted, 1EiB (2^60 bytes)")
        }
        if let fraction = Double(spec) {
            guard fraction > 0, fraction <= 1 else {
                throw bad("a fraction of the working set must be above 0 and at most 1; write bytes as a whole number or with a unit (64MiB)")
            }
            self = .share(fraction)
            return
        }
        throw bad("expected bytes (1048576), a size with a unit (64MiB), a percentage (10%) or a fraction (0.1)")
    }

    /// A size in bytes, not a share: a whole number (0 allowed) or a size with a unit
    /// (`4KiB`); nil when the text is neither.
    public static func bytes(parsing text: String) -> Int? {
        if let value = Int(text.trimmingSpaces), value >= 0 { return value }
        guard case .bytes(let bytes)? = try? Capacity(parsing: text) else { return nil }
        return bytes
    }

    /// Parses a comma-separated list (a sweep); `device` resolves `ram:P%` items.
    public static func list(parsing text: String, device: DeviceClass? = nil) throws(WorkbenchError) -> [Capacity] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: true)
        guard !parts.isEmpty else { throw WorkbenchError("capacity: give at least one value") }
        if text.contains("..") {
            throw WorkbenchError("capacity '\(text)': a range A..B is for `bench sweep` (with --points); here give a comma-separated list")
        }
        var result: [Capacity] = []
        for part in parts { result.append(try Capacity(parsing: String(part), device: device)) }
        return result
    }

    /// Bytes for a trace whose working set is `workingSetBytes`: at least 1 byte, at most
    /// `SizeLimits.largestCapacity`.
    public func resolve(workingSetBytes: ByteTotal) -> Int {
        switch self {
        case .bytes(let bytes): return bytes
        case .share(let fraction):
            let bytes = (workingSetBytes.asDouble * fraction).rounded()
            return max(1, bytes >= Double(SizeLimits.largestCapacity) ? SizeLimits.largestCapacity : Int(bytes))
        case .deviceRAM(let percent, let device):
            return device.bytes(share: percent / 100)
        }
    }

    /// How a device-relative capacity was resolved, for the table's notes; nil otherwise.
    public var deviceRule: String? {
        guard case .deviceRAM(let percent, let device) = self else { return nil }
        // The percentage in full when two decimals would round it (a sweep range's points),
        // so that the bytes can be checked by hand from the note.
        let exact = Double(ByteCount.trim(percent)) == percent ? description : "ram:\(percent)%"
        return "\(exact) of \(device.name)'s RAM \(ByteCount.format(device.ramBytes)) (\(device.ramBytes) bytes) = \(device.bytes(share: percent / 100)) bytes"
    }

    public var needsWorkingSet: Bool {
        if case .share = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .bytes(let bytes): return ByteCount.format(bytes)
        case .share(let fraction): return "\(ByteCount.trim(fraction * 100))%"
        case .deviceRAM(let percent, _):
            // Two decimals, unless that would round a tiny share to 0.
            return "ram:\(percent >= 0.01 ? ByteCount.trim(percent) : String(percent))%"
        }
    }
}

/// Human-readable byte counts with binary units, as capacities are written.
public enum ByteCount {
    public static func format(_ bytes: ByteTotal) -> String {
        if let small = Int(exactly: bytes) { return format(small) }
        return "\(trim(bytes.asDouble / Double(1 << 40)))TiB"
    }

    public static func format(_ bytes: Int) -> String {
        let units: [(String, Int)] = [("EiB", 1 << 60), ("PiB", 1 << 50), ("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
        for (name, size) in units where bytes >= size {
            return "\(trim(Double(bytes) / Double(size)))\(name)"
        }
        return "\(bytes)B"
    }

    /// A number with at most two decimals and no trailing zeros.
    static func trim(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        var text = String(format2: rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}

extension String {
    package var trimmingSpaces: String {
        var slice = Substring(self)
        while slice.first?.isWhitespace == true { slice.removeFirst() }
        while slice.last?.isWhitespace == true { slice.removeLast() }
        return String(slice)
    }

    /// Two decimals without Foundation's locale-dependent formatting.
    package init(format2 value: Double) {
        let scaled = Int((abs(value) * 100).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        let fraction = scaled % 100
        self = "\(sign)\(scaled / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
