import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// SR-LRU, the scan-resistant LRU expert of Cacheus (Rodriguez et al., FAST 2021), as
/// libCacheSim's `SR_LRU.c` in the PyPI package 0.3.5's source (1a1a11a/libCacheSim@dbf8423):
/// two LRU lists, SR (new objects; scan-resistant) and R (objects hit in SR, or back from
/// history; churn-resistant), whose sizes (capacity / 2 each to begin with) move with what
/// history says, and a history H (capacity bytes, the oldest out once it holds the capacity or
/// more) of ids that left, each marked new when it never left SR for R.
///
/// - A hit in R moves the object to R's head; a hit in SR moves it to R's head (a fresh copy:
///   not new, not demoted) and R's tails go to SR's head, marked demoted, while R is over its
///   size. (`SR_LRU_find` then reads the fresh copy's demoted flag, always false, so its
///   shrinking of SR never runs: reproduced.)
/// - A new object goes to SR's head, marked new. One found in H goes to R's head after R's
///   tails have gone to SR to make room; when H marked it new, SR grows by
///   max(1, ⌊demoted / new⌋ + 0.5) bytes (at most to the bytes held − 1) and R shrinks to match.
/// - Then SR's tails leave for H while SR is over its size (`overflow`, for Cacheus to take
///   out of CR-LFU), and H is trimmed.
/// - Eviction takes SR's tail, or R's when SR is empty, into H.
/// `C_demoted` and `C_new` are unsigned as in C (a demoted object hit in SR is not uncounted,
/// as in C).
///
/// Not offered as a policy alone: libCacheSim's SR-LRU run alone (`SR_LRU_get`, through its C
/// API: neither `cachesim` nor the PyPI package has it) never evicts to make room, so it holds
/// up to one object more than its capacity; SR then grows to the capacity and R's size to 0,
/// and every id back from history is refused from then on (`scripts/reference_libcachesim_c.sh
/// srlru 50 unit.csv`: 2,652 hits of 20,000; kept within its capacity, as the workbench's
/// simulator keeps every policy, the same lists give 3,367). Cacheus evicts before it inserts,
/// so within Cacheus it is exact.
///
/// Complexity: hit O(1) plus O(1) per object demoted; admit O(1) plus O(1) per object moved;
/// evict O(1) plus the history trimmed, O(1) amortized.
struct SRLRU {
    /// What H remembers of an id: whether it left while new, and CR-LFU's count for it.
    struct Remembered {
        var new: Bool
        var frequency: Int
    }

    typealias Nodes = PolicyNodes<CacheusMeta>
    var r = Nodes.Queue()
    var sr = Nodes.Queue()
    var history = PolicyNodes<Remembered>()
    private var historyQueue = PolicyNodes<Remembered>.Queue()
    /// H's size: the capacity (`H_list->cache_size`).
    let historySize: Int
    /// SR's and R's sizes; they add up to the capacity once SR has moved.
    private(set) var srSize: Int
    private(set) var rSize: Int
    /// `C_demoted` (demoted objects cached) and `C_new` (new objects sent to H).
    private(set) var demoted: UInt64 = 0
    private(set) var new: UInt64 = 0
    /// The objects the last `admit` pushed out of SR into H, oldest first; still allocated.
    private(set) var overflow: [Int32] = []

    /// Whether an id back from H brings its "new" mark (the 0.3.5 release's `SR_LRU.c:247`,
    /// `:272`). libCacheSim aa0fc40's `SR_LRU_insert` (lines 240–283) drops both lines, so the
    /// copy it inserts is never new and SR never grows: SR and R stay at capacity / 2.
    let carriesNewMark: Bool

    init(capacity: Int, carriesNewMark: Bool = true) {
        self.carriesNewMark = carriesNewMark
        historySize = capacity
        srSize = capacity / 2
        rSize = capacity / 2
    }

    func deallocate() { history.deallocate() }

    /// H's ids, newest first (tests; O(n)).
    var historyKeys: [UInt64] { history.keys(historyQueue) }

    /// Whether H remembers `key`.
    func remembers(_ key: UInt64) -> Bool { history.find(key) != nil }

    /// `SR_LRU_can_insert`: an id from H must fit R, a new one SR.
    func admits(_ key: UInt64, cost: Int) -> Bool { cost <= (remembers(key) ? rSize : srSize) }

