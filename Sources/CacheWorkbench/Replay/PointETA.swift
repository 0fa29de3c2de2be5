import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// How long the points of a multi-point `bench run` still to come will take: each is
/// estimated at the mean wall time of the finished points of its backend (they replay the
/// same trace, so they cost alike whatever the capacity), else of every finished point; nil
/// before any point has finished. O(points) per estimate.
package struct PointETA {
    private var byBackend: [String: (seconds: Double, count: Int)] = [:]
    private var all: (seconds: Double, count: Int) = (0, 0)

    package init() {}

    package mutating func finished(backend: String, seconds: Double) {
        byBackend[backend, default: (0, 0)].seconds += seconds
        byBackend[backend, default: (0, 0)].count += 1
        all.seconds += seconds
        all.count += 1
    }

    /// Seconds for points of these backends (one name per point).
    package func seconds(for backends: ArraySlice<String>) -> Double? {
        guard all.count > 0 else { return nil }
        return backends.reduce(0) { total, backend in
            let known = byBackend[backend] ?? all
            return total + known.seconds / Double(known.count)
        }
    }
}
