import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// W-TinyLFU (Einziger, Friedman and Manes, ACM ToS 2017), after Caffeine's design rather
/// than libCacheSim's `WTinyLFU.c`: a window LRU (`window-size` of the capacity, default
/// 0.01) in front of a segmented main cache (probation, and protected = `protected-size` of
/// the main, default 0.8), and a count-min sketch of every request's key (`CountMinSketch`).
/// New objects enter the window. A window over its size offers its least recent object to
/// the main cache: it is placed in probation if the main has room; otherwise it duels
/// probation's least recent object (or protected's, when probation is empty) and enters
/// only if its estimated frequency is higher (ties keep the incumbent), the loser being
/// evicted. A probation hit moves the object to protected, whose overflow goes back to
/// probation.
///
/// Why after Caffeine: it is the reference implementation the paper's authors maintain.
/// libCacheSim's version counts with a minimal-increment counting Bloom filter and decays
/// it differently, so its numbers differ. The workbench leaves out Caffeine's random
/// admission of hot candidates (a defence against hash flooding) to stay deterministic.
/// Caffeine's hill climber (`HillClimber`, `climber=on`, the default) adapts the window:
/// after each request it closes a sample every sketch reset period, then moves capacity
/// between the window and the protected segment as Caffeine 3.2.4's `increaseWindow` and
/// `decreaseWindow` do (least recent objects of probation, then protected, move to the
/// window's most recent end; or the window's least recent to probation; at most 1,000 per
/// request, the rest carried over); `climber=off` keeps the window's size fixed.
/// Differences from Caffeine itself: objects are evicted before the new one is admitted
/// (Caffeine admits, then evicts in its maintenance), and the sketch is sized by the
/// objects cached (Caffeine sizes it by the maximum entry count).
///
/// Complexity: hit O(1) (plus O(1) per object moved back to probation); evict O(1) per
/// candidate offered; each request updates four sketch counters; a climb moves at most
/// 1,000 objects (amortized O(1) per request).
struct WTinyLFUCaffeinePolicy: EvictionPolicy {
    /// Which queue holds the object: 0 = window, 1 = probation, 2 = protected.
    typealias Meta = UInt8
    private(set) var window = Nodes.Queue()
    private(set) var probation = Nodes.Queue()
    private(set) var protected = Nodes.Queue()
    private var sketch = CountMinSketch(width: 16)
    private let capacity: Int
    private(set) var windowSize: Int
    private var mainSize: Int { capacity - windowSize }
    private(set) var protectedSize: Int
    private let windowRatio: Double
    private let protectedRatio: Double
    private var climber: HillClimber?
    /// Caffeine's `QUEUE_TRANSFER_THRESHOLD`: objects moved per climb at most.
    private static let transferLimit = 1_000

    init(capacity: Int, options: PolicyOptions) throws {
        self.capacity = capacity
        windowRatio = try options.fraction("window-size", default: 0.01)
        protectedRatio = try options.fraction("protected-size", default: 0.8)
        windowSize = Int(Double(capacity) * windowRatio)
        protectedSize = Int(Double(capacity - windowSize) * protectedRatio)
        if try options.choice("climber", among: ["on", "off"]) == "on" { climber = HillClimber(maximum: capacity) }
    }

