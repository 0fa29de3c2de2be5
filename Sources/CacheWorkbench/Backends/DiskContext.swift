/// What a disk backend is given besides its options: the folder it owns, the probe its
/// writes are counted in, and whether hits are checked byte for byte.
public struct DiskContext: Sendable {
    /// The backend's folder; it may already hold a cache from an earlier run (warm start).
    public var directory: String
    public var probe: DiskIOProbe
    /// Check every hit's bytes against `PayloadContent` (`--verify`).
    public var verify: Bool

    public init(directory: String, probe: DiskIOProbe, verify: Bool = false) {
        self.directory = directory
        self.probe = probe
        self.verify = verify
    }
}

extension BackendConfig {
    /// The disk context, which `RunPlan` gives every backend that stores bytes.
    func diskContext(for backend: String) throws -> DiskContext {
        guard let disk else { throw WorkbenchError("\(backend) is a disk backend and needs a folder (DiskContext)") }
        return disk
    }

    /// A fraction in (0, 1] from option `name`, or `fallback`.
    func fraction(_ name: String, default fallback: Double) throws -> Double {
        guard let text = options[name] else { return fallback }
        guard let value = Double(text), value > 0, value <= 1 else {
            throw WorkbenchError("\(name) must be a fraction above 0 and at most 1, not '\(text)'")
        }
        return value
    }

    /// On/off option `name`.
    func flag(_ name: String, default fallback: Bool) throws -> Bool {
        guard let text = options[name]?.lowercased() else { return fallback }
        switch text {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: throw WorkbenchError("\(name) must be on or off, not '\(text)'")
        }
    }

    /// A whole number (binary size units allowed) in `range` from option `name`.
    func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = options[name] else { return fallback }
        let value: Int? = Int(text) ?? { if case .bytes(let bytes)? = try? Capacity(parsing: text) { return bytes } else { return nil } }()
        guard let value, range.contains(value) else {
            throw WorkbenchError("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }

    /// One of `choices` from option `name`, or the first choice.
    func choice(_ name: String, _ choices: [String]) throws -> String {
        guard let text = options[name]?.lowercased() else { return choices[0] }
        guard choices.contains(text) else { throw WorkbenchError("\(name) must be \(choices.joined(separator: ", ")), not '\(text)'") }
        return text
    }
}
