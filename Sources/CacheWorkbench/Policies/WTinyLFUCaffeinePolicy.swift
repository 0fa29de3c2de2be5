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
/// admission of hot candidates (a defence against hash flooding) to stay deterministic,
/// and its hill climber (the window has a fixed size).
///
/// Complexity: hit O(1) (plus O(1) per object moved back to probation); evict O(1) per
/// candidate offered; each request updates four sketch counters.
struct WTinyLFUCaffeinePolicy: EvictionPolicy {
    /// Which queue holds the object: 0 = window, 1 = probation, 2 = protected.
    typealias Meta = UInt8
    private(set) var window = Nodes.Queue()
    private(set) var probation = Nodes.Queue()
    private(set) var protected = Nodes.Queue()
    private var sketch = CountMinSketch(width: 16)
    private let windowSize: Int
    private let mainSize: Int
    private let protectedSize: Int
    private let windowRatio: Double
    private let protectedRatio: Double

    init(capacity: Int, options: PolicyOptions) throws {
        windowRatio = try options.fraction("window-size", default: 0.01)
        protectedRatio = try options.fraction("protected-size", default: 0.8)
        windowSize = Int(Double(capacity) * windowRatio)
        mainSize = capacity - windowSize
        protectedSize = Int(Double(mainSize) * protectedRatio)
    }

    var newMeta: UInt8 { 0 }
    var settings: String { "window-size=\(windowRatio);protected-size=\(protectedRatio)" }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        sketch.increment(nodes[slot].key)
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

    @inline(__always) mutating func miss(_ key: UInt64) { sketch.increment(key) }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        sketch.ensureWidth(nodes.count)
        nodes[slot].meta = 0
        nodes.pushHead(slot, &window)
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
