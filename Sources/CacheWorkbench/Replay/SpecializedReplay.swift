import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// A backend whose replay loop is compiled for its own type. Generic specialization needs the
/// loop and the conformance in one module: `CacheBackend` lives in WorkbenchBackends, below
/// the loop (WorkbenchSimulation), so it can't name the `Replayer`; the requirement lives
/// here instead, and the built-in backends and simulators conform below. Any other backend
/// (a cache author's own, Examples/CustomBackend) runs the generic loop: the same requests
/// and counts, a witness-table call per backend call.
protocol SpecializedReplay: CacheBackend {
    /// Don't implement it: the default is the loop specialized for `Self`.
    func specializedReplay(with replayer: Replayer) throws -> ReplayTally
}

extension SpecializedReplay {
    func specializedReplay(with replayer: Replayer) throws -> ReplayTally {
        try replayer.replay(self)
    }
}

extension CacheBackend {
    /// Runs `replayer` over this backend: the loop specialized for its type when it is one
    /// of the built-in ones (`SpecializedReplay`), the generic loop otherwise. One dynamic
    /// cast a replay, O(1).
    public func replay(with replayer: Replayer) throws -> ReplayTally {
        if let specialized = self as? any SpecializedReplay { return try specialized.specializedReplay(with: replayer) }
        return try replayer.replay(self)
    }
}

// The policy simulators and what wraps them (compiled in this module, as before the split).
extension PolicySimulator: SpecializedReplay {}
extension PFOOLowerBound: SpecializedReplay {}
extension LIRSLibCacheSim: SpecializedReplay {}
extension ClockProPaper: SpecializedReplay {}
extension AdmissionGate: SpecializedReplay {}
// The payload backends (WorkbenchBackends): their loop is specialized here, their calls
// are direct calls into that module.
extension NSCacheLike: SpecializedReplay {}
extension AutoPurgingImageCache: SpecializedReplay {}
extension AutoPurgingImageCacheO1: SpecializedReplay {}
extension FileStore: SpecializedReplay {}
extension URLCacheStore: SpecializedReplay {}
extension FoundationNSCache: SpecializedReplay {}
extension FoundationURLCache: SpecializedReplay {}
extension TieredCache: SpecializedReplay {}
extension LearnedPolicyProcess: SpecializedReplay {}
