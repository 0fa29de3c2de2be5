import WorkbenchCore
import WorkbenchTraces
/// What a disk backend keeps in memory about each stored entry — size, times, where its
/// body is — in recency order, so that capacity checks and eviction never list a folder
/// or scan a table.
///
/// Complexity: lookup, upsert, touch, remove and oldest O(1) (a dictionary from key to
/// slot, and a doubly linked list through the slots).
struct DiskEntryIndex {
    struct Entry: Equatable {
        var key: String
        var size: Int
        /// Trace time of the last store (NSURLCache's time_stamp; the start of max age).
        var stored: Double
        var lastAccess: Double
        /// The database row (sqlite) or 0.
        var rowID: Int64
        /// The body's file name, when the body is a file.
        var fileName: String?
    }

    private struct Node {
        var entry: Entry
        var newer: Int
        var older: Int
    }

    private var slots: [String: Int] = [:]
    private var nodes: [Node] = []
    private var free: [Int] = []
    private var newest = -1
    private var oldestSlot = -1
    private(set) var totalBytes = 0

    var count: Int { slots.count }

    func lookup(_ key: String) -> Entry? { slots[key].map { nodes[$0].entry } }

    var oldest: Entry? { oldestSlot >= 0 ? nodes[oldestSlot].entry : nil }

    /// Entries from least to most recent.
    var fromOldest: [Entry] {
        var entries: [Entry] = []
        var slot = oldestSlot
        while slot >= 0 {
            entries.append(nodes[slot].entry)
            slot = nodes[slot].newer
        }
        return entries
    }

    /// Adds or replaces the entry and makes it the most recent.
    mutating func upsert(_ entry: Entry) {
        if let slot = slots[entry.key] {
            totalBytes += entry.size - nodes[slot].entry.size
            nodes[slot].entry = entry
            moveToNewest(slot)
            return
        }
        let node = Node(entry: entry, newer: -1, older: newest)
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
            nodes[slot] = node
        } else {
            slot = nodes.count
            nodes.append(node)
        }
        if newest >= 0 { nodes[newest].newer = slot }
        newest = slot
        if oldestSlot < 0 { oldestSlot = slot }
        slots[entry.key] = slot
        totalBytes += entry.size
    }

    /// Records an access and makes the entry the most recent.
    mutating func touch(_ key: String, at time: Double) {
        guard let slot = slots[key] else { return }
        nodes[slot].entry.lastAccess = time
        moveToNewest(slot)
    }

    @discardableResult
    mutating func remove(_ key: String) -> Entry? {
        guard let slot = slots.removeValue(forKey: key) else { return nil }
        let node = nodes[slot]
        unlink(slot)
        nodes[slot].entry.key = ""
        nodes[slot].entry.fileName = nil
        free.append(slot)
        totalBytes -= node.entry.size
        return node.entry
    }

    private mutating func moveToNewest(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        nodes[slot].older = newest
        nodes[slot].newer = -1
        if newest >= 0 { nodes[newest].newer = slot }
        newest = slot
    }

    private mutating func unlink(_ slot: Int) {
        let node = nodes[slot]
        if node.newer >= 0 { nodes[node.newer].older = node.older } else { newest = node.older }
        if node.older >= 0 { nodes[node.older].newer = node.newer } else { oldestSlot = node.newer }
    }
}