    var newMeta: UInt8 { 0 }
    var settings: String {
        "variant=caffeine;window-size=\(windowRatio);protected-size=\(protectedRatio);climber=\(climber == nil ? "off" : "on")"
    }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        sketch.increment(nodes[slot].key)
        defer {
            climber?.record(hit: true)
            climb(&nodes)
        }
        switch nodes[slot].meta {
        case 0: nodes.moveToHead(slot, &window)
        case 2: nodes.moveToHead(slot, &protected)
        default:
            nodes.unlink(slot, &probation)
            nodes[slot].meta = 2
            nodes.pushHead(slot, &protected)
            while protected.bytes > protectedSize, protected.tail != slot {
                let demoted = protected.tail
                nodes.unlink(demoted, &protected)
                nodes[demoted].meta = 1
                nodes.pushHead(demoted, &probation)
            }
        }
    }

    @inline(__always) mutating func miss(_ key: UInt64) {
        sketch.increment(key)
        climber?.record(hit: false)
    }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        sketch.ensureWidth(nodes.count)
        nodes[slot].meta = 0
        nodes.pushHead(slot, &window)
        climb(&nodes)
    }

    // MARK: Caffeine's climb (BoundedLocalCache.climb, increaseWindow, decreaseWindow)

    private mutating func climb(_ nodes: inout Nodes) {
        guard var climber else { return }
        climber.determineAdjustment(sampleSize: sketch.sampleSize)
        demoteFromProtected(&nodes)
        if climber.adjustment > 0 { increaseWindow(&climber, &nodes) } else if climber.adjustment < 0 { decreaseWindow(&climber, &nodes) }
        self.climber = climber
    }

    /// `demoteFromMainProtected`: protected's least recent objects go to probation while it
    /// is over its size.
    private mutating func demoteFromProtected(_ nodes: inout Nodes) {
        for _ in 0..<Self.transferLimit where protected.bytes > protectedSize && protected.count > 0 {
            let demoted = protected.tail
            nodes.unlink(demoted, &protected)
            nodes[demoted].meta = 1
            nodes.pushHead(demoted, &probation)
        }
    }

    private mutating func increaseWindow(_ climber: inout HillClimber, _ nodes: inout Nodes) {
        guard protectedSize > 0 else { return }
        var quota = min(climber.adjustment, protectedSize)
        protectedSize -= quota
        windowSize += quota
        demoteFromProtected(&nodes)
        for _ in 0..<Self.transferLimit {
            var candidate = probation.tail
            if candidate < 0 || quota < nodes[candidate].cost { candidate = protected.tail }
            guard candidate >= 0, quota >= nodes[candidate].cost else { break }
            quota -= nodes[candidate].cost
            if nodes[candidate].meta == 1 { nodes.unlink(candidate, &probation) } else { nodes.unlink(candidate, &protected) }
            nodes[candidate].meta = 0
            nodes.pushHead(candidate, &window)
        }
        protectedSize += quota
        windowSize -= quota
        climber.adjustment = quota
    }

    private mutating func decreaseWindow(_ climber: inout HillClimber, _ nodes: inout Nodes) {
        guard windowSize > 1 else { return }
        var quota = min(-climber.adjustment, max(0, windowSize - 1))
        protectedSize += quota
        windowSize -= quota
        for _ in 0..<Self.transferLimit {
            let candidate = window.tail
            guard candidate >= 0, quota >= nodes[candidate].cost else { break }
            quota -= nodes[candidate].cost
            nodes.unlink(candidate, &window)
            nodes[candidate].meta = 1
            nodes.pushHead(candidate, &probation)
        }
        protectedSize -= quota
        windowSize += quota
        climber.adjustment = -quota
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        while window.count > 0 && window.bytes + incoming > windowSize {
            let candidate = window.tail
            nodes.unlink(candidate, &window)
            let cost = nodes[candidate].cost
            if probation.bytes + protected.bytes + cost <= mainSize {
                nodes[candidate].meta = 1
                nodes.pushHead(candidate, &probation)
                continue
            }
            let victim = probation.count > 0 ? probation.tail : protected.tail
            guard victim >= 0, sketch.estimate(nodes[candidate].key) > sketch.estimate(nodes[victim].key) else { return candidate }
            if nodes[victim].meta == 1 { nodes.unlink(victim, &probation) } else { nodes.unlink(victim, &protected) }
            nodes[candidate].meta = 1
            nodes.pushHead(candidate, &probation)
            return victim
        }
        // The window has room: the main cache gives up its least valuable object.
        if probation.count > 0 { let victim = probation.tail; nodes.unlink(victim, &probation); return victim }
        if protected.count > 0 { let victim = protected.tail; nodes.unlink(victim, &protected); return victim }
        let victim = window.tail
        nodes.unlink(victim, &window)
        return victim
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        switch nodes[slot].meta {
        case 0: nodes.unlink(slot, &window)
        case 1: nodes.unlink(slot, &probation)
        default: nodes.unlink(slot, &protected)
        }
    }
}
