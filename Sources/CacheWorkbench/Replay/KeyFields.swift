import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends

/// The fields `ReplayLoop.handleKeys` and `TraceSummary` read, from a `Request` or a
/// `KeyRecord` in place. The requirements have names of their own, implemented here, in the
/// replay's module: a requirement met by another module's stored property is read through
/// that property's getter, a call per field and request (callgrind, lru: 298 instructions per
/// request against 244 in one module), where this module's own implementation reads the
/// field in place. O(1) each.
package protocol KeyFields {
    var keyID: UInt64 { get }
    var keySize: Int { get }
    var keyTime: Double { get }
}

extension Request: KeyFields {
    package var keyID: UInt64 { id }
    package var keySize: Int { size }
    package var keyTime: Double { time }
}

extension KeyRecord: KeyFields {
    package var keyID: UInt64 { id }
    package var keySize: Int { size }
    package var keyTime: Double { time }
}
