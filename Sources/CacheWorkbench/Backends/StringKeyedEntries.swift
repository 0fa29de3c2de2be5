/// Entries keyed by string under a chosen hash (`HashedKey`), for the memory backends that
/// model real string-keyed caches.
///
/// Separate chaining: each bucket heads a chain of entries. Keys with equal hashes share a
/// chain, and a lookup walks it comparing the hash and then the full string — so under
/// CFStringHash, long URLs that collide turn lookups into linear scans with a string
/// compare each, as NSCache's do. Entries also form a recency list (most recent at head)
/// for LRU orders.
///
/// Fields live in parallel arrays indexed by slot, hot ones (hash, chain and list links)
/// apart from cold ones (key text, payload), so chain walks and relinks touch a few bytes
/// per entry instead of a whole record. With ~100k entries lookups and removals are cache
/// misses more than work: this layout took `nscache --key-hash full` get p50 from ~430 to
/// ~375 ns and a 40k-entry purge from 17.5 to 12.7 ms (each removal still frees a cold
/// key string).
///
/// Complexity: find/insert/remove O(1 + chain length); with distinct hashes chains average
/// under one entry (the table doubles when full); with n colliding keys, O(n).
struct StringKeyedEntries {
    private var hashes: [UInt64] = []
    /// Next slot in the same bucket chain; for a free slot, the next free slot.
    private var chainNext: [Int32] = []
    private var newerOf: [Int32] = []
    private var olderOf: [Int32] = []
    private var keys: [String] = []
    private var costs: [Int] = []
    private var payloads: [Payload?] = []
    /// Insertion order, for deterministic tie-breaks.
    private var sequences: [UInt64] = []
    private var buckets = [Int32](repeating: -1, count: 16)
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

    func key(_ slot: Int32) -> String { keys[Int(slot)] }
    func sequence(_ slot: Int32) -> UInt64 { sequences[Int(slot)] }
    func older(_ slot: Int32) -> Int32 { olderOf[Int(slot)] }

    @inline(__always)
    func find(_ key: HashedKey) -> Int32? {
        var slot = buckets[bucket(key.hash)]
        while slot >= 0 {
            if hashes[Int(slot)] == key.hash && keys[Int(slot)] == key.text { return slot }
            slot = chainNext[Int(slot)]
        }
        return nil
    }

    /// Adds a new key (the caller has checked it is absent) as the newest entry.
    @discardableResult
    mutating func insert(_ key: HashedKey, cost: Int, payload: Payload?) -> Int32 {
        if count >= buckets.count { grow() }
        let home = bucket(key.hash)
        let slot: Int32
        if freeHead >= 0 {
            slot = freeHead
            freeHead = chainNext[Int(slot)]
            let index = Int(slot)
            hashes[index] = key.hash
            chainNext[index] = buckets[home]
            newerOf[index] = -1
            olderOf[index] = newest
            keys[index] = key.text
            costs[index] = cost
            payloads[index] = payload
            sequences[index] = nextSequence
        } else {
            slot = Int32(hashes.count)
            hashes.append(key.hash)
            chainNext.append(buckets[home])
            newerOf.append(-1)
            olderOf.append(newest)
            keys.append(key.text)
            costs.append(cost)
            payloads.append(payload)
            sequences.append(nextSequence)
        }
        nextSequence += 1
        buckets[home] = slot
        if newest >= 0 { newerOf[Int(newest)] = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
        count += 1
        totalCost += cost
        return slot
    }

    /// Replaces a present entry's cost and payload, and makes it the newest.
    mutating func replace(_ slot: Int32, cost: Int, payload: Payload?) {
        totalCost += cost - costs[Int(slot)]
        costs[Int(slot)] = cost
        payloads[Int(slot)] = payload
        touch(slot)
    }

    /// Makes the entry the most recently used.
    @inline(__always)
    mutating func touch(_ slot: Int32) {
        guard slot != newest else { return }
        unlinkRecency(slot)
        olderOf[Int(slot)] = newest
        newerOf[Int(slot)] = -1
        if newest >= 0 { newerOf[Int(newest)] = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    /// Removes the entry (releasing its payload) and returns its cost.
    @discardableResult
    mutating func remove(_ slot: Int32) -> Int {
        let index = Int(slot)
        let home = bucket(hashes[index])
        if buckets[home] == slot {
            buckets[home] = chainNext[index]
        } else {
            var previous = Int(buckets[home])
            while chainNext[previous] != slot { previous = Int(chainNext[previous]) }
            chainNext[previous] = chainNext[index]
        }
        unlinkRecency(slot)
        let cost = costs[index]
        payloads[index] = nil
        keys[index] = ""
        chainNext[index] = freeHead
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

    @inline(__always)
    private mutating func unlinkRecency(_ slot: Int32) {
        let newer = newerOf[Int(slot)]
        let older = olderOf[Int(slot)]
        if newer >= 0 { olderOf[Int(newer)] = older } else { newest = older }
        if older >= 0 { newerOf[Int(older)] = newer } else { oldest = newer }
    }

    private mutating func grow() {
        buckets = [Int32](repeating: -1, count: buckets.count * 2)
        var slot = oldest
        while slot >= 0 {
            let home = bucket(hashes[Int(slot)])
            chainNext[Int(slot)] = buckets[home]
            buckets[home] = slot
            slot = newerOf[Int(slot)]
        }
    }
}
