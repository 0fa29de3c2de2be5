import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// What a backend is a model of, so that a reading ranks like with like and never offers a
/// Linux object as an iOS choice (issue 21 §8). In the CSV as `model_of`.
///
/// - `ios`: a model of a cache iOS apps use (`nscache`, `autopurge`, `sqlite`, `files`, the
///   library presets and tiers of these): a candidate for an iOS app.
/// - `linux-corelibs`: the real swift-corelibs-foundation object (`foundation-nscache`,
///   `foundation-urlcache`, or a tier over one): what Foundation on Linux does, which is
///   not what Apple's does (DESIGN.md, "What the backends model"); a comparison, never a
///   candidate.
/// - `policy`: a policy simulator or offline bound (`lru`, `policies`): no iOS cache.
public enum ModelFamily: String, Sendable, CaseIterable {
    case ios
    case linuxCorelibs = "linux-corelibs"
    case policy

    /// The real corelibs objects.
    static let corelibsNames: Set<String> = ["foundation-nscache", "foundation-urlcache"]

    /// The family of a backend as a results row names it (`nscache`, `tier:nscache+files`,
    /// a preset); a name the registry does not know is taken as `ios` only if no rule says
    /// otherwise, which cannot happen for a row the workbench wrote.
    public static func of(backend name: String) -> ModelFamily {
        let parts = components(of: name)
        if parts.contains(where: corelibsNames.contains) { return .linuxCorelibs }
        if parts.count > 1 { return .ios }  // a tier or preset: a two-tier library cache
        if parts[0] == "lru" || BackendRegistry.policyNames.contains(parts[0]) { return .policy }
        return .ios
    }

    /// The single backends a row's backend is made of: itself, or a tier's or preset's
    /// memory and disk backends.
    package static func components(of name: String) -> [String] {
        let name = name.lowercased()
        if let parts = try? TierOptionText.parts(name) { return [parts.memory, parts.disk] }
        if let preset = TierPreset.all.first(where: { $0.name == name }) { return [preset.memory, preset.disk] }
        return [name]
    }

    /// `bench list`'s line for `nscache`. Apple documents both limits as "not a strict
    /// limit" and "the order in which the cache evicts objects is not guaranteed"
    /// (developer.apple.com/documentation/foundation/nscache/totalcostlimit, …/countlimit).
    static let nscacheSummary = "a model of NSCache, not Apple's: an LRU with hard cost and count limits, CFStringHash keys, memory warning clears. Apple's NSCache treats both limits as hints and documents no eviction order, so its hit ratios are this model's"

    /// `bench list`'s line for `foundation-nscache` (DESIGN.md: corelibs evicts the lowest
    /// cost first and ignores reads).
    static let foundationNSCacheSummary = "the Linux swift-corelibs-foundation NSCache, run as it is (not Apple's: lowest cost evicted first, reads ignored); a comparison, never an iOS candidate"
}
