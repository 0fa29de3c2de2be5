import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The paper's CLOCK-Pro (Jiang, Chen and Zhang, "CLOCK-Pro: An Effective Improvement of the
/// CLOCK Replacement", USENIX ATC 2005): `clockpro[variant=paper]`. libCacheSim's `ClockPro.c`
/// never turns its clock (`ClockProLibCacheSim`), so the reference is Caffeine's simulator,
/// `policy/irr/ClockProPolicy.java` (ben-manes/caffeine ccef955), ported step by step; its
/// defaults are reference.conf's `clockpro` block.
///
/// One circular list holds hot pages, resident cold pages and non-resident cold pages (in
/// their test period), newest at the head. Three hands move from the oldest towards the
/// newest: HAND_cold replaces resident cold pages (a cold page referenced in its test period
/// is promoted, one referenced after it goes back to the head, an unreferenced one leaves,
/// staying as a non-resident page while its test lasts); HAND_hot demotes unreferenced hot
/// pages to make room for a promotion; HAND_test ends the test periods of cold pages. The
/// resident cold target adapts: +1 when a page in its test period is referenced, −1 when a
/// test ends unreferenced, within [max(2, 1%), 99%] of the capacity. Non-resident pages are
/// at most twice the capacity. As Caffeine's (and the authors' C code's `last_ref_pg`), a
/// request for the same key as the one just before counts as a hit and changes nothing.
///
/// CLOCK-Pro is page-based: Caffeine's is a key-only policy, so this variant counts objects
/// and needs capacities in objects (`--ignore-obj-size`). Not in Caffeine: a `remove` (a
/// DELETE under `--mode ops`) takes the page out of the clock and re-places the hands as
/// after a miss.
///
/// Complexity: hit O(1); a miss O(1) amortized but O(n) in the worst case (Caffeine's
/// words: "the worst case time of O(n) on eviction due to queues being scanned"), the hands
/// passing each page a bounded number of times per lap.
final class ClockProPaper: CacheBackend {
    static var needsKeyNames: Bool { false }
    static var holdsPayloads: Bool { false }

    enum Status: UInt8 {
        case hot, coldResident, coldResidentInTest, coldNonResident, outOfClock
    }

    package struct Page {
        var status = Status.outOfClock
        var marked = false
    }

    /// Pages in the clock (and the page being placed). A page's `newer` is Java's `prev` (the
    /// next page towards the head, the head's being the oldest), `older` Java's `next`.
    private var pages = PolicyNodes<Page>()
    private var listHead: Int32 = -1
    private var handHot: Int32 = -1
    private var handCold: Int32 = -1
    private var handTest: Int32 = -1
    /// The page of the request being placed: kept even if a hand takes it out of the clock.
    private var current: Int32 = -1

    let maxSize: Int
    let maxNonResidentSize: Int
    let minResidentColdSize: Int
    let maxResidentColdSize: Int
    private let percentMinCold: Double
    private let percentMaxCold: Double
    private let lowerBoundCold: Int
    private let nonResidentMultiplier: Double

    private var sizeHot = 0
    private var sizeResidentCold = 0
    private var sizeNonResidentCold = 0
    private var sizeInTest = 0
    private var sizeFree: Int
    private var coldTarget: Int
    private var lastKey: UInt64?
    private var evictions = 0

    init(capacity: Int, options: PolicyOptions, countsObjects: Bool) throws {
        guard countsObjects else {
            throw WorkbenchError("clockpro[variant=paper] counts pages (objects), as the paper's and Caffeine's CLOCK-Pro do: run it with --ignore-obj-size")
        }
        maxSize = capacity
        percentMinCold = try options.fraction("percent-min-resident-cold", default: 0.01)
        percentMaxCold = try options.fraction("percent-max-resident-cold", default: 0.99)
        lowerBoundCold = try options.integer("lower-bound-resident-cold", default: 2, range: 1...Int(Int32.max))
        nonResidentMultiplier = try options.number("non-resident-multiplier", default: 2, range: 0...1_000)
        // Java's `(int) (maxSize * x)`: truncation toward zero.
        maxNonResidentSize = Int(Double(capacity) * nonResidentMultiplier)
        minResidentColdSize = max(lowerBoundCold, Int(Double(capacity) * percentMinCold))
        maxResidentColdSize = min(capacity - minResidentColdSize, Int(Double(capacity) * percentMaxCold))
        guard minResidentColdSize >= 1, minResidentColdSize <= maxResidentColdSize else {
            throw WorkbenchError("clockpro[variant=paper] at \(capacity) objects: the resident cold pages must be between \(minResidentColdSize) and \(maxResidentColdSize), which is empty (Caffeine's check); choose a larger capacity")
        }
        coldTarget = minResidentColdSize
        sizeFree = capacity
    }

