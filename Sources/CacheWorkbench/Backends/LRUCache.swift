/// Least-recently-used eviction under a byte capacity, policy only (no payloads, no
/// per-object overhead: DESIGN.md rule 5, as libCacheSim's LRU).
///
/// A hash map from key id to a slot in a node array; the slots form a doubly linked list
/// from most (head) to least (tail) recently used, linked by index rather than by
/// pointer so nodes stay in one contiguous allocation and need no reference counting.
///
/// Complexity: `get` O(1); `set` O(1) amortized plus O(1) per eviction; `remove` O(1).
/// Memory: one dictionary entry and one 24-byte node per cached object.
public final class LRUCache: CacheBackend {
    public static let needsKeyNames = false

    struct Node {
        var key: UInt64
        var cost: Int
        var previous: Int32
        var next: Int32
    }

    public let capacity: Int
    private var slotOf: [UInt64: Int32] = [:]
    private var nodes: [Node] = []
    private var freeSlots: [Int32] = []
    private var head: Int32 = -1
    private var tail: Int32 = -1
    public private(set) var usedBytes = 0
    public private(set) var evictions = 0

    public init(capacity: Int) {
        precondition(capacity > 0, "capacity must be positive")
        self.capacity = capacity
    }

    public var facts: BackendFacts {
        BackendFacts(entries: slotOf.count, accountedBytes: usedBytes, evictions: evictions)
    }

    /// Keys from most to least recently used (for tests and debugging; O(n)).
    public var keysByRecency: [UInt64] {
        var keys: [UInt64] = []
        var slot = head
        while slot >= 0 {
            keys.append(nodes[Int(slot)].key)
            slot = nodes[Int(slot)].next
        }
        return keys
    }

    @inline(__always)
    public func get(_ request: Request) -> Bool {
        guard let slot = slotOf[request.id] else { return false }
        moveToFront(slot)
        return true
    }

    public func set(_ request: Request, cost: Int) {
        if let slot = slotOf[request.id] {
            usedBytes += cost - nodes[Int(slot)].cost
            nodes[Int(slot)].cost = cost
            moveToFront(slot)
            evictUntilFits(extra: 0)
            return
        }
        guard cost <= capacity else { return }
        evictUntilFits(extra: cost)
        let node = Node(key: request.id, cost: cost, previous: -1, next: head)
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            nodes[Int(slot)] = node
        } else {
            slot = Int32(nodes.count)
            nodes.append(node)
        }
        if head >= 0 { nodes[Int(head)].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
        slotOf[request.id] = slot
        usedBytes += cost
    }

    public func remove(_ request: Request) {
        guard let slot = slotOf.removeValue(forKey: request.id) else { return }
        release(slot)
    }

    /// Evicts from the tail until `extra` more bytes fit.
    @inline(__always)
    private func evictUntilFits(extra: Int) {
        while usedBytes + extra > capacity && tail >= 0 {
            let victim = tail
            slotOf.removeValue(forKey: nodes[Int(victim)].key)
            release(victim)
            evictions += 1
        }
    }

    private func release(_ slot: Int32) {
        unlink(slot)
        usedBytes -= nodes[Int(slot)].cost
        freeSlots.append(slot)
    }

    @inline(__always)
    private func moveToFront(_ slot: Int32) {
        guard slot != head else { return }
        unlink(slot)
        nodes[Int(slot)].previous = -1
        nodes[Int(slot)].next = head
        if head >= 0 { nodes[Int(head)].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    @inline(__always)
    private func unlink(_ slot: Int32) {
        let node = nodes[Int(slot)]
        if node.previous >= 0 { nodes[Int(node.previous)].next = node.next } else { head = node.next }
        if node.next >= 0 { nodes[Int(node.next)].previous = node.previous } else { tail = node.previous }
    }
}