    /// The object eviction would take (`SR_LRU_to_evict`).
    var candidate: Int32 { sr.bytes != 0 ? sr.tail : r.tail }

    /// `SR_LRU_find` for a cached object.
    mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta.inR {
            nodes.moveToHead(slot, &r)
            return
        }
        nodes.unlink(slot, &sr)
        nodes[slot].meta.inR = true
        nodes[slot].meta.new = false
        nodes[slot].meta.demoted = false
        nodes.pushHead(slot, &r)
        while r.bytes > rSize { demoteTail(&nodes) }
    }

    /// R's tail to SR's head as a fresh copy, demoted unless it already was (R's never are).
    private mutating func demoteTail(_ nodes: inout Nodes) {
        let tail = r.tail
        nodes.unlink(tail, &r)
        let wasDemoted = nodes[tail].meta.demoted
        nodes[tail].meta.inR = false
        nodes[tail].meta.new = false
        nodes[tail].meta.demoted = !wasDemoted
        if !wasDemoted { demoted &+= 1 }
        nodes.pushHead(tail, &sr)
    }

    /// `SR_LRU_insert` for an object `admits` accepted; fills `overflow`.
    mutating func admit(_ slot: Int32, _ nodes: inout Nodes) {
        overflow.removeAll(keepingCapacity: true)
        let cost = nodes[slot].cost
        if let remembered = history.find(nodes[slot].key) {
            let wasNew = carriesNewMark && history[remembered].meta.new
            history.unlink(remembered, &historyQueue)
            history.free(remembered)
            while r.bytes + cost > rSize, r.count > 0 { demoteTail(&nodes) }
            nodes[slot].meta.inR = true
            nodes.pushHead(slot, &r)
            if wasNew {
                // `(int)(C_demoted / C_new) + 0.5`, at least 1 (C_new ≥ 1: this id was counted).
                let ratio = Double(Int32(truncatingIfNeeded: demoted / max(new, 1))) + 0.5
                let delta = 1.0 > ratio ? 1.0 : ratio
                let held = r.bytes + sr.bytes
                srSize = Double(srSize) + delta > Double(held - 1) ? held - 1 : Int(Double(srSize) + delta)
                rSize = historySize - srSize
            }
        } else {
            nodes[slot].meta.inR = false
            nodes[slot].meta.new = true
            nodes.pushHead(slot, &sr)
        }
        while sr.bytes > srSize {
            let tail = sr.tail
            nodes.unlink(tail, &sr)
            remember(tail, nodes)
            overflow.append(tail)
        }
        trimHistory()
    }

    /// `SR_LRU_evict`: the candidate leaves for H. Returns it (unlinked, still allocated).
    mutating func evict(_ nodes: inout Nodes) -> Int32 {
        let victim = candidate
        remove(victim, &nodes)
        return victim
    }

    /// `SR_LRU_remove`: the object leaves its list for H.
    mutating func remove(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta.inR { nodes.unlink(slot, &r) } else { nodes.unlink(slot, &sr) }
        remember(slot, nodes)
        trimHistory()
    }

    /// An object leaving for H: counted in `C_new` when new, uncounted from `C_demoted`
    /// when demoted.
    private mutating func remember(_ slot: Int32, _ nodes: Nodes) {
        let meta = nodes[slot].meta
        let entry = history.add(nodes[slot].key, cost: nodes[slot].cost, meta: Remembered(new: meta.new, frequency: 0))
        history.pushHead(entry, &historyQueue)
        if meta.new { new &+= 1 }
        if meta.demoted { demoted &-= 1 }
    }

    /// H keeps less than its size (`while (H->occupied_byte >= H->cache_size)`).
    private mutating func trimHistory() {
        while historyQueue.bytes >= historySize, historyQueue.tail >= 0 {
            let oldest = historyQueue.tail
            history.unlink(oldest, &historyQueue)
            history.free(oldest)
        }
    }

    /// CR-LFU's count for an id H holds (`CR_LFU.freq`); false when H does not hold it.
    @discardableResult
    mutating func setRememberedFrequency(_ key: UInt64, _ frequency: Int) -> Bool {
        guard let entry = history.find(key) else { return false }
        history[entry].meta.frequency = frequency
        return true
    }

    /// CR-LFU's count H remembers for `key`, when it does.
    func rememberedFrequency(_ key: UInt64) -> Int? { history.find(key).map { history[$0].meta.frequency } }
}