    deinit { pages.deallocate() }

    var settings: String {
        "variant=paper;percent-min-resident-cold=\(percentMinCold);percent-max-resident-cold=\(percentMaxCold);lower-bound-resident-cold=\(lowerBoundCold);non-resident-multiplier=\(nonResidentMultiplier)"
    }

    var facts: BackendFacts {
        BackendFacts(entries: maxSize - sizeFree, accountedBytes: maxSize - sizeFree, evictions: evictions)
    }

    // MARK: the replay (Caffeine's `record`, split at the miss)

    func get(_ request: Request) -> Bool {
        let key = request.id
        if key == lastKey, let slot = pages.find(key), isResident(slot) { return true }
        lastKey = key
        guard let slot = pages.find(key), isResident(slot) else { return false }
        pages[slot].meta.marked = true
        return true
    }

    /// `onMiss` for the page just missed (a new one, or a non-resident one in its test).
    func set(_ request: Request, cost: Int, payload: Payload?) throws {
        let key = request.id
        let slot = pages.find(key) ?? pages.add(key, cost: 1, meta: Page())
        if isResident(slot) {  // a store without a lookup (--mode ops) of a cached page
            pages[slot].meta.marked = true
            return
        }
        current = slot
        defer { current = -1 }
        if sizeFree > minResidentColdSize {
            moveToHead(slot, .hot)
        } else if sizeFree > 0 {
            moveToHead(slot, .coldResidentInTest)
        } else if pages[slot].meta.status == .coldNonResident {
            try evict()
            moveToHead(slot, try canPromote(slot) ? .hot : .coldResidentInTest)
        } else {
            try evict()
            moveToHead(slot, .coldResidentInTest)
        }
        try organizeHands()
    }

    func remove(_ request: Request) throws {
        guard let slot = pages.find(request.id) else { return }
        if isInClock(slot) { removeFromClock(slot) }
        pages.free(slot)
        if lastKey == request.id { lastKey = nil }
        try organizeHands()
    }

    /// A policy simulator models no app: a memory warning releases nothing.
    func didReceiveMemoryWarning() -> Int { 0 }

    // MARK: statuses

    @inline(__always) private func status(_ slot: Int32) -> Status { pages[slot].meta.status }
    @inline(__always) private func isInTest(_ slot: Int32) -> Bool { status(slot) == .coldResidentInTest || status(slot) == .coldNonResident }
    @inline(__always) private func isResidentCold(_ slot: Int32) -> Bool { status(slot) == .coldResident || status(slot) == .coldResidentInTest }
    @inline(__always) private func isResident(_ slot: Int32) -> Bool { isResidentCold(slot) || status(slot) == .hot }
    @inline(__always) private func isCold(_ slot: Int32) -> Bool { isResidentCold(slot) || status(slot) == .coldNonResident }
    @inline(__always) private func isInClock(_ slot: Int32) -> Bool { status(slot) != .outOfClock }

    /// `Node.setStatus`: moves the page between the counts.
    private func setStatus(_ slot: Int32, _ new: Status) {
        func count(_ slot: Int32, _ by: Int) {
            if isResident(slot) { sizeFree -= by }
            if isInTest(slot) { sizeInTest += by }
            if isResidentCold(slot) { sizeResidentCold += by }
            if status(slot) == .coldNonResident { sizeNonResidentCold += by }
            if status(slot) == .hot { sizeHot += by }
        }
        count(slot, -1)
        pages[slot].meta.status = new
        count(slot, +1)
    }

    // MARK: the circular list

    /// `Node.moveToHead`: out of the clock if in it, then the list's new head.
    private func moveToHead(_ slot: Int32, _ new: Status) {
        if isInClock(slot) { removeFromClock(slot) }
        if listHead < 0 {
            pages[slot].older = slot
            pages[slot].newer = slot
        } else {
            let tail = pages[listHead].newer
            pages[slot].older = listHead
            pages[slot].newer = tail
            pages[tail].older = slot
            pages[listHead].newer = slot
        }
        setStatus(slot, new)
        listHead = slot
    }

