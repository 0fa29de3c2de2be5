import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Per-object metadata that threads an object into `CountLists`.
protocol CountLinked {
    /// The object's request count (its list).
    var frequency: Int { get set }
    /// Its neighbours in its count's list (−1 at the ends): towards the first and the last.
    var earlier: Int32 { get set }
    var later: Int32 { get set }
}

/// Objects grouped by request count, each count's objects in the order they reached it: the
/// `freq_node_t` lists of libCacheSim's LeCaR (`LeCaR.c`: `insert_obj_info_freq_node`,
/// `remove_obj_from_freq_node`) and CR-LFU (`CR_LFU.c`), which keep an object in an LRU list
/// and a count list at once, so the count links live in the policy's `Meta`, not the node's
/// queue links. Which end a policy evicts from, and how it tracks the lowest count, stay the
/// policy's own (LeCaR takes the first, CR-LFU the last).
///
/// Complexity: append and unlink O(1); `occupied(above:upTo:)` O(counts scanned). Memory: one
/// 24-byte list per count up to the highest reached (an array, as `LFUPolicy`'s buckets;
/// libCacheSim keeps a hash map of the counts in use).
struct CountLists {
    struct List {
        var first: Int32 = -1
        var last: Int32 = -1
        var count = 0
    }

    /// `lists[f]`: the objects requested f times (index 0 unused).
    private var lists = [List](repeating: List(), count: 2)

    subscript(_ frequency: Int) -> List { frequency < lists.count ? lists[frequency] : List() }

    /// Adds an object at the last place of its count's list.
    mutating func append<M: CountLinked>(_ slot: Int32, _ nodes: inout PolicyNodes<M>) {
        let frequency = nodes[slot].meta.frequency
        while lists.count <= frequency { lists.append(List()) }
        let last = lists[frequency].last
        nodes[slot].meta.earlier = last
        nodes[slot].meta.later = -1
        if last >= 0 { nodes[last].meta.later = slot } else { lists[frequency].first = slot }
        lists[frequency].last = slot
        lists[frequency].count += 1
    }

    /// Takes an object out of its count's list.
    mutating func unlink<M: CountLinked>(_ slot: Int32, _ nodes: inout PolicyNodes<M>) {
        let meta = nodes[slot].meta
        if meta.earlier >= 0 { nodes[meta.earlier].meta.later = meta.later } else { lists[meta.frequency].first = meta.later }
        if meta.later >= 0 { nodes[meta.later].meta.earlier = meta.earlier } else { lists[meta.frequency].last = meta.earlier }
        lists[meta.frequency].count -= 1
    }

    /// The lowest count above `lowest`, up to `highest`, whose list holds an object (the scan
    /// both policies run when their lowest list empties); nil when none does.
    func occupied(above lowest: Int, upTo highest: Int) -> Int? {
        var frequency = lowest + 1
        while frequency <= highest {
            if self[frequency].count > 0 { return frequency }
            frequency += 1
        }
        return nil
    }
}
