import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// CR-LFU, the churn-resistant LFU expert of Cacheus (Rodriguez et al., FAST 2021), as
/// libCacheSim's `CR_LFU.c` in the PyPI package 0.3.5's source (1a1a11a/libCacheSim@dbf8423):
/// LFU that, among the objects of the lowest count, evicts the one that reached it LAST
/// (`CR_LFU_to_evict`: `min_freq_node->last_obj`), so a churning working set keeps its older
/// members. Within Cacheus an object leaving writes its count into SR-LRU's history, and one
/// coming back from that history starts from the remembered count + 1 (`CR_LFU_insert`).
///
/// The lowest count is kept as C keeps it: a hit or an eviction that empties it looks up to
/// the highest count ever seen (an eviction that finds none sets it to −1, "none"); a removal
/// that empties it keeps it when none is found above, and an insert lowers it. Where C would
/// then read an empty count (a null object: a crash), the lowest occupied count is used and
/// counted as a fallback.
///
/// Complexity: hit O(1) plus the scan when the lowest count empties; insert O(1); evict and
/// remove O(1) plus that scan.
struct CRLFU {
    typealias Nodes = PolicyNodes<CacheusMeta>
    private var lists = CountLists()
    /// libCacheSim's `min_freq` (−1: none) and `max_freq`.
    private(set) var lowest = 1
    private var highest = 1
    /// Evictions that found the lowest count empty (C reads a null object there).
    private(set) var fallbacks = 0

    /// `CR_LFU_find` for a cached object: one count up, last of its new count's list.
    mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        let old = nodes[slot].meta.frequency
        highest = max(highest, old + 1)
        lists.unlink(slot, &nodes)
        nodes[slot].meta.frequency = old + 1
        lists.append(slot, &nodes)
        if lowest == old && lists[old].count == 0, let next = lists.occupied(above: lowest, upTo: highest) { lowest = next }
    }

    /// `CR_LFU_insert`: count 1, or the count `remembered` (SR-LRU's history) + 1.
    mutating func insert(_ slot: Int32, _ nodes: inout Nodes, remembered: Int?) {
        let frequency = remembered.map { $0 + 1 } ?? 1
        nodes[slot].meta.frequency = frequency
        if frequency == 1 { lowest = 1 }
        lists.append(slot, &nodes)
        highest = max(highest, frequency)
        if lowest > frequency || lowest == -1 { lowest = frequency }
    }

    /// The object eviction would take: the last to reach the lowest count.
    mutating func candidate(_ nodes: Nodes) -> Int32 {
        if lowest < 1 || lists[lowest].count == 0 {
            // C would read a null object here; take the lowest occupied count instead.
            fallbacks += 1
            lowest = lists.occupied(above: 0, upTo: highest) ?? 1
        }
        return lists[lowest].last
    }

    /// `CR_LFU_evict`: the candidate leaves (its count is written into the history by the
    /// caller). Returns it, unlinked from its list.
    mutating func evict(_ nodes: inout Nodes) -> Int32 {
        let victim = candidate(nodes)
        lists.unlink(victim, &nodes)
        if lists[lowest].count == 0 { lowest = lists.occupied(above: lowest, upTo: highest) ?? -1 }
        return victim
    }

    /// `CR_LFU_remove`: out of its list; the lowest count moves up only when one above holds an object.
    mutating func remove(_ slot: Int32, _ nodes: inout Nodes) {
        lists.unlink(slot, &nodes)
        if lowest >= 1 && lists[lowest].count == 0, let next = lists.occupied(above: lowest, upTo: highest) { lowest = next }
    }
}

/// CR-LFU alone, as libCacheSim runs `CR_LFU_init` without Cacheus (no history to restore
/// counts from: every object starts at 1): evict the last to reach the lowest count. Neither
/// its `cachesim` nor its PyPI package offers it; scripts/reference_libcachesim_c.sh runs it
/// through libCacheSim's C API.
///
/// Complexity: as `CRLFU`: hit, admit and evict O(1) plus the scan when the lowest count empties.
struct CRLFUPolicy: VictimNamingPolicy {
    typealias Meta = CacheusMeta
    private var lfu = CRLFU()

    init(capacity: Int, options: PolicyOptions) {}

    var newMeta: Meta { Meta() }
    var fallbacks: Int { lfu.fallbacks }
    static var fallbackRule: String? { "crlfu: when the lowest count is empty (libCacheSim reads a null object there), the lowest occupied count is used" }

    mutating func hit(_ slot: Int32, _ nodes: inout Nodes) { lfu.hit(slot, &nodes) }
    mutating func admit(_ slot: Int32, _ nodes: inout Nodes) { lfu.insert(slot, &nodes, remembered: nil) }
    mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 { lfu.evict(&nodes) }
    /// The lowest count's oldest (the fallback's repair, if any, stays done).
    mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 { lfu.candidate(nodes) }
    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) { lfu.remove(slot, &nodes) }
}
