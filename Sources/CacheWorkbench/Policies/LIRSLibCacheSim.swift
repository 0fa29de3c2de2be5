import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// LIRS as libCacheSim's `LIRS.c` runs it (the version its PyPI package 0.3.5 builds,
/// 1a1a11a/libCacheSim dbf8423), transliterated step for step: the default `lirs`.
/// `lirs[variant=paper]` is the paper's (`LIRSPaperPolicy`).
///
/// libCacheSim keeps three LRU lists with their own indexes — the stack S (LIR objects,
/// resident HIR objects, non-resident HIR ids), the queue Q (resident HIR objects) and NH
/// (the non-resident ids, oldest first) — and its own byte counts; a request is a hit when
/// S holds the id as LIR or resident, or Q holds it. Where it differs from the paper, kept
/// here because its numbers come from it:
/// - a look-up moves the id to the top of S *and* to the top of Q (Q is an LRU, not FIFO);
/// - a hit on a resident HIR that is in Q but not in S first demotes bottom LIR objects
///   while the LIR set is full, as if it were becoming LIR, then stays HIR with a new S entry;
/// - a new object becomes LIR while the LIR set has room, else a resident HIR; a miss on a
///   non-resident id demotes LIR objects until it fits the LIR set, then becomes LIR;
/// - demoting the bottom of S takes whatever is there, and a demoted object larger than Q's
///   share leaves the cache; S is bounded by twice the capacity (oldest non-resident ids go).
/// Objects larger than Q's share (1% of the capacity, at least 1 byte) are not stored.
///
/// Where libCacheSim would fail (an empty S or Q asked for a victim, an eviction that frees
/// nothing, an id inserted twice), this keeps going by the rule in `fallbackRule` and counts
/// it in `facts.fallbacks`. Where it reads freed memory — `hit_RD_HIRinQ`'s loop reading the
/// size of the object `evictHIR` just freed — this reads what glibc's allocator leaves there
/// (`StaleObject`), and says how often under the table.
///
/// Complexity: a hit O(1) amortized (each S entry is pruned once), plus O(1) per object
/// demoted; a miss the same; every list operation O(1) expected (`IdIndex`).
final class LIRSLibCacheSim: CacheBackend {
    static var needsKeyNames: Bool { false }
    static var holdsPayloads: Bool { false }

    struct Flags {
        var isLIR: Bool
        var inCache: Bool
    }

    /// The three lists, as the chunks libCacheSim's objects live in are told apart.
    enum List { case stack, queue, nonresident }

    /// What `hit_RD_HIRinQ` reads as `cache_obj_q->obj_size` on each turn of its loop
    /// (LIRS.c:612): once `evictHIR` has freed that object, the pointer is stale, and glibc
    /// hands a freed chunk to the next allocation of the same size, the last freed first
    /// (tcache), so the loop reads the size of whichever object libCacheSim stores in that
    /// chunk next (typically the LIR object just demoted into Q), or the freed object's own
    /// size while the chunk waits (malloc's bookkeeping overwrites only its first 16 bytes,
    /// not `obj_size`). All O(1).
    struct StaleObject {
        private(set) var size: Int
        private var holder: (list: List, key: UInt64)?
        /// Chunks freed after this one and not yet handed out: they go first.
        private var freedAfter = 0

        init(size: Int, list: List, key: UInt64) {
            self.size = size
            holder = (list, key)
        }

        /// libCacheSim freed the object `key` of `list`.
        mutating func freed(_ list: List, _ key: UInt64) {
            if let holder {
                if holder.list == list && holder.key == key {
                    self.holder = nil
                    freedAfter = 0
                }
            } else {
                freedAfter += 1
            }
        }

        /// libCacheSim allocated an object for `key` in `list`, of `size` bytes.
        mutating func allocated(_ list: List, _ key: UInt64, size: Int) {
            guard holder == nil else { return }
            if freedAfter > 0 {
                freedAfter -= 1
            } else {
                holder = (list, key)
                self.size = size
            }
        }
    }

    /// Set while `hit_RD_HIRinQ`'s loop runs.
    private var stale: StaleObject?
    /// Turns of that loop that read another object's size than the one hit (counted, and
    /// said: a freed pointer in libCacheSim that the replay follows).
    private var staleReads = 0

