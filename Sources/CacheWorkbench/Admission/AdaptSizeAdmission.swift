import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation

/// AdaptSize (Berger, Sitaraman and Harchol-Balter, NSDI 2017) as libCacheSim runs it
/// (libCacheSim/cache/admission/adaptsize/adaptsize.cpp, the PyPI package 0.3.5's copy): a
/// miss of size s is stored with probability e^(−s/c); every `reconfigureEvery` requests
/// (once the requested objects' bytes exceed 3 × the capacity, else 1000 requests later) c
/// is re-chosen to maximise the hit ratio its Markov model predicts, by a coarse scan of
/// log2 c and a golden-section search (15 iterations), over request counts aged by an
/// exponentially weighted moving average (0.3). Step for step, with the same generator as
/// `ProbabilisticAdmission` and libCacheSim's constants.
///
/// Not bit for bit in one respect: libCacheSim sums the model over a C++ `unordered_map`
/// in its bucket order; this sums in ascending id order. The sums can differ in their last
/// bits; a decision would change only if a comparison of two model hit ratios or a draw
/// (granularity 10^−7) fell within that difference.
///
/// Complexity: a request O(1) expected; a reconfiguration O(n) per model evaluation
/// (n = objects in the long-term statistics), about 20 evaluations of 20 fixed-point
/// iterations each, once per `reconfigureEvery` requests.
struct AdaptSizeAdmission: Admissioner {
    private struct Seen {
        var times = 0.0
        var size: Int64 = 0
    }

    let reconfigureEvery: Int
    private let maxIterations = 15
    private var capacity: UInt64 = 0
    private var nextReconfiguration: UInt64
    /// Bytes of the objects in the statistics (unsigned and wrapping, as libCacheSim's).
    private var statBytes: UInt64 = 0
    /// The admission parameter c (libCacheSim starts at 2^15).
    private(set) var c: Double = 32_768
    private var interval: [UInt64: Seen] = [:]
    private var longTerm: [UInt64: Seen] = [:]
    private var sizes: [Double] = []
    private var times: [Double] = []
    private let random: LibCacheSimRandom

    private static let ewmaDecay = 0.3
    private static let goldenRatio = 0.61803399
    private static let tolerance = 3.0e-8

    init(reconfigureEvery: Int, random: LibCacheSimRandom = LibCacheSimRandom()) {
        self.reconfigureEvery = reconfigureEvery
        self.random = random
        nextReconfiguration = UInt64(reconfigureEvery)
    }

    var settings: String { reconfigureEvery == 30_000 ? "adaptsize" : "adaptsize:\(reconfigureEvery)" }

    /// `Adaptsize::updateStats`.
    mutating func record(_ key: UInt64, cost: Int, capacity: Int) {
        self.capacity = UInt64(max(0, capacity))
        reconfigure()
        let size = Int64(cost)
        let inInterval = interval[key]
        let inLongTerm = longTerm[key]
        if inInterval == nil && inLongTerm == nil {
            statBytes &+= UInt64(bitPattern: size)
        } else {
            if let seen = inInterval, seen.size != size {
                statBytes = statBytes &- UInt64(bitPattern: seen.size) &+ UInt64(bitPattern: size)
            }
            if let seen = inLongTerm, seen.size != size {
                statBytes = statBytes &- UInt64(bitPattern: seen.size) &+ UInt64(bitPattern: size)
            }
        }
        interval[key, default: Seen()].times += 1
        interval[key]!.size = size
    }

    /// `Adaptsize::admit`: e^(−size/c) against a draw of 10^7 steps.
    mutating func admits(_ key: UInt64, cost: Int) -> Bool {
        let probability = exp(-Double(Int64(cost)) / c)
        let roll = Double(random.next() % 10_000_000) / 10_000_000.0
        return roll < probability
    }

