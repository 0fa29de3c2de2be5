/// Entries keyed by string under a chosen hash (`HashedKey`), for the memory backends that
/// model real string-keyed caches.
///
/// Separate chaining: each bucket heads a chain of entries. Keys with equal hashes share a
/// chain, and a lookup walks it comparing the hash and then the full string — so under
/// CFStringHash, long URLs that collide turn lookups into linear scans with a string
/// compare each, as NSCache's do. Entries also form a recency list (most recent at head)
/// for LRU orders.
///
/// Complexity: find/insert/remove O(1 + chain length); with distinct hashes chains average
/// under one entry (the table doubles when full); with n colliding keys, O(n).
struct StringKeyedEntries {
    struct Entry {
        var key: HashedKey
        var cost: Int
        var payload: Payload?
        /// Next entry in the same bucket chain; for a free slot, the next free slot.
        var chainNext: Int32
        var newer: Int32
        var older: Int32
        /// Insertion order, for deterministic tie-breaks.
        var sequence: UInt64
    }

    private(set) var entries: ContiguousArray<Entry> = []
    private var buckets: ContiguousArray<Int32> = ContiguousArray(repeating: -1, count: 16)
    private var freeHead: Int32 = -1
    private var nextSequence: UInt64 = 0
    private(set) var count = 0
    private(set) var totalCost = 0
    /// Most and least recently used (or inserted) entries.
    private(set) var newest: Int32 = -1
    private(set) var oldest: Int32 = -1

    @inline(__always)
    private func bucket(_ hash: UInt64) -> Int {
        // Fibonacci hashing spreads hashes whose low bits are poor (CFStringHash's are).
        Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> 32) & (buckets.count - 1)
    }

    func entry(_ slot: Int32) -> Entry { entries[Int(slot)] }

    @inline(__always)
    func find(_ key: HashedKey) -> Int32? {
        var slot = buckets[bucket(key.hash)]
        while slot >= 0 {
            let candidate = entries[Int(slot)]
            if candidate.key.hash == key.hash && candidate.key.text == key.text { return slot }
            slot = candidate.chainNext
        }
        return nil
    }

    /// Adds a new key (the caller has checked it is absent) as the newest entry.
    @discardableResult
    mutating func insert(_ key: HashedKey, cost: Int, payload: Payload?) -> Int32 {
        if count >= buckets.count { grow() }
        let home = bucket(key.hash)
        let entry = Entry(
            key: key, cost: cost, payload: payload, chainNext: buckets[home], newer: -1, older: newest,
            sequence: nextSequence)
        nextSequence += 1
        let slot: Int32
        if freeHead >= 0 {
            slot = freeHead
            freeHead = entries[Int(slot)].chainNext
            entries[Int(slot)] = entry
        } else {
            slot = Int32(entries.count)
            entries.append(entry)
        }
        buckets[home] = slot
        if newest >= 0 { entries[Int(newest)].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
        count += 1
        totalCost += cost
        return slot
    }

    /// Replaces a present entry's cost and payload, and makes it the newest.
    mutating func replace(_ slot: Int32, cost: Int, payload: Payload?) {
        totalCost += cost - entries[Int(slot)].cost
        entries[Int(slot)].cost = cost
        entries[Int(slot)].payload = payload
        touch(slot)
    }

    /// Makes the entry the most recently used.
    @inline(__always)
    mutating func touch(_ slot: Int32) {
        guard slot != newest else { return }
        unlinkRecency(slot)
        entries[Int(slot)].older = newest
        entries[Int(slot)].newer = -1
        if newest >= 0 { entries[Int(newest)].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    /// Removes the entry (releasing its payload) and returns its cost.
    @discardableResult
    mutating func remove(_ slot: Int32) -> Int {
        let home = bucket(entries[Int(slot)].key.hash)
        if buckets[home] == slot {
            buckets[home] = entries[Int(slot)].chainNext
        } else {
            var previous = buckets[home]
            while entries[Int(previous)].chainNext != slot { previous = entries[Int(previous)].chainNext }
            entries[Int(previous)].chainNext = entries[Int(slot)].chainNext
        }
        unlinkRecency(slot)
        let cost = entries[Int(slot)].cost
        entries[Int(slot)].payload = nil
        entries[Int(slot)].key.text = ""
        entries[Int(slot)].chainNext = freeHead
        freeHead = slot
        count -= 1
        totalCost -= cost
        return cost
    }

    /// Drops everything; returns the cost released.
    mutating func removeAll() -> Int {
        let released = totalCost
        self = StringKeyedEntries()
        return released
    }

    private mutating func unlinkRecency(_ slot: Int32) {
        let entry = entries[Int(slot)]
        if entry.newer >= 0 { entries[Int(entry.newer)].older = entry.older } else { newest = entry.older }
        if entry.older >= 0 { entries[Int(entry.older)].newer = entry.newer } else { oldest = entry.newer }
    }

    private mutating func grow() {
        buckets = ContiguousArray(repeating: -1, count: buckets.count * 2)
        var slot = oldest
        while slot >= 0 {
            let home = bucket(entries[Int(slot)].key.hash)
            entries[Int(slot)].chainNext = buckets[home]
            buckets[home] = slot
            slot = entries[Int(slot)].newer
        }
    }
}