    private var stack = PolicyNodes<Flags>()
    private var stackList = PolicyNodes<Flags>.Queue()
    private var queue = PolicyNodes<Flags>()
    private var queueList = PolicyNodes<Flags>.Queue()
    private var nonresidentIds = PolicyNodes<Flags>()
    private var nonresidentList = PolicyNodes<Flags>.Queue()
    let capacity: Int
    let hirsLimit: Int
    let lirsLimit: Int
    private let hirsRatio: Double
    // libCacheSim's `uint64_t` counts: arithmetic wraps as there.
    private var hirsCount: UInt64 = 0
    private var lirsCount: UInt64 = 0
    private var nonresidentBytes: UInt64 = 0
    /// `cache->occupied_byte` and `cache->n_obj`.
    private var occupied = 0
    private var objects = 0
    private var evictions = 0
    private var fallbacks = 0

    init(capacity: Int, options: PolicyOptions) throws {
        self.capacity = capacity
        hirsRatio = try options.fraction("hirs-ratio", default: 0.01)
        hirsLimit = max(1, Int(hirsRatio * Double(capacity)))
        lirsLimit = capacity - hirsLimit
    }

    deinit {
        stack.deallocate()
        queue.deallocate()
        nonresidentIds.deallocate()
    }

    var facts: BackendFacts {
        BackendFacts(entries: objects, accountedBytes: occupied, evictions: evictions, fallbacks: fallbacks,
                     fallbackRule: fallbacks > 0 ? Self.fallbackRule : nil)
    }

    var details: BackendDetails {
        var details = BackendDetails()
        details.remark(staleReads, "loop turn(s) in libCacheSim's hit_RD_HIRinQ read the size of another object than the one hit (it reads a freed pointer, LIRS.c:612, and glibc had given that memory to the next object stored); the replay reads as libCacheSim does")
        return details
    }

    static let fallbackRule = "where libCacheSim's LIRS.c would crash or loop (no S or Q victim, an eviction that frees nothing, an id inserted twice), the step is skipped"

    var settings: String { "variant=libcachesim;hirs-ratio=\(hirsRatio)" }

    // MARK: the three LRU lists

    private static func push(_ key: UInt64, _ cost: Int, _ flags: Flags, _ nodes: inout PolicyNodes<Flags>,
                             _ list: inout PolicyNodes<Flags>.Queue) -> Bool {
        guard nodes.find(key) == nil else { return false }
        let slot = nodes.add(key, cost: cost, meta: flags)
        nodes.pushHead(slot, &list)
        return true
    }

    private static func drop(_ slot: Int32, _ nodes: inout PolicyNodes<Flags>, _ list: inout PolicyNodes<Flags>.Queue) {
        nodes.unlink(slot, &list)
        nodes.free(slot)
    }

    private static func remove(_ key: UInt64, _ nodes: inout PolicyNodes<Flags>, _ list: inout PolicyNodes<Flags>.Queue) -> Bool {
        guard let slot = nodes.find(key) else { return false }
        drop(slot, &nodes, &list)
        return true
    }

    // MARK: the replay

    func get(_ request: Request) -> Bool {
        limitStack()  // LIRS_get's, after the previous request (nothing reads S in between)
        let key = request.id
        let inStack = stack.find(key)
        if let inStack { stack.moveToHead(inStack, &stackList) }
        let inQueue = queue.find(key)
        if let inQueue { queue.moveToHead(inQueue, &queueList) }
        if let inStack {
            if stack[inStack].meta.isLIR {
                prune()
                return true
            }
            guard stack[inStack].meta.inCache else { return false }
            hitResidentHIRInStack(inStack, inQueue)
            return true
        }
        if let inQueue, queue[inQueue].meta.inCache {
            hitResidentHIRInQueue(inQueue)
            return true
        }
        return false
    }

    func set(_ request: Request, cost: Int, payload: Payload?) {
        let key = request.id
        guard canInsert(key, cost) else { return }
        while occupied + cost > capacity {
            let before = (occupied, stack.count, queue.count)
            evict(key, cost)
            if (occupied, stack.count, queue.count) == before {
                fallbacks += 1
                break
            }
        }
        insert(key, cost)
    }