    /// `Node.removeFromClock`: hands on the page move one step towards the head.
    private func removeFromClock(_ slot: Int32) {
        if slot == listHead { listHead = pages[slot].older }
        if slot == handCold { handCold = pages[slot].newer }
        if slot == handHot { handHot = pages[slot].newer }
        if slot == handTest { handTest = pages[slot].newer }
        let (newer, older) = (pages[slot].newer, pages[slot].older)
        pages[newer].older = older
        pages[older].newer = newer
        pages[slot].newer = slot
        pages[slot].older = slot
        setStatus(slot, .outOfClock)
        pages[slot].meta.marked = false
    }

    /// A page out of the clock is forgotten (Caffeine keeps it in its map, out of the clock
    /// and unmarked, exactly as a new page), unless it is the page being placed.
    private func forget(_ slot: Int32) {
        if slot != current { pages.free(slot) }
    }

    // MARK: the hands

    private func evict() throws {
        evictions += 1
        while sizeFree == 0 { try runHandCold() }
    }

    private func canPromote(_ candidate: Int32) throws -> Bool {
        guard isInClock(candidate), isInTest(candidate) else { return false }
        coldTargetAdjust(+1)
        pages[candidate].meta.marked = false
        while sizeHot >= maxSize - coldTarget {
            guard isInTest(candidate), try runHandHot(candidate) else { return false }
        }
        return true
    }

    private func runHandCold() throws {
        guard handCold >= 0, isResidentCold(handCold) else {
            throw WorkbenchError("clockpro[variant=paper]: HAND_cold found no resident cold page to replace (Caffeine's ClockProPolicy stops on the same check)")
        }
        if pages[handCold].meta.marked {
            if isInTest(handCold) {
                let promote = try canPromote(handCold)
                moveToHead(handCold, promote ? .hot : .coldResidentInTest)
            } else {
                moveToHead(handCold, .coldResidentInTest)
            }
        } else {
            if isInTest(handCold) {
                setStatus(handCold, .coldNonResident)
                handCold = pages[handCold].newer
            } else {
                let gone = handCold
                removeFromClock(gone)
                forget(gone)
            }
            while sizeNonResidentCold > maxNonResidentSize { try runHandTest() }
        }
        try nextHandCold()
    }

    /// Demotes a hot page between HAND_hot and `trigger`; whether one was demoted.
    private func runHandHot(_ trigger: Int32) throws -> Bool {
        guard handHot >= 0 else { return false }
        var demoted = false
        while handHot != trigger {
            if status(handHot) == .hot {
                if pages[handHot].meta.marked {
                    moveToHead(handHot, .hot)
                } else {
                    moveToHead(handHot, .coldResident)
                    demoted = true
                    break
                }
            } else {
                handHot = pages[handHot].newer
                terminateTestPeriod(pages[handHot].older)
            }
        }
        try nextHandHot()
        return demoted
    }

    private func runHandTest() throws {
        guard handTest >= 0 else {
            throw WorkbenchError("clockpro[variant=paper]: HAND_test found no page in its test period (Caffeine's ClockProPolicy stops on the same check)")
        }
        terminateTestPeriod(handTest)
        try nextHandTest()
    }

    private func terminateTestPeriod(_ slot: Int32) {
        guard isInTest(slot) else { return }
        var gone = false
        if isResidentCold(slot) {
            setStatus(slot, .coldResident)
        } else {
            removeFromClock(slot)
            gone = true
        }
        coldTargetAdjust(pages[slot].meta.marked ? +1 : -1)
        if gone { forget(slot) }
    }

    /// HAND_cold to the resident cold page with the largest recency.
    private func nextHandCold() throws {
        guard sizeResidentCold > 0 else { handCold = -1; return }
        if handCold < 0 { handCold = pages[listHead].newer }
        while !isResidentCold(handCold) { handCold = pages[handCold].newer }
    }

    /// HAND_hot to the hot page with the largest recency, ending the tests it passes.
    private func nextHandHot() throws {
        guard sizeHot > 0 else { handHot = -1; return }
        if handHot < 0 { handHot = pages[listHead].newer }
        while isCold(handHot) {
            handHot = pages[handHot].newer
            terminateTestPeriod(pages[handHot].older)
        }
        try nextHandTest()
    }

    /// HAND_test to the page in its test period with the largest recency.
    private func nextHandTest() throws {
        guard sizeInTest > 0 else { handTest = -1; return }
        if handTest < 0 { handTest = handHot < 0 ? pages[listHead].newer : handHot }
        while !isInTest(handTest) { handTest = pages[handTest].newer }
    }

    private func organizeHands() throws {
        try nextHandCold()
        try nextHandHot()
        try nextHandTest()
    }

    private func coldTargetAdjust(_ n: Int) {
        coldTarget = min(max(coldTarget + n, minResidentColdSize), maxResidentColdSize)
    }
}
