import WorkbenchCore
import WorkbenchTraces
import Synchronization
/// What every backend is built from. Backend-specific options arrive as `options`.
public struct BackendConfig: Sendable {
    public var capacityBytes: Int
    public var seed: UInt64
    public var options: [String: String]
    /// For disk backends: their folder and I/O probe.
    public var disk: DiskContext?
    /// For offline policies: each replayed request's next access (`NextAccess`).
    public var nextAccess: NextAccess?
    /// What a request costs in memory under the run's cost model (the replay's own rule),
    /// for a backend that stores what it was not handed: a tier promoting a disk hit.
    public var memoryCost: @Sendable (Request) -> Int = { $0.size }
    /// What a request's body takes on disk: its encoded size (1 under --ignore-obj-size).
    public var diskCost: @Sendable (Request) -> Int = { $0.size }
    /// Whether the run gives stored objects real heap blocks (`Payload`).
    public var materialize = false
    /// Whether capacities count objects (`--ignore-obj-size`: every object costs 1).
    public var countsObjects = false
    /// `--consider-obj-metadata`: a policy simulator adds libCacheSim's per-object
    /// metadata bytes for its policy to each object's size in its capacity.
    public var considersObjectMetadata = false
    /// `--use-ttl`: a policy simulator expires objects by the requests' TTLs (`ExpiryGate`).
    public var usesTTL = false

    public init(capacityBytes: Int, seed: UInt64 = 1, options: [String: String] = [:], disk: DiskContext? = nil) {
        self.capacityBytes = capacityBytes
        self.seed = seed
        self.options = options
        self.disk = disk
    }
}

/// A named backend the CLI can select. Adding a backend is one file in Backends/ and one
/// entry in `BackendRegistry.all`.
public struct BackendKind: Sendable {
    public let name: String
    public let summary: String
    public let needsKeyNames: Bool
    public let holdsPayloads: Bool
    public let storesBytes: Bool
    public let needsFuture: Bool
    /// Its counts come after the last request (`CacheBackend.needsWholeReplay`): never fed.
    public let needsWholeReplay: Bool
    /// An offline bound (`CacheBackend.isOfflineBound`): charts draw it apart.
    public let isOfflineBound: Bool
    public let probesIO: Bool
    /// Rough replay cost per request on the 2-core development machine (release build),
    /// for balancing a plan's shards (`SweepPlan.estimate`): measured where given, else by
    /// class (a policy simulator 0.2 µs, a memory backend 15, a disk backend 150).
    public let microsecondsPerRequest: Double
    /// Option names it takes (`--key-hash` arrives as `key-hash`), with a line of help each.
    public package(set) var options: [(name: String, help: String)]
    /// Options of this variant (`nscache[key-hash=cf]`), over the command's global ones.
    public private(set) var variantOptions: [String: String] = [:]
    package var factory: @Sendable (BackendConfig) throws -> any CacheBackend

    public init<Backend: CacheBackend & SendableMetatype>(
        name: String, summary: String, options: [(name: String, help: String)] = [], microsecondsPerRequest: Double? = nil,
        make: @escaping @Sendable (BackendConfig) throws -> Backend
    ) {
        self.init(name: name, summary: summary, options: options, microsecondsPerRequest: microsecondsPerRequest,
                  like: Backend.self) { try make($0) }
    }

    /// A backend whose options choose among types alike in what the replayer asks of them
    /// (`wtinylfu[variant=caffeine]`, another policy on the same simulator): `like` gives
    /// the static facts.
    package init<Backend: CacheBackend>(
        name: String, summary: String, options: [(name: String, help: String)] = [], microsecondsPerRequest: Double? = nil,
        like _: Backend.Type, make: @escaping @Sendable (BackendConfig) throws -> any CacheBackend
    ) {
        self.name = name
        self.summary = summary
        self.options = options
        self.needsKeyNames = Backend.needsKeyNames
        self.holdsPayloads = Backend.holdsPayloads
        self.storesBytes = Backend.storesBytes
        self.needsFuture = Backend.needsFuture
        self.needsWholeReplay = Backend.needsWholeReplay
        self.isOfflineBound = Backend.isOfflineBound
        self.probesIO = Backend.probesIO
        self.microsecondsPerRequest = microsecondsPerRequest
            ?? (Backend.storesBytes ? 150 : Backend.holdsPayloads || Backend.needsKeyNames ? 15 : 0.2)
        self.factory = make
    }

    /// Builds the backend with the options it knows (the variant's over the global ones);
    /// the rest belong to other backends.
    public func make(_ config: BackendConfig) throws -> any CacheBackend {
        var own = config
        own.options = config.options.filter { option in options.contains { $0.name == option.key } }
            .merging(variantOptions) { _, variant in variant }
        return try factory(own)
    }

    /// The variant's options as written in a backend list, `key-hash=cf;count-limit=100`
    /// (sorted by name; empty for the plain backend).
    public var variant: String {
        variantOptions.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ";")
    }

    /// The name, with the variant's options in brackets when it has some.
    public var label: String { variant.isEmpty ? name : "\(name)[\(variant)]" }

    /// This backend with options of its own (a parsed variant): each must be one it takes.
    package func variant(_ parsed: BackendListText.Variant) throws -> BackendKind {
        var kind = self
        for (key, value) in parsed.options {
            guard options.contains(where: { $0.name == key }) else {
                let known = options.map(\.name)
                throw WorkbenchError("backend '\(name)[\(key)=\(value)…]': \(name) has no option '\(key)' (\(known.isEmpty ? "it takes none" : "it takes " + known.joined(separator: ", ")))")
            }
            kind.variantOptions[key] = value
        }
        return kind
    }
}
