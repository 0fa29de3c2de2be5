import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Caffeine's hill climber for W-TinyLFU's admission window, as in Caffeine 3.2.4
/// (`BoundedLocalCache.determineAdjustment`, `climb`, with `HILL_CLIMBER_RESTART_THRESHOLD`
/// 0.05, `HILL_CLIMBER_STEP_PERCENT` 0.0625 and `HILL_CLIMBER_STEP_DECAY_RATE` 0.98;
/// github.com/ben-manes/caffeine, tag v3.2.4, caffeine/src/main/java/com/github/benmanes/
/// caffeine/cache/BoundedLocalCache.java). It samples the hit rate over `sampleSize`
/// requests (the sketch's reset period) and moves the window's size by a step: on in the
/// same direction while the hit rate does not fall, back otherwise; the step decays by 0.98
/// per sample and restarts at 6.25% of the maximum when the hit rate jumps by 5 points.
/// The first step shrinks the window (the step starts at −6.25%).
///
/// Newer Caffeine (the `WindowClimber` class, 2026) replaces this with a density-based
/// climber for large caches; this is the long-standing one its papers describe.
///
/// Complexity: O(1) per request.
struct HillClimber {
    static let restartThreshold = 0.05
    static let stepPercent = 0.0625
    static let stepDecayRate = 0.98

    let maximum: Int
    private(set) var stepSize: Double
    private(set) var previousHitRate = 0.0
    private(set) var hits = 0
    private(set) var misses = 0
    /// What is left to apply: positive grows the window, negative shrinks it (Caffeine's
    /// `adjustment`, which carries over what a transfer could not move).
    var adjustment = 0

    init(maximum: Int) {
        self.maximum = maximum
        stepSize = -Self.stepPercent * Double(maximum)
    }

    mutating func record(hit: Bool) {
        if hit { hits += 1 } else { misses += 1 }
    }

    /// Closes the sample once it holds `sampleSize` requests and sets `adjustment`.
    mutating func determineAdjustment(sampleSize: Int) {
        let requests = hits + misses
        guard requests >= sampleSize, requests > 0 else { return }
        let hitRate = Double(hits) / Double(requests)
        let change = hitRate - previousHitRate
        let amount = change >= 0 ? stepSize : -stepSize
        stepSize = abs(change) >= Self.restartThreshold
            ? Self.stepPercent * Double(maximum) * (amount >= 0 ? 1 : -1)
            : Self.stepDecayRate * amount
        previousHitRate = hitRate
        adjustment = Int(amount)  // Java's (long) cast truncates toward zero, as here
        hits = 0
        misses = 0
    }
}
