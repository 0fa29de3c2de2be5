/// Least-recently-used eviction under a byte capacity, policy only (no payloads, no
/// per-object overhead: DESIGN.md rule 5, as libCacheSim's LRU).
///
/// An `IdIndex` from key id to a slot in a node array; the slots form a doubly linked
/// list from most (head) to least (tail) recently used, linked by index rather than by
/// pointer so nodes sit in one allocation and need no reference counting. All state is
/// one struct behind a `let` pointer the class owns: a `var` property would cost a
/// dynamic exclusivity check (begin/end access, a thread-local lookup) on every call,
/// measured at 13% of replay time.
///
/// Complexity: `get` O(1); `set` O(1) amortized plus O(1) per eviction; `remove` O(1).
/// Memory: a 24-byte node and 2–4 16-byte index buckets per cached object.
public final class LRUCache: CacheBackend {
    public static let needsKeyNames = false
    public static let holdsPayloads = false

    private let list: UnsafeMutablePointer<LRUList>

    public init(capacity: Int) {
        precondition(capacity > 0, "capacity must be positive")
        list = .allocate(capacity: 1)
        list.initialize(to: LRUList(capacity: capacity))
    }

    deinit {
        list.pointee.deallocate()
        list.deinitialize(count: 1)
        list.deallocate()
    }

    public var capacity: Int { list.pointee.capacity }
    public var settings: String { "" }
    public var usedBytes: Int { list.pointee.usedBytes }

    public var facts: BackendFacts {
        BackendFacts(entries: list.pointee.count, accountedBytes: list.pointee.usedBytes, evictions: list.pointee.evictions)
    }

    /// Keys from most to least recently used (for tests and debugging; O(n)).
    public var keysByRecency: [UInt64] { list.pointee.keysByRecency }

    @inline(__always)
    public func get(_ request: Request) -> Bool { list.pointee.touch(request.id) }

    @inline(__always)
    public func set(_ request: Request, cost: Int, payload: Payload? = nil) {
        list.pointee.insert(request.id, cost: cost)
    }

    public func remove(_ request: Request) { list.pointee.remove(request.id) }

    /// A policy simulator models no app and has no memory-pressure response.
    public func didReceiveMemoryWarning() -> Int { 0 }
}

/// The LRU's state and operations, as a value.
struct LRUList {
    struct Node {
        var key: UInt64
        var cost: Int
        var previous: Int32
        /// Next towards the tail; for a free slot, the next free slot.
        var next: Int32
    }

    let capacity: Int
    private var index = IdIndex()
    private var nodes: UnsafeMutablePointer<Node>
    private var allocatedNodes = 16
    private var usedNodes = 0
    private var freeHead: Int32 = -1
    private var head: Int32 = -1
    private var tail: Int32 = -1
    private(set) var usedBytes = 0
    private(set) var evictions = 0

    init(capacity: Int) {
        self.capacity = capacity
        nodes = .allocate(capacity: allocatedNodes)
    }

    func deallocate() {
        index.deallocate()
        nodes.deallocate()
    }

    var count: Int { index.count }

    var keysByRecency: [UInt64] {
        var keys: [UInt64] = []
        var slot = head
        while slot >= 0 {
            keys.append(nodes[Int(slot)].key)
            slot = nodes[Int(slot)].next
        }
        return keys
    }

    /// Moves the key to the front; false when absent.
    @inline(__always)
    mutating func touch(_ key: UInt64) -> Bool {
        guard let slot = index.find(key) else { return false }
        moveToFront(slot)
        return true
    }

    @inline(__always)
    mutating func insert(_ key: UInt64, cost: Int) {
        if let slot = index.find(key) {
            usedBytes += cost - nodes[Int(slot)].cost
            nodes[Int(slot)].cost = cost
            moveToFront(slot)
            evictUntilFits(extra: 0)
            return
        }
        guard cost <= capacity else { return }
        evictUntilFits(extra: cost)
        let slot = takeFreeSlot()
        nodes[Int(slot)] = Node(key: key, cost: cost, previous: -1, next: head)
        if head >= 0 { nodes[Int(head)].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
        index.insert(key, slot)
        usedBytes += cost
    }

    mutating func remove(_ key: UInt64) {
        guard let slot = index.remove(key) else { return }
        release(slot)
    }

    /// Evicts from the tail until `extra` more bytes fit.
    @inline(__always)
    private mutating func evictUntilFits(extra: Int) {
        while usedBytes + extra > capacity && tail >= 0 {
            let victim = tail
            index.remove(nodes[Int(victim)].key)
            release(victim)
            evictions += 1
        }
    }

    @inline(__always)
    private mutating func release(_ slot: Int32) {
        unlink(slot)
        usedBytes -= nodes[Int(slot)].cost
        nodes[Int(slot)].next = freeHead
        freeHead = slot
    }

    @inline(__always)
    private mutating func takeFreeSlot() -> Int32 {
        if freeHead >= 0 {
            let slot = freeHead
            freeHead = nodes[Int(slot)].next
            return slot
        }
        if usedNodes == allocatedNodes {
            let grown = UnsafeMutablePointer<Node>.allocate(capacity: allocatedNodes * 2)
            grown.moveInitialize(from: nodes, count: usedNodes)
            nodes.deallocate()
            nodes = grown
            allocatedNodes *= 2
        }
        usedNodes += 1
        return Int32(usedNodes - 1)
    }

    @inline(__always)
    private mutating func moveToFront(_ slot: Int32) {
        guard slot != head else { return }
        unlink(slot)
        nodes[Int(slot)].previous = -1
        nodes[Int(slot)].next = head
        if head >= 0 { nodes[Int(head)].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    @inline(__always)
    private mutating func unlink(_ slot: Int32) {
        let node = nodes[Int(slot)]
        if node.previous >= 0 { nodes[Int(node.previous)].next = node.next } else { head = node.next }
        if node.next >= 0 { nodes[Int(node.next)].previous = node.previous } else { tail = node.previous }
    }
}
