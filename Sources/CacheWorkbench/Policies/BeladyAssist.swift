import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The oracle of libCacheSim's Belady-assisted policies (`cache/eviction/belady/` at its
/// repository's aa0fc40: `LRU_Belady.c`, `FIFO_Belady.c`, `Sieve_Belady.c`, cachesim's
/// `lru-belady`, `fifo-belady`, `sieve-belady`): their `should_insert`, which wants an object
/// whose next request is at most `cache_size / miss_ratio` requests away, the miss ratio so
/// far being the misses before this request over the requests including it.
///
/// Reproduced as the C computes it: `cache_size` is the capacity in bytes (in objects under
/// `--ignore-obj-size`), so with byte capacities the threshold is in the millions of
/// requests and nearly every object is wanted; the quotient is truncated to an integer as
/// x86-64's `cvttsd2si` does, an infinite one (no miss yet, at the first request) becoming
/// `Int64.min` (nothing wanted). The next request of each object comes from a first pass
/// over the trace (`NextAccess`), as `belady`'s does.
///
/// Complexity: O(1) per request and per question.
struct BeladyAssist {
    private let future: [Int64]
    private let capacity: Double
    /// The request being handled, 0-based (libCacheSim's `n_req` is this plus one).
    private var position = -1
    /// libCacheSim's `n_miss`: the misses before this request (its `get` counts a miss
    /// after `cache_get_base` has evicted and inserted for it).
    private var missesBefore = 0
    private var handlingMiss = false

    init(capacity: Int, options: PolicyOptions, policy: String) throws {
        guard let nextAccess = options.nextAccess else { throw WorkbenchError("\(policy) needs next-access times (a first pass over the trace)") }
        future = nextAccess.positions
        self.capacity = Double(capacity)
    }

    /// Starts the next request (`miss`: the key is not cached) and returns its next access.
    @inline(__always) mutating func request(miss: Bool) -> Int64 {
        if handlingMiss { missesBefore += 1 }
        handlingMiss = miss
        position += 1
        return position < future.count ? future[position] : NextAccess.never
    }

    /// `should_insert(next)`: whether an object next requested at `next` is wanted now.
    @inline(__always) func wants(_ next: Int64) -> Bool {
        let missRatio = Double(missesBefore) / Double(position + 1)
        let quotient = capacity / missRatio
        // cvttsd2si: NaN, infinities and values out of Int64's range give Int64.min.
        let threshold = quotient.isFinite && quotient >= -9.223372036854775808e18 && quotient < 9.223372036854775808e18 ? Int64(quotient) : Int64.min
        // libCacheSim's `next_access_vtime - n_req`: both 1-based there, both 0-based here.
        return next - Int64(position) <= threshold
    }
}
