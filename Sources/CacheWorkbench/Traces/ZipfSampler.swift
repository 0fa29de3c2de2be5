import WorkbenchCore
import WorkbenchMetrics
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Zipf-distributed ranks in 1...n, P(k) ∝ k^-alpha, by rejection-inversion (Hörmann and
/// Derflinger 1996, as in Apache Commons RNG): O(1) memory and time per sample for any n,
/// where a CDF table would need n doubles.
public struct ZipfSampler: Sendable {
    public let count: Int
    public let alpha: Double
    private let hIntegralX1: Double
    private let hIntegralN: Double
    private let s: Double

    public init(count: Int, alpha: Double) {
        precondition(count >= 1 && alpha >= 0)
        self.count = count
        self.alpha = alpha
        hIntegralX1 = Self.hIntegral(1.5, alpha) - 1
        hIntegralN = Self.hIntegral(Double(count) + 0.5, alpha)
        s = 2 - Self.hIntegralInverse(Self.hIntegral(2.5, alpha) - Self.h(2, alpha), alpha)
    }

    public func sample(_ random: inout SeededRandom) -> Int {
        while true {
            let u = hIntegralN + random.nextUnit() * (hIntegralX1 - hIntegralN)
            let x = Self.hIntegralInverse(u, alpha)
            var k = Int(x + 0.5)
            if k < 1 { k = 1 } else if k > count { k = count }
            if Double(k) - x <= s || u >= Self.hIntegral(Double(k) + 0.5, alpha) - Self.h(Double(k), alpha) {
                return k
            }
        }
    }

    private static func h(_ x: Double, _ alpha: Double) -> Double { exp(-alpha * log(x)) }

    private static func hIntegral(_ x: Double, _ alpha: Double) -> Double {
        let logX = log(x)
        return helper2((1 - alpha) * logX) * logX
    }

    private static func hIntegralInverse(_ x: Double, _ alpha: Double) -> Double {
        var t = x * (1 - alpha)
        if t < -1 { t = -1 }
        return exp(helper1(t) * x)
    }

    /// log1p(x)/x, continuous at 0.
    private static func helper1(_ x: Double) -> Double {
        abs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }

    /// expm1(x)/x, continuous at 0.
    private static func helper2(_ x: Double) -> Double {
        abs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x * (1.0 / 3.0) * (1 + 0.25 * x))
    }
}
