/// What every backend is built from. Backend-specific options arrive as `options`.
public struct BackendConfig: Sendable {
    public var capacityBytes: Int
    public var seed: UInt64
    public var options: [String: String]

    public init(capacityBytes: Int, seed: UInt64 = 1, options: [String: String] = [:]) {
        self.capacityBytes = capacityBytes
        self.seed = seed
        self.options = options
    }
}

/// A named backend the CLI can select. Adding a backend is one file in Backends/ and one
/// entry in `BackendRegistry.all`.
public struct BackendKind: Sendable {
    public let name: String
    public let summary: String
    public let needsKeyNames: Bool
    public let holdsPayloads: Bool
    private let factory: @Sendable (BackendConfig) throws -> any CacheBackend

    public init<Backend: CacheBackend>(
        name: String, summary: String, make: @escaping @Sendable (BackendConfig) throws -> Backend
    ) {
        self.name = name
        self.summary = summary
        self.needsKeyNames = Backend.needsKeyNames
        self.holdsPayloads = Backend.holdsPayloads
        self.factory = make
    }

    public func make(_ config: BackendConfig) throws -> any CacheBackend { try factory(config) }
}

public enum BackendRegistry {
    public static let all: [BackendKind] = [
        BackendKind(name: "lru", summary: "policy-only LRU with a byte capacity (hash map + linked list), as libCacheSim's LRU") {
            LRUCache(capacity: $0.capacityBytes)
        },
    ]

    public static func named(_ name: String) throws -> BackendKind {
        guard let kind = all.first(where: { $0.name == name.lowercased() }) else {
            throw WorkbenchError("unknown backend '\(name)'; known: \(all.map(\.name).joined(separator: ", "))")
        }
        return kind
    }

    /// A comma-separated list; `all` (or nothing) means every registered backend.
    public static func list(parsing text: String?) throws -> [BackendKind] {
        guard let text, !text.isEmpty, text.lowercased() != "all" else { return all }
        var kinds: [BackendKind] = []
        for name in text.split(separator: ",") {
            let kind = try named(String(name).trimmingSpaces)
            if !kinds.contains(where: { $0.name == kind.name }) { kinds.append(kind) }
        }
        return kinds
    }
}