    /// `LIRS_can_insert`, which evicts as it decides.
    private func canInsert(_ key: UInt64, _ size: Int) -> Bool {
        guard size <= capacity else { return false }
        let inStack = stack.find(key)
        let inQueue = queue.find(key)
        if let inStack, !stack[inStack].meta.isLIR, !stack[inStack].meta.inCache {
            let ghostSize = UInt64(stack[inStack].cost)
            while lirsCount &+ ghostSize > UInt64(lirsLimit) {
                guard evictLIR() else { break }
            }
            if Self.remove(key, &nonresidentIds, &nonresidentList) { nonresidentBytes &-= ghostSize }
            return true
        }
        guard inStack == nil, inQueue == nil else {
            fallbacks += 1  // libCacheSim aborts here
            return false
        }
        if size > lirsLimit || size > hirsLimit { return false }
        let grown = UInt64(size)
        if lirsCount &+ grown > UInt64(lirsLimit) && hirsCount &+ grown > UInt64(hirsLimit) {
            while hirsCount &+ grown > UInt64(hirsLimit) {
                guard evictHIR() else { break }
            }
        }
        return true
    }

    /// `LIRS_evict`.
    private func evict(_ key: UInt64, _ size: Int) {
        let inStack = stack.find(key)
        let inQueue = queue.find(key)
        if let inStack, !stack[inStack].meta.isLIR, !stack[inStack].meta.inCache {
            while hirsCount >= UInt64(hirsLimit) {
                guard evictHIR() else { break }
            }
            evictLIR()
        }
        if inStack == nil, let inQueue, !queue[inQueue].meta.inCache {
            while hirsCount >= UInt64(hirsLimit) {
                guard evictHIR() else { break }
            }
        }
        if inStack == nil, inQueue == nil {
            let grown = UInt64(size)
            if lirsCount &+ grown > UInt64(lirsLimit) && hirsCount &+ grown > UInt64(hirsLimit) { evictHIR() }
        }
    }

    /// `LIRS_insert`.
    private func insert(_ key: UInt64, _ size: Int) {
        let inStack = stack.find(key)
        let inQueue = queue.find(key)
        if let inStack, !stack[inStack].meta.isLIR, !stack[inStack].meta.inCache {
            stack[inStack].meta = Flags(isLIR: true, inCache: true)
            lirsCount &+= UInt64(stack[inStack].cost)
            occupied += stack[inStack].cost
            objects += 1
        }
        if inStack == nil, let inQueue, !queue[inQueue].meta.inCache {
            fallbacks += 1  // a non-resident id in Q: never made by libCacheSim
        }
        guard inStack == nil, inQueue == nil else { return }
        let grown = UInt64(size)
        if lirsCount &+ grown <= UInt64(lirsLimit) {
            if !Self.push(key, size, Flags(isLIR: true, inCache: true), &stack, &stackList) { fallbacks += 1 }
            lirsCount &+= grown
        } else {
            // Q has room or not: libCacheSim inserts the resident HIR either way.
            if !Self.push(key, size, Flags(isLIR: false, inCache: true), &stack, &stackList) { fallbacks += 1 }
            if !Self.push(key, size, Flags(isLIR: false, inCache: true), &queue, &queueList) { fallbacks += 1 }
            hirsCount &+= grown
        }
        occupied += size
        objects += 1
    }

    /// `hit_RD_HIRinS`: a resident HIR object in S becomes LIR (leaving Q).
    private func hitResidentHIRInStack(_ entry: Int32, _ inQueue: Int32?) {
        let key = stack[entry].key
        if let inQueue {
            let size = queue[inQueue].cost
            hirsCount &-= UInt64(size)
            Self.drop(inQueue, &queue, &queueList)
            occupied -= size
            objects -= 1
        }
        let size = stack[entry].cost
        while lirsCount &+ UInt64(size) > UInt64(lirsLimit) {
            guard evictLIR() else { break }
        }
        guard let entry = stack.find(key) else {
            fallbacks += 1  // demoting took the object's own S entry (a freed pointer there)
            return
        }
        stack[entry].meta.isLIR = true
        lirsCount &+= UInt64(size)
        occupied += size
        objects += 1
    }

    /// `hit_RD_HIRinQ`: a resident HIR object not in S gets an S entry (still HIR), after
    /// LIR objects are demoted while the LIR set is full.
    private func hitResidentHIRInQueue(_ inQueue: Int32) {
        let key = queue[inQueue].key
        let size = queue[inQueue].cost
        stale = StaleObject(size: size, list: .queue, key: key)
        while lirsCount &+ UInt64(stale!.size) > UInt64(lirsLimit) {
            guard evictLIR() else { break }
            if stale!.size != size { staleReads += 1 }
        }
        stale = nil
        if let existing = stack.find(key) {
            fallbacks += 1
            stack[existing].meta = Flags(isLIR: false, inCache: true)
            stack.moveToHead(existing, &stackList)
        } else {
            _ = Self.push(key, size, Flags(isLIR: false, inCache: true), &stack, &stackList)
        }
    }

