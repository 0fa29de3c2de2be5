import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// A backend in front of another that changes some of its calls (`AdmissionGate`,
/// `PrefetchGate`, `ExpiryGate`): what it does not change is the inner backend's, written
/// once here. Each gate still says its own `get`, `set`, `admits`, `settings`, `details`.
protocol GateForwarding: CacheBackend {
    associatedtype Inner: CacheBackend
    var inner: Inner { get }
}

extension GateForwarding {
    static var needsKeyNames: Bool { Inner.needsKeyNames }
    static var holdsPayloads: Bool { Inner.holdsPayloads }
    static var storesBytes: Bool { Inner.storesBytes }
    static var needsFuture: Bool { Inner.needsFuture }
    static var probesIO: Bool { Inner.probesIO }
    static var receivesBodies: Bool { Inner.receivesBodies }

    func remove(_ request: Request) throws { try inner.remove(request) }
    func didReceiveMemoryWarning() throws -> Int { try inner.didReceiveMemoryWarning() }
    func didEnterBackground() throws -> Int { try inner.didEnterBackground() }
    var backgroundResponse: String { inner.backgroundResponse }
    func trim(toCost target: Int) throws -> Int? { try inner.trim(toCost: target) }
    func close() throws { try inner.close() }
    var facts: BackendFacts { inner.facts }
}