    /// `Adaptsize::reconfigure`.
    private mutating func reconfigure() {
        nextReconfiguration &-= 1
        if nextReconfiguration > 0 { return }
        if statBytes <= capacity &* 3 {
            nextReconfiguration &+= 1000
            return
        }
        nextReconfiguration = UInt64(reconfigureEvery)
        for key in longTerm.keys { longTerm[key]!.times *= Self.ewmaDecay }
        for (key, seen) in interval {
            if var old = longTerm[key] {
                old.times += (1 - Self.ewmaDecay) * seen.times
                old.size = seen.size
                longTerm[key] = old
            } else {
                longTerm[key] = seen
            }
        }
        interval.removeAll(keepingCapacity: true)
        times.removeAll(keepingCapacity: true)
        sizes.removeAll(keepingCapacity: true)
        for key in longTerm.keys.sorted() {
            let seen = longTerm[key]!
            if seen.times < 0.1 {
                statBytes &-= UInt64(bitPattern: seen.size)
                longTerm[key] = nil
                continue
            }
            times.append(seen.times)
            sizes.append(Double(seen.size))
        }
        let v = 1 - Self.goldenRatio
        var x0 = 0.0
        var x1 = log2(Double(capacity))
        var x2 = x1
        var x3 = x1
        var best = 0.0
        var i = 2
        while Double(i) < x3 {
            let rate = modelHitRate(Double(i))
            if rate > best {
                best = rate
                x1 = Double(i)
            }
            i += 4
        }
        var h1 = best
        var h2 = 0.0
        if x3 - x1 > x1 - x0 {
            x2 = x1 + v * (x3 - x1)
            h2 = modelHitRate(x2)
        } else {
            x2 = x1
            h2 = h1
            x1 = x0 + v * (x1 - x0)
            h1 = modelHitRate(x1)
        }
        var iteration = 0
        while iteration < maxIterations && abs(x3 - x0) > Self.tolerance * (abs(x1) + abs(x2)) {
            iteration += 1
            if h1.isNaN || h2.isNaN { break }
            if h2 > h1 {
                x0 = x1
                x1 = x2
                x2 = Self.goldenRatio * x1 + v * x3
                h1 = h2
                h2 = modelHitRate(x2)
            } else {
                x3 = x2
                x2 = x1
                x1 = Self.goldenRatio * x2 + v * x0
                h2 = h1
                h1 = modelHitRate(x1)
            }
        }
        // libCacheSim's loop condition is `current_iteration++ < max_iteration`: the counter
        // advances on the test, so the loop runs at most `max_iteration` times, as here.
        if h1.isNaN || h2.isNaN { return }
        c = h1 > h2 ? pow(2, x1) : pow(2, x2)
    }

    /// `Adaptsize::modelHitRate`: the hit ratio the model predicts for c = 2^log2c.
    private func modelHitRate(_ log2c: Double) -> Double {
        var sum = 0.0
        for i in times.indices { sum += times[i] * exp(-sizes[i] / pow(2, log2c)) * sizes[i] }
        if sum <= 0 { return 0 }
        var t = Double(capacity) / sum
        let admission = sizes.map { exp(-$0 / pow(2.0, log2c)) }
        for _ in 0..<20 {
            var filled = 0.0
            if t > 1e70 { break }
            for i in times.indices {
                let product = times[i] * t
                if product > 150 {
                    filled += sizes[i]
                } else {
                    let expTerm = exp(product) - 1
                    let admitted = admission[i] * expTerm
                    let share = admitted / (1 + admitted)
                    filled += sizes[i] * share
                }
            }
            let old = t
            t = Double(capacity) * old / filled
        }
        var weighted = 0.0
        for i in times.indices {
            let (l, p) = (times[i], admission[i])
            let top = l * p * t * (840.0 + 60.0 * l * t + 20.0 * l * l * t * t + l * l * l * t * t * t)
            let bottom = 840.0 + 120.0 * l * (-3.0 + 7.0 * p) * t + 60.0 * l * l * (1.0 + p) * t * t
                + 4.0 * l * l * l * (-1.0 + 5.0 * p) * t * t * t + l * l * l * l * p * t * t * t * t
            var share = top != 0 && bottom == 0 ? 0.0 : top / bottom
            if share < 0 { share = 0 } else if share > 1 { share = 1 }
            weighted += l * share
        }
        return weighted
    }
}
