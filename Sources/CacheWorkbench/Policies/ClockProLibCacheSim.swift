import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// CLOCK-Pro as libCacheSim's `ClockPro.c` runs it (the version its PyPI package 0.3.5 builds,
/// 1a1a11a/libCacheSim dbf8423): the default `clockpro`.
///
/// That code never evicts. Every new object enters cold (`ClockPro_insert`: `mem_cold +=
/// obj_size`), and only an eviction (`ClockPro_evict` → `ClockPro_run_cold`) ever promotes one
/// to hot or demotes one to a test entry. But `ClockPro_can_insert` refuses a new object unless
/// `mem_cold + obj_size <= mem_cold_max`, where `mem_cold_max` is `(int64_t)(cache_size ×
/// init-ratio-cold)`, at most the capacity. So while nothing has been evicted the cached bytes
/// equal `mem_cold`, an object that passes that test also fits the free room, and
/// `cache_get_base` never calls `evict`: the cache keeps the first objects that fit within
/// `mem_cold_max` bytes for the whole trace and refuses everything else. (Observed, not only
/// read: a copy of `ClockPro.c` with a print in `ClockPro_run_cold` and in the test-entry
/// branch of `ClockPro_insert`, linked against the dbf8423 build, printed neither on the test
/// suite's traces, and gave the PyPI class's counts.) What this models is that behaviour: the
/// clock hands, hot and test entries are never reached, so they are not kept.
///
/// `init-ratio-cold` is libCacheSim's parameter: its C default is 1 (`DEFAULT_PARAMS`, what
/// `cachesim` runs), the PyPI class `ClockPro`'s 0.5. Above 1 libCacheSim's code does evict,
/// and can loop for ever (`scripts/reference_cachesim.sh cachesim clockpro 50 TRACE
/// init-ratio-cold=2` on the test suite's unit-size trace did not end within 60 s, nor a copy of
/// its code within 3 CPU minutes; with 1 it ends at once), so values above 1 are refused. `init-ref` (the reference bit a
/// new object starts with) only matters once the clock turns, so it is not taken.
///
/// The paper's CLOCK-Pro (Jiang, Chen and Zhang, USENIX ATC 2005) is `clockpro[variant=paper]`
/// (`ClockProPaper`, after Caffeine's simulator).
///
/// Complexity: hit O(1), admit O(1); evict is never called (see `evict`).
struct ClockProLibCacheSim: TailEvictingPolicy {
    typealias Meta = Void
    /// Cached objects, newest at the head (only `removing` and the unreachable `evict` read it).
    var queue = Nodes.Queue()
    let ratio: Double
    /// `mem_cold_max`: the bytes new (cold) objects may take in all.
    let coldLimit: Int
    /// `mem_cold`: the bytes of cached objects, all cold.
    private var coldBytes = 0
    private(set) var fallbacks = 0

    static var fallbackRule: String? {
        "the simulator asked CLOCK-Pro for a victim, which libCacheSim's ClockPro never gives while init-ratio-cold <= 1; the oldest object was evicted"
    }

    init(capacity: Int, options: PolicyOptions) throws {
        ratio = try options.number("init-ratio-cold", default: 1, range: 0...1)
        // C: (int64_t)(cache->cache_size * ratio), a double truncated toward zero.
        coldLimit = Int(Double(capacity) * ratio)
    }

    var newMeta: Void { () }

    var settings: String { "init-ratio-cold=\(ratio)" }

    /// `ClockPro_find` sets the reference bit, which no later step reads.
    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {}

    /// `ClockPro_can_insert`: the new object must fit what is left of the cold budget.
    func admits(_ cost: Int) -> Bool { coldBytes <= coldLimit - cost }

    mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        nodes.pushHead(slot, &queue)
        coldBytes += nodes[slot].cost
    }

    /// Unreachable: an admitted object fits the cold budget, which is no larger than the free
    /// room (see the file's comment). Kept total so the simulator cannot trap; counted.
    mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        fallbacks += 1
        let victim = queue.tail
        nodes.unlink(victim, &queue)
        coldBytes -= nodes[victim].cost
        return victim
    }

    /// `ClockPro_remove_obj`: a cold object gives its bytes back to the cold budget.
    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        nodes.unlink(slot, &queue)
        coldBytes -= nodes[slot].cost
    }
}
