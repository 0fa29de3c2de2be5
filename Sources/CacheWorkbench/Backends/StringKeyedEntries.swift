import WorkbenchCore
import WorkbenchTraces
/// Entries keyed by string under a chosen hash (`HashedKey`), for the memory backends that
/// model real string-keyed caches.
///
/// Separate chaining: each bucket heads a chain of entries. Keys with equal hashes share a
/// chain, and a lookup walks it comparing the hash and then the full string — so under
/// CFStringHash, long URLs that collide turn lookups into linear scans with a string
/// compare each, as NSCache's do. Entries also form a recency list (most recent at head)
/// for LRU orders.
///
/// What a lookup or relink touches (hash, where the key's bytes are, chain and recency
/// links) sits together in one 32-byte record per slot; the key bytes are packed in a
/// `KeyArena`; cost, payload and sequence live in arrays of their own. With ~100k entries,
/// lookups and removals are cache misses more than work, so the number of cache lines
/// touched per operation is what this layout minimizes.
///
/// Complexity: find/insert/remove O(1 + chain length); with distinct hashes chains average
/// under one entry (the table doubles when full); with n colliding keys, O(n).
import CPrefetch

struct StringKeyedEntries {
    private struct Hot {
        var hash: UInt64
        var key: KeyArena.Span
        /// Next slot in the same bucket chain; for a free slot, the next free slot.
        var chainNext: Int32
        /// Previous slot in the bucket chain (-1 at the head), so a removal unlinks itself
        /// without walking the chain from the bucket.
        var chainPrevious: Int32
        var newer: Int32
        var older: Int32
    }

    private var hot: [Hot] = []
    private var keys = KeyArena()
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

    func key(_ slot: Int32) -> String { keys.string(hot[Int(slot)].key) }
    func sequence(_ slot: Int32) -> UInt64 { sequences[Int(slot)] }
    func older(_ slot: Int32) -> Int32 { hot[Int(slot)].older }

    @inline(__always)
    func find(_ key: HashedKey) -> Int32? {
        var slot = buckets[bucket(key.hash)]
        guard slot >= 0 else { return nil }
        return key.withUTF8 { text in
            while slot >= 0 {
                if hot[Int(slot)].hash == key.hash && keys.bytesEqual(hot[Int(slot)].key, text) { return slot }
                slot = hot[Int(slot)].chainNext
            }
            return nil
        }
    }

    /// Adds a new key (the caller has checked it is absent) as the newest entry.
    @discardableResult
    mutating func insert(_ key: HashedKey, cost: Int, payload: Payload?) throws(WorkbenchError) -> Int32 {
        if count >= buckets.count { grow() }
        let home = bucket(key.hash)
        let slot: Int32
        let head = buckets[home]
        let stored: Result<KeyArena.Span, WorkbenchError> = key.withUTF8 { bytes in Result { () throws(WorkbenchError) in try keys.store(bytes) } }
        let record = Hot(hash: key.hash, key: try stored.get(), chainNext: head, chainPrevious: -1, newer: -1, older: newest)
        if freeHead >= 0 {
            slot = freeHead
            let index = Int(slot)
            freeHead = hot[index].chainNext
            hot[index] = record
            costs[index] = cost
            payloads[index] = payload
            sequences[index] = nextSequence
        } else {
            slot = Int32(hot.count)
            hot.append(record)
            costs.append(cost)
            payloads.append(payload)
            sequences.append(nextSequence)
        }
        nextSequence += 1
        if head >= 0 { hot[Int(head)].chainPrevious = slot }
        buckets[home] = slot
        if newest >= 0 { hot[Int(newest)].newer = slot }
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
        hot[Int(slot)].older = newest
        hot[Int(slot)].newer = -1
        if newest >= 0 { hot[Int(newest)].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    /// Removes the entry (releasing its payload) and returns its cost.
    @discardableResult
    mutating func remove(_ slot: Int32) -> Int {
        let index = Int(slot)
        let next = hot[index].chainNext
        let previous = hot[index].chainPrevious
        if previous >= 0 { hot[Int(previous)].chainNext = next } else { buckets[bucket(hot[index].hash)] = next }
        if next >= 0 { hot[Int(next)].chainPrevious = previous }
        unlinkRecency(slot)
        let cost = costs[index]
        payloads[index] = nil
        keys.release(hot[index].key)
        hot[index].chainNext = freeHead
        freeHead = slot
        count -= 1
        totalCost -= cost
        return cost
    }

    /// Removes the least recently used entry and returns its cost.
    ///
    /// Removing in recency order walks a linked list through shuffled memory, one
    /// dependent cache miss per entry. Called repeatedly (a purge), each call starts
    /// loading the record two ahead and what removing the next victim writes (chain
    /// neighbours or bucket, cost and payload slot), so
    /// those misses overlap this removal's work instead of following it.
    @discardableResult
    mutating func removeOldest() -> Int {
        let victim = oldest
        let next = hot[Int(victim)].newer
        if next >= 0 {
            let upcoming = hot[Int(next)]
            prefetchRecord(upcoming.newer)
            prefetchRecord(upcoming.chainNext)
            prefetchRecord(upcoming.chainPrevious)
            if upcoming.chainPrevious < 0 {
                buckets.withUnsafeBufferPointer { cwb_prefetch_for_write($0.baseAddress! + bucket(upcoming.hash)) }
            }
            costs.withUnsafeBufferPointer { cwb_prefetch($0.baseAddress! + Int(next)) }
            payloads.withUnsafeBufferPointer { cwb_prefetch_for_write($0.baseAddress! + Int(next)) }
        }
        return remove(victim)
    }

    @inline(__always)
    private func prefetchRecord(_ slot: Int32) {
        guard slot >= 0 else { return }
        hot.withUnsafeBufferPointer { cwb_prefetch_for_write($0.baseAddress! + Int(slot)) }
    }

    /// Drops everything; returns the cost released.
    mutating func removeAll() -> Int {
        let released = totalCost
        self = StringKeyedEntries()
        return released
    }

    @inline(__always)
    private mutating func unlinkRecency(_ slot: Int32) {
        let newer = hot[Int(slot)].newer
        let older = hot[Int(slot)].older
        if newer >= 0 { hot[Int(newer)].older = older } else { newest = older }
        if older >= 0 { hot[Int(older)].newer = newer } else { oldest = newer }
    }

    private mutating func grow() {
        buckets = [Int32](repeating: -1, count: buckets.count * 2)
        var slot = oldest
        while slot >= 0 {
            let home = bucket(hot[Int(slot)].hash)
            let head = buckets[home]
            hot[Int(slot)].chainNext = head
            hot[Int(slot)].chainPrevious = -1
            if head >= 0 { hot[Int(head)].chainPrevious = slot }
            buckets[home] = slot
            slot = hot[Int(slot)].newer
        }
    }
}
