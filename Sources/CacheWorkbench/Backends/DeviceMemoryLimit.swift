import WorkbenchCore
import WorkbenchTraces
/// A memory tier's capacity that a library's own default gives on a device, and the rule
/// (with its source) that gave it, for the table's notes.
public struct DeviceMemoryLimit: Sendable, Equatable {
    public var bytes: Int
    public var rule: String
}