    /// `evictLIR`: the bottom of S leaves it; it becomes a resident HIR in Q if it fits Q's
    /// share (making room there), else it leaves the cache. Then S is pruned.
    @discardableResult
    private func evictLIR() -> Bool {
        let bottom = stackList.tail
        guard bottom >= 0 else {
            fallbacks += 1
            return false
        }
        let key = stack[bottom].key
        let size = stack[bottom].cost
        lirsCount &-= UInt64(size)
        Self.drop(bottom, &stack, &stackList)
        stale?.freed(.stack, key)
        occupied -= size
        objects -= 1
        if size <= hirsLimit {
            while hirsCount &+ UInt64(size) > UInt64(hirsLimit) {
                guard evictHIR() else { break }
            }
            if let existing = queue.find(key) {
                fallbacks += 1
                queue.moveToHead(existing, &queueList)
            } else {
                _ = Self.push(key, size, Flags(isLIR: false, inCache: true), &queue, &queueList)
                stale?.allocated(.queue, key, size: size)
            }
            hirsCount &+= UInt64(size)
            occupied += size
            objects += 1
        } else {
            evictions += 1
        }
        prune()
        return true
    }

    /// `evictHIR`: Q's LRU end leaves the cache; its S entry, if any, becomes non-resident.
    @discardableResult
    private func evictHIR() -> Bool {
        let victim = queueList.tail
        guard victim >= 0 else {
            fallbacks += 1
            return false
        }
        let key = queue[victim].key
        let size = queue[victim].cost
        hirsCount &-= UInt64(size)
        Self.drop(victim, &queue, &queueList)
        stale?.freed(.queue, key)
        if let entry = stack.find(key) {
            stack[entry].meta.inCache = false
            if Self.push(key, size, Flags(isLIR: false, inCache: false), &nonresidentIds, &nonresidentList) {
                stale?.allocated(.nonresident, key, size: size)
            } else {
                fallbacks += 1
            }
            nonresidentBytes &+= UInt64(stack[entry].cost)
        }
        occupied -= size
        objects -= 1
        evictions += 1
        return true
    }

    /// `LIRS_prune`: HIR entries leave the bottom of S until a LIR one is there (the top
    /// entry always stays).
    private func prune() {
        while stackList.tail >= 0, stackList.tail != stackList.head {
            let bottom = stackList.tail
            let flags = stack[bottom].meta
            if flags.isLIR { return }
            let key = stack[bottom].key
            if !flags.inCache, Self.remove(key, &nonresidentIds, &nonresidentList) {
                nonresidentBytes &-= UInt64(stack[bottom].cost)
                stale?.freed(.nonresident, key)
            }
            Self.drop(bottom, &stack, &stackList)
            stale?.freed(.stack, key)
        }
    }

    /// `limitStack`: S holds at most twice the capacity, dropping the oldest non-resident ids.
    private func limitStack() {
        while stack.usedBytes > 2 * capacity {
            let oldest = nonresidentList.tail
            guard oldest >= 0 else { return }
            nonresidentBytes &-= UInt64(nonresidentIds[oldest].cost)
            _ = Self.remove(nonresidentIds[oldest].key, &stack, &stackList)
            Self.drop(oldest, &nonresidentIds, &nonresidentList)
        }
    }

    /// `LIRS_remove`.
    func remove(_ request: Request) {
        let key = request.id
        let inStack = stack.find(key)
        let inQueue = queue.find(key)
        if let inStack {
            let size = stack[inStack].cost
            let flags = stack[inStack].meta
            Self.drop(inStack, &stack, &stackList)
            if flags.isLIR {
                lirsCount &-= UInt64(size)
                occupied -= size
                objects -= 1
                prune()
                return
            }
            if flags.inCache {
                hirsCount &-= UInt64(size)
                occupied -= size
                objects -= 1
            } else {
                nonresidentBytes &-= UInt64(size)
            }
            if let inQueue = queue.find(key) { Self.drop(inQueue, &queue, &queueList) }
        } else if let inQueue {
            let size = queue[inQueue].cost
            Self.drop(inQueue, &queue, &queueList)
            hirsCount &-= UInt64(size)
            occupied -= size
            objects -= 1
        }
    }

    /// A policy simulator models no app: a memory warning releases nothing.
    func didReceiveMemoryWarning() -> Int { 0 }
}
