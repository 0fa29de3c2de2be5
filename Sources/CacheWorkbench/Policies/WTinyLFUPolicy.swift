import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// W-TinyLFU (Einziger, Friedman and Manes, ACM ToS 2017) exactly as libCacheSim's
/// `WTinyLFU.c` (the version its PyPI package 0.3.5 builds, 1a1a11a/libCacheSim dbf8423) (default `main-cache=SLRU,window-size=0.01`): a window LRU of
/// ⌊capacity × window-size⌋ bytes in front of a main SLRU (`SLRU.c` with `seg-size=1:4`: a
/// probation segment of 1/5 and a protected one of 4/5 of the rest), and libCacheSim's
/// counting Bloom filter (`CountingBloomFilter`, sized for the main cache's bytes at 0.001
/// error) as the frequency estimate. Its particular rules, kept here because they decide
/// its numbers:
/// - the filter counts insertions, hits in the main cache (not window hits, not misses) and
///   every window victim offered to the main cache; it halves after 32 × main-bytes main hits;
/// - an object larger than the window (or than probation) is never stored;
/// - making room drains the window from its LRU end: a victim moves into the main cache
///   while the main cache has room; otherwise it duels the main cache's victim (probation's
///   LRU end, protected's when probation is empty): if its estimate is strictly higher it
///   replaces that victim, else it is evicted itself — either ends the round (an empty
///   window: the main cache evicts instead). With `reference=libcachesim-aa0fc40`, the
///   repository's code at aa0fc40 (Oct 2024): a replacement does not end the round
///   (`WTinyLFU_evict` sets `evicted` only when the window's victim goes; 0.3.5 sets it on a
///   replacement too, WTinyLFU.c:315), so the window drains until one of its victims loses;
/// - a main-cache hit promotes probation → protected, whose overflow cools back to
///   probation, whose overflow is evicted (a hit can evict, as SLRU's does).
/// `wtinylfu[variant=caffeine]` is Caffeine's design (`WTinyLFUCaffeinePolicy`).
///
/// Complexity: hit O(1) amortized plus O(hashes) filter work on a main hit; admit
/// O(hashes); evict O(hashes) per window object moved, amortized O(1) objects per admit.
struct WTinyLFUPolicy: EvictionPolicy {
    /// Which queue holds the object: 0 = window, 1 = probation, 2 = protected.
    typealias Meta = UInt8
    private(set) var window = Nodes.Queue()
    private(set) var probation = Nodes.Queue()
    private(set) var protected = Nodes.Queue()
    private var filter: CountingBloomFilter
    private let windowRatio: Double
    let windowSize: Int
    let mainSize: Int
    let probationSize: Int
    let protectedSize: Int
    private let decayAfter: Int
    private var mainHits = 0
    /// `reference=libcachesim-aa0fc40`: a replacement does not end the round.
    private let drainsPastReplacement: Bool
    private let reference: String

    init(capacity: Int, options: PolicyOptions) throws {
        windowRatio = try options.fraction("window-size", default: 0.01)
        reference = try options.choice("reference", among: LibCacheSimReference.names)
        drainsPastReplacement = reference == LibCacheSimReference.repository
        // `cache_size *= window_size` on an int64_t: a truncating conversion, as here.
        windowSize = Int(Double(capacity) * windowRatio)
        mainSize = capacity - windowSize
        probationSize = Int(1.0 / 5.0 * Double(mainSize))
        protectedSize = Int(4.0 / 5.0 * Double(mainSize))
        filter = CountingBloomFilter(entries: mainSize, error: 0.001)
        // 32 × main bytes (libCacheSim's size_t product); capacities reach 2⁶⁰, so the product
        // saturates instead of wrapping (a wrapped 0 would halve the filter on every hit).
        decayAfter = mainSize > Int.max / 32 ? Int.max : 32 * mainSize
    }

    var newMeta: UInt8 { 0 }
    var settings: String { "variant=libcachesim;reference=\(reference);window-size=\(windowRatio);main-cache=slru(1:4)" }
    func deallocate() { filter.deallocate() }

    /// `WTinyLFU_can_insert`: no larger than the window nor than probation (nor the main cache).
    func admits(_ cost: Int) -> Bool { cost <= windowSize && cost <= probationSize && cost <= mainSize }

    private var mainBytes: Int { probation.bytes + protected.bytes }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        switch nodes[slot].meta {
        case 0:
            nodes.moveToHead(slot, &window)
            return
        case 2:
            nodes.moveToHead(slot, &protected)
        default:
            nodes.unlink(slot, &probation)
            nodes[slot].meta = 2
            nodes.pushHead(slot, &protected)
            while protected.bytes > protectedSize {
                let cooled = protected.tail
                nodes.unlink(cooled, &protected)
                nodes[cooled].meta = 1
                nodes.pushHead(cooled, &probation)
                while probation.bytes > probationSize { nodes.evict(takeMainVictim(&nodes)) }
            }
        }
        filter.add(nodes[slot].key)
        mainHits += 1
        if mainHits >= decayAfter {
            mainHits = 0
            filter.decay()
        }
    }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        nodes[slot].meta = 0
        nodes.pushHead(slot, &window)
        filter.add(nodes[slot].key)
    }

    /// `SLRU_to_evict` then `SLRU_evict`: the LRU end of the lowest non-empty segment.
    private mutating func takeMainVictim(_ nodes: inout Nodes) -> Int32 {
        if probation.bytes > 0 {
            let victim = probation.tail
            nodes.unlink(victim, &probation)
            return victim
        }
        let victim = protected.tail
        nodes.unlink(victim, &protected)
        return victim
    }

    /// `SLRU_insert`: the lowest segment with room; with none, the main cache evicts until
    /// the object fits its total size, and it goes to probation (which may then be over).
    private mutating func insertIntoMain(_ slot: Int32, _ nodes: inout Nodes) {
        let cost = nodes[slot].cost
        if probation.bytes + cost <= probationSize {
            nodes[slot].meta = 1
            nodes.pushHead(slot, &probation)
        } else if protected.bytes + cost <= protectedSize {
            nodes[slot].meta = 2
            nodes.pushHead(slot, &protected)
        } else {
            while mainBytes + cost > mainSize { nodes.evict(takeMainVictim(&nodes)) }
            nodes[slot].meta = 1
            nodes.pushHead(slot, &probation)
        }
    }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        while window.count > 0 {
            let candidate = window.tail
            let key = nodes[candidate].key
            if mainBytes + nodes[candidate].cost <= mainSize {
                nodes.unlink(candidate, &window)
                insertIntoMain(candidate, &nodes)
                filter.add(key)
                continue
            }
            let incumbent = probation.bytes > 0 ? probation.tail : protected.tail
            if filter.estimate(key) > filter.estimate(nodes[incumbent].key) {
                let victim = takeMainVictim(&nodes)
                nodes.unlink(candidate, &window)
                insertIntoMain(candidate, &nodes)
                filter.add(key)
                guard drainsPastReplacement else { return victim }
                nodes.evict(victim)
                continue
            }
            nodes.unlink(candidate, &window)
            filter.add(key)
            return candidate
        }
        return takeMainVictim(&nodes)
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        switch nodes[slot].meta {
        case 0: nodes.unlink(slot, &window)
        case 1: nodes.unlink(slot, &probation)
        default: nodes.unlink(slot, &protected)
        }
    }
}
