import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import CPrefetch

/// LRU's whole miss-ratio curve in one pass (Mattson et al., "Evaluation techniques for
/// storage hierarchies", IBM Systems Journal 1970), with byte sizes: LRU with byte capacity C
/// holds the longest prefix of the recency stack whose sizes sum to at most C, so a request
/// hits iff its object's size plus the sizes of the distinct objects requested since its
/// last request is at most C. Those sums come from prefix-sum trees over request positions,
/// each object weighted by its size at its last request.
///
/// The too-large rule is kept exactly: an object larger than C never enters the cache nor
/// evicts anything, so it must not count in distances at C. Objects are put in *bands* by the
/// smallest curve capacity they fit; the distance at capacity i sums the bands up to i. At
/// and above the top band (that of the largest object so far) every object counts, so one
/// tree of all objects gives those capacities' distances in one query. Each band below the
/// top keeps what the capacities below the top need: a band of few large objects (the
/// largest capacity below the top is at most 32 of its smallest) a log of its objects in
/// request order, read back from the newest (a distance that can still hit there is at most
/// 33 of them), any other band a tree. Most requests need only a few bands: a band with
/// nothing after the request's last position adds nothing (read without touching it), and
/// once the distance passes the largest capacity below the top, no capacity below the top
/// can hit; a request last seen before the objects counted at every capacity from its band up
/// (each range of capacities counting the same bands) pass each range's largest reads no band
/// (bounds found again every 32 requests, or at the next read after something that could
/// lower them, `Engine.skipThrough`).
/// When every object fits the smallest capacity there is one tree. Equal to
/// separate `lru` runs at every capacity (tested), with one exception it reports: a replay
/// keeps an object's stored size on a hit, the curve uses each request's own size, so
/// requests that change their key's size (`sizeChanges`) may differ.
///
/// SHARDS (Waldspurger et al., FAST 2015) with libCacheSim's key hash and rules
/// (`KeySampling`; `mrcProfiler.cpp:98,181`): at a fixed rate R < 1 only keys whose hash is
/// at most 2⁶⁴ × R are followed; with a fixed sample size N (§4.3) the N keys with the
/// smallest hashes seen so far are, the largest leaving when a smaller one comes, and R is
/// then the largest kept hash over 2⁶⁴ (1 until N keys are seen). Each sampled request
/// weighs 1/R (R at that request), distances are scaled by 1/R, and the ratios are either
/// adjusted (SHARDS_adj, §4.3: the difference between the requests expected, N_trace, and
/// the weighted sampled ones is added as hits at distance 0 — libCacheSim's
/// `local_hit_cnt_vec[0] += n_req_ - sampled_cnt`) or plain (over the weighted sampled ones).
///
/// Complexity: O(log₈ d + log P) per request with one band (d ≤ n = positions kept: how many
/// positions back the object's previous request is, since a tree walk stops where the two
/// paths meet; P = capacities, searched from a bucket of the distance's leading bits, so
/// one or two steps for log-spaced ones); with B bands O(B (log n + log P)) at worst, for
/// requests whose distance stays below the top band's capacities through all bands (a log
/// band O(1) amortized: at most 33 live entries read, dead ones dropped once met), O(1) below
/// the top for a request the bounds skip (O(P + 64 + log₈ n) to find them: every 32
/// requests, and at the next read after a clear);
/// positions are renumbered when they run out (at most 4 a key), so memory is
/// O(distinct keys + P), a tree of O(n / 8) per tree band, a log of O(n) 4-byte entries per
/// log band.
public enum LRUMissRatioCurve {
    /// A band below the top keeps a log while the largest capacity below the top is at most
    /// this many of its smallest objects (`Engine.keepsLog`). (A reach of 256 with a window
    /// over each log's end, so that a request last seen before it reads nothing, was measured
    /// too: the lowest band of the 5M Zipf trace became a log, and the pass was slower.)
    static let logReach = 32

    public struct Point: Sendable, Equatable {
        public var capacity: Int
        public var hits = 0
        public var hitBytes: ByteTotal = 0
        /// Requests for objects larger than the capacity (misses that store nothing).
        public var tooLarge = 0
        /// Sampled: the hits and hit bytes each weighted by 1/R at their request.
        public var weightedHits = 0.0
        public var weightedHitBytes = 0.0
    }

    public struct Result: Sendable {
        public var points: [Point]
        /// Requests counted (sampled ones under SHARDS), and their bytes.
        public var requests = 0
        public var requestedBytes: ByteTotal = 0
        /// Non-zero-size requests read.
        public var traceRequests = 0
        public var droppedZeroSize = 0
        public var skippedRows = 0
        public var samplingRate = 1.0
        /// Counted requests whose size differs from their key's previous request.
        public var sizeChanges = 0
        /// Distinct keys counted: each one's first request is a compulsory miss.
        public var uniqueKeys = 0

        /// Bytes of all non-zero-size requests read (sampled or not).
        public var traceBytes: ByteTotal = 0
        /// Fixed-size SHARDS' N (nil at a fixed rate), the most keys its sample set held, and
        /// the rate at the end (the fixed rate otherwise).
        public var sampleSize: Int?
        public var largestSampleSet = 0
        public var finalRate = 1.0
        /// Whether the ratios are SHARDS_adj's (else plain sampled ratios).
        public var adjusted = true
        /// Sampled requests and bytes, each weighted by 1/R at its request (`sampled_cnt`).
        public var weightedRequests = 0.0
        public var weightedBytes = 0.0

        public var isSampled: Bool { samplingRate < 1 || sampleSize != nil }

        /// Misses over requests. Sampled: weighted misses over all requests of the trace
        /// (SHARDS_adj: the shortfall or excess of weighted sampled requests counted as hits
        /// at distance 0, which removes the bias of popular keys falling in or out of the
        /// sample, §4.3), or over the weighted sampled requests (plain); clamped to 0...1.
        public func objectMissRatio(_ point: Point) -> Double? {
            guard requests > 0 else { return nil }
            guard isSampled else { return Double(requests - point.hits) / Double(requests) }
            let misses = weightedRequests - point.weightedHits
            return min(1, max(0, misses / (adjusted ? Double(traceRequests) : weightedRequests)))
        }

        public func byteMissRatio(_ point: Point) -> Double? {
            guard requestedBytes > 0 else { return nil }
            guard isSampled else { return (requestedBytes - point.hitBytes).asDouble / requestedBytes.asDouble }
            let misses = weightedBytes - point.weightedHitBytes
            return min(1, max(0, misses / (adjusted ? traceBytes.asDouble : weightedBytes)))
        }
    }

    /// Whether the trees' Int sums hold every request of a trace summarized by `summary`:
    /// its unique keys × its largest size (1 each with `ignoreObjectSize`) at most `Int.max`.
    /// They wrap past it (a distance would read as small: a wrong curve, or a trap). O(1).
    public static func sumsFit(_ summary: TraceSummary, ignoreObjectSize: Bool) -> Bool {
        ignoreObjectSize || ByteTotal(summary.uniqueKeys) * ByteTotal(summary.largestSize) <= ByteTotal(Int.max)
    }

    /// The curve at `capacities` (any order, ≥ 1). The caller checks that the distinct
    /// keys' sizes sum within an Int (`sumsFit`: `MissRatioCurveRun` and a sweep's lru
    /// points do, from the trace's facts, or from the requests read so far while the read
    /// that feeds the curve gathers them).
    public static func compute(
        _ source: any RequestSource, capacities: [Int], ignoreObjectSize: Bool = false, samplingRate: Double = 1,
        sampleSize: Int? = nil, adjusted: Bool = true,
        expectedRequests: Int? = nil, expectedKeys: Int? = nil, progress: ((Double?) -> Void)? = nil
    ) throws -> Result {
        let pass = Pass(
            capacities: capacities, ignoreObjectSize: ignoreObjectSize, samplingRate: samplingRate, sampleSize: sampleSize,
            adjusted: adjusted, expectedRequests: expectedRequests ?? source.expectedCount, expectedKeys: expectedKeys)
        var sinceProgress = 0
        while let chunk = try source.nextChunk() {
            try chunk.withUnsafeBufferPointer { try pass.feed($0) }
            sinceProgress += chunk.count
            if sinceProgress >= 1 << 20, let progress {
                sinceProgress = 0
                progress(source.progress)
            }
        }
        return pass.finish(skippedRows: source.skippedRows)
    }

    /// One curve being computed, fed the trace's requests in order by whoever reads it
    /// (`compute`, or `CurveFanOut` beside other policies' curves). Not shared between threads.
    public final class Pass {
        private var engine: Engine
        private let ignoreObjectSize: Bool
        /// The position space per expected key: a renumbering every three keys' worth of
        /// requests at least, and trees of 4 positions a key however long the trace (a 100-point
        /// curve with bands on 5M requests of 498k keys: 556 MB peak, 1.25 GB before; 171 MB since
        /// band trees sum cells of 8 positions). Eight a key was measured too: no faster, 277 MB.
        static let positionsPerKey = 4
        /// The most keys a pass sizes its index and key list for before it reads (`init`).
        static let presizedKeysLimit = 1 << 27

        public init(
            capacities: [Int], ignoreObjectSize: Bool = false, samplingRate: Double = 1, sampleSize: Int? = nil, adjusted: Bool = true,
            expectedRequests: Int? = nil, expectedKeys: Int? = nil
        ) {
            // Sizing hints only (a trace's facts, or a plan's, trusted until the read checks
            // them): clamped, so that no count can overflow here or ask up front for more
            // than a trace of 2^27 keys and 2^40 requests would; past that the tables grow.
            let expectedKeys = expectedKeys.map { min(max($0, 0), Self.presizedKeysLimit) }
            let expectedRequests = expectedRequests.map { min(max($0, 0), 1 << 40) }
            engine = Engine(capacities: capacities.sorted(), samplingRate: samplingRate, sampleSize: sampleSize, expectedKeys: expectedKeys ?? 0)
            engine.result.adjusted = adjusted
            self.ignoreObjectSize = ignoreObjectSize
            // Positions for every (sampled) request expected, so that none need renumbering, but
            // at most `positionsPerKey` per key expected when that is less by over a quarter:
            // each tree is as long as the positions, and a trace of few keys renumbers rarely.
            // (Capped within a quarter, the 5M Zipf trace of 1.2M keys renumbered at request 4.9M:
            // 7% of the pass for its last 2%, its curves 12–15% slower.) Not at a fixed sample
            // size: its memory stays bounded, positions renumbered.
            if sampleSize == nil, let expected = expectedRequests {
                var wanted = Int(Double(expected) * min(1, samplingRate * 1.1)) + 1024
                if let keys = expectedKeys {
                    let (cap, overflow) = keys.multipliedReportingOverflow(by: Self.positionsPerKey)
                    if !overflow, wanted - cap > cap / 4 { wanted = cap }
                }
                engine.positions = max(engine.positions, wanted)
            }
        }

        deinit { engine.deallocate() }

        /// For tests: the bands below the top keeping a log and a tree now, how often a log
        /// dropped dead entries and became a tree, and the entries in all logs.
        var bandStructures: (logs: Int, trees: Int, compactions: Int, logsMadeTrees: Int) {
            (engine.activeBands.filter { engine.logs[$0].exists }.count, engine.activeBands.filter { engine.trees[$0] != nil }.count,
             engine.compactions, engine.logsMadeTrees)
        }
        var logEntries: Int { engine.activeBands.reduce(0) { $0 + engine.logs[$1].count } }
        /// For tests: the requests below the top whose bands were read (not skipped by
        /// `Engine.skipThrough`).
        var belowTopReads: Int { engine.belowTopReads }
        /// For tests: how often positions ran out and were renumbered.
        var renumberings: Int { engine.renumberings }

        /// Counts `requests`, the trace's next ones. O(n (log n + log P)) with one band.
        public func feed(_ requests: UnsafeBufferPointer<Request>) throws {
            // One mutating call on the stored engine: the loop runs on it in place. (Calling the
            // engine's methods from here, request by request, copied the whole struct for each
            // call, retaining and releasing its arrays: a 100-point curve of 5M requests took
            // 2.2 s that way, against 1.2 s.)
            try engine.feed(requests, ignoreObjectSize: ignoreObjectSize)
        }

        /// `feed` for key records (a fanned-out sweep's blocks of a binary trace).
        package func feedKeys(_ records: UnsafeBufferPointer<KeyRecord>) throws {
            try engine.feed(records, ignoreObjectSize: ignoreObjectSize)
        }

        /// The curve after the last request (`skippedRows`: the reader's).
        public func finish(skippedRows: Int) -> Result {
            engine.result.skippedRows = skippedRows
            return engine.finish()
        }
    }

    /// The key records, on huge pages when large (`HugePages`: every request reads one at
    /// random); a struct the engine frees, as its index. Append amortized O(1).
    fileprivate struct KeyRecords: Sequence {
        private var base: UnsafeMutablePointer<Engine.Key>? = nil
        private var memory: HugePages.Allocation? = nil
        private var capacity = 0
        private(set) var count = 0

        var indices: Range<Int> { 0..<count }

        subscript(slot: Int) -> Engine.Key {
            @inline(__always) get { base![slot] }
            @inline(__always) set { base![slot] = newValue }
        }

        @inline(__always) func address(of slot: Int) -> UnsafeMutablePointer<Engine.Key> { base! + slot }

        mutating func reserve(_ wanted: Int) {
            guard wanted > capacity else { return }
            let grownMemory = HugePages.allocate(byteCount: wanted * MemoryLayout<Engine.Key>.stride, alignment: MemoryLayout<Engine.Key>.alignment)
            let grown = grownMemory.base.bindMemory(to: Engine.Key.self, capacity: wanted)
            if let base { grown.moveInitialize(from: base, count: count) }
            memory?.deallocate()
            memory = grownMemory
            base = grown
            capacity = wanted
        }

        mutating func append(_ key: Engine.Key) {
            if count == capacity { reserve(Swift.max(1_024, capacity * 2)) }
            (base! + count).initialize(to: key)
            count += 1
        }

        func makeIterator() -> UnsafeBufferPointer<Engine.Key>.Iterator {
            UnsafeBufferPointer(start: base, count: count).makeIterator()
        }

        func deallocate() {
            memory?.deallocate()
        }
    }

    /// A band's objects in the order of their requests, as key slots: a request appends its
    /// key's slot, and the entry it had before dies then without being touched, since an entry
    /// is live only while its key's record points back at it (`Engine.Key.logIndex`). So a
    /// request's move costs no line at its old place, and reading the band's newest objects
    /// back from the end costs the lines of those objects only (`Engine.logSum`). Dead entries
    /// go when a read meets too many (`Engine.compact`) and at renumbering. A struct the engine
    /// frees. Append amortized O(1).
    fileprivate struct SlotLog {
        private(set) var base: UnsafeMutablePointer<Int32>? = nil
        private var capacity = 0
        var count = 0

        /// Whether the band keeps a log (else a tree, or nothing yet).
        var exists: Bool { base != nil }

        subscript(index: Int) -> Int32 {
            @inline(__always) get { base![index] }
            @inline(__always) set { base![index] = newValue }
        }

        /// Appends `slot` and returns its index.
        @inline(__always) mutating func append(_ slot: Int32) -> Int32 {
            if count == capacity { grow() }
            base![count] = slot
            count += 1
            return Int32(truncatingIfNeeded: count - 1)  // below Int32.max (`Engine.appendLog`)
        }

        mutating func grow() {
            let wanted = Swift.max(256, capacity * 2)
            let grown = UnsafeMutablePointer<Int32>.allocate(capacity: wanted)
            if let base {
                grown.moveInitialize(from: base, count: count)
                base.deallocate()
            }
            base = grown
            capacity = wanted
        }

        /// No entries; a buffer far larger than the last count held is given back.
        mutating func empty() {
            if capacity > 4 * Swift.max(256, count) {
                base?.deallocate()
                base = .allocate(capacity: Swift.max(256, count))
                capacity = Swift.max(256, count)
            }
            count = 0
        }

        mutating func deallocate() {
            base?.deallocate()
            self = SlotLog()
        }
    }

    fileprivate struct Engine {
        let capacities: [Int]
        var result: Result
        /// Key id → slot in `keys`.
        var index: IdIndex
        /// Per key: the position of its last counted request, its size then, its band (one
        /// record, one cache line touched per request).
        struct Key {
            var lastPosition: Int
            var size: Int
            var band: Int32
            /// Its entry's index in its band's log when the band keeps one (−1 none; in the
            /// record's padding).
            var logIndex: Int32 = -1
        }
        var keys = KeyRecords()
        /// Every counted object that fits some capacity, at its last position.
        var all: PrefixSumTree?
        /// The highest band holding an object so far (−1: none): from its capacity on, every
        /// object counts (`all`), so it needs no tree of its own.
        var top = -1
        /// Per band below `top` (capacity index) without a log: its prefix-sum tree once it
        /// holds an object, over cells of 8 positions (`bandSum` reads a cell's positions from
        /// `all`): an eighth of the memory, and no line of its own at a request's old position.
        var trees: [PrefixSumTree?]
        /// Per band below `top`: its log instead, while the largest capacity below the top is at
        /// most `logReach` of the band's smallest objects, so that reading back to any distance
        /// that can still hit there reads at most `logReach + 1` live entries, all recent lines.
        let logs: UnsafeMutableBufferPointer<SlotLog>
        /// Per band below `top`: at most the smallest size it holds (`Int.max` none; the top
        /// band's own is found when it stops being the top).
        let smallest: UnsafeMutableBufferPointer<Int>
        /// How often a log dropped its dead entries, and became a tree (for tests).
        var compactions = 0
        var logsMadeTrees = 0
        var belowTopReads = 0
        var renumberings = 0
        /// The bands that have a tree or a log, ascending.
        var activeBands: [Int] = []
        /// Per capacity index c below the top: a request of band c last seen at or before
        /// `skipThrough[c]` hits at no capacity from c up to the top (−1: none known), so it
        /// reads no band (`countHits`), and a read stops at a band from which none can
        /// (`countHitsBelowTop`). The capacities from one active band up to the next (or the top)
        /// count the same bands, those up to it; such a range's *bound* is a position after which
        /// those bands' objects sum past its largest capacity, and c's is the smallest bound of
        /// its range and those above. Found again by the first read `skipRefresh` requests after
        /// the last (`refreshSkips`): a stale bound still holds, since the sum after a position
        /// only grows as requests come, unless an object leaves its band or shrinks at a
        /// position after a bound (`skipFloor`), the top rises (the top range's largest capacity
        /// with it) or positions are renumbered, which clear them and make the next read find
        /// them again. A new active band clears them too, only so that its ranges get their own
        /// (a range it splits keeps a bound: its capacities count no fewer bands, and none is
        /// larger). (The lowest band's bound alone, against the largest capacity below the top,
        /// spared a trace of sizes log-uniform from 100 B to 1 MiB little: its distances pass
        /// that capacity only after many bands, each read down to its cold lines.)
        let skipThrough: UnsafeMutableBufferPointer<Int>
        /// The smallest bound in force (`Int.max`: none): an object leaving or shrinking at a
        /// position after it may lower a range's sum, and clears them (`clearSkips`).
        var skipFloor = Int.max
        var skipDue = 0
        static let skipRefresh = 32
        /// A refresh reads `all`'s newest positions back at most this far for the ranges'
        /// bounds; a range not found there takes the lowest band's, from its tree.
        static let skipScan = 64
        /// Per band: the sizes of the newest positions' objects, summed by `refreshSkips` (zero
        /// between its uses).
        let bandScratch: UnsafeMutableBufferPointer<Int>
        /// Per band: at least its newest position (an object leaving does not lower it; a
        /// band whose newest is before a request's last position adds nothing to its distance).
        /// A buffer the engine frees, written once a request below the top (an array's write
        /// checked its uniqueness, a runtime call).
        let newest: UnsafeMutableBufferPointer<Int>
        var positions = 1 << 16
        var next = 0
        /// Difference arrays over capacity indexes: +at the first capacity of a range, − after it.
        /// (Buffers the engine frees: an array's write checked its uniqueness, a runtime call,
        /// three times a request.)
        let hitDiff: UnsafeMutableBufferPointer<Int>
        let byteDiff: UnsafeMutableBufferPointer<ByteTotal>
        let tooLargeDiff: UnsafeMutableBufferPointer<Int>
        /// `searchBuckets(capacities)`.
        let searchBounds: UnsafeMutableBufferPointer<Int32>
        /// Sampled: hits and hit bytes weighted by 1/R, as difference arrays too.
        var weightedHitDiff: [Double]
        var weightedByteDiff: [Double]
        /// Fixed rate: the largest hash kept.
        let threshold: UInt64
        /// Fixed size: the sample set, and the slots of keys that left it (reused).
        var sampleSet: SampleSetHeap?
        var freeSlots: [Int32] = []
        /// Whether keys are sampled (SHARDS), and the current weight and distance scale 1/R.
        let isSampled: Bool
        var scale: Double

        init(capacities: [Int], samplingRate: Double, sampleSize: Int?, expectedKeys: Int) {
            self.capacities = capacities
            index = IdIndex(minimumCapacity: expectedKeys, hugePages: true)
            keys.reserve(expectedKeys)
            result = Result(points: capacities.map { Point(capacity: $0) })
            result.samplingRate = samplingRate
            hitDiff = .allocate(capacity: capacities.count + 1)
            hitDiff.initialize(repeating: 0)
            byteDiff = .allocate(capacity: capacities.count + 1)
            byteDiff.initialize(repeating: 0)
            tooLargeDiff = .allocate(capacity: capacities.count + 1)
            tooLargeDiff.initialize(repeating: 0)
            searchBounds = Self.searchBuckets(capacities)
            weightedHitDiff = Array(repeating: 0, count: capacities.count + 1)
            weightedByteDiff = Array(repeating: 0, count: capacities.count + 1)
            trees = Array(repeating: nil, count: capacities.count)
            logs = .allocate(capacity: capacities.count)
            logs.initialize(repeating: SlotLog())
            smallest = .allocate(capacity: capacities.count)
            smallest.initialize(repeating: .max)
            newest = .allocate(capacity: capacities.count)
            newest.initialize(repeating: -1)
            skipThrough = .allocate(capacity: capacities.count)
            skipThrough.initialize(repeating: -1)
            bandScratch = .allocate(capacity: capacities.count)
            bandScratch.initialize(repeating: 0)
            threshold = KeySampling.shardsThreshold(rate: samplingRate)
            sampleSet = sampleSize.map { SampleSetHeap(limit: $0) }
            result.sampleSize = sampleSize
            isSampled = samplingRate < 1 || sampleSize != nil
            scale = sampleSize == nil ? 1 / samplingRate : 1
            result.finalRate = sampleSize == nil ? samplingRate : 1
        }

        /// Slots found ahead (see `feed`).
        var slotsAhead = [Int32](repeating: -1, count: 8)

        /// Counts `requests`, the trace's next ones.
        mutating func feed<Fields: KeyFields>(_ requests: UnsafeBufferPointer<Fields>, ignoreObjectSize: Bool) throws {
            // The trace is known ahead, so each request's three dependent cache misses (its
            // index bucket, its key record, the tree lines at its last position) are started
            // in a pipeline: the bucket 16 requests ahead, the record 8 ahead (its slot kept
            // here, so the request itself need not look it up again), the tree lines 4 ahead.
            for lane in slotsAhead.indices { slotsAhead[lane] = -1 }
            let end = requests.endIndex
            for position in requests.indices {
                // Fields, not the whole request: copying a Request retains its key name.
                let id = requests[position].keyID
                let size = requests[position].keySize
                let slot = slotsAhead[position & 7]
                if position + 16 < end { index.prefetch(requests[position + 16].keyID) }
                if position + 8 < end { slotsAhead[(position + 8) & 7] = prefetchKey(requests[position + 8].keyID) }
                if position + 4 < end { prefetchTree(slot: slotsAhead[(position + 4) & 7]) }
                guard size > 0 else {
                    result.droppedZeroSize += 1
                    continue
                }
                try handle(id: id, size: ignoreObjectSize ? 1 : size, knownSlot: slot)
            }
        }

        /// SHARDS' spatial filter (`KeySampling`): whether the key is followed, and at a fixed
        /// size the sample set's update (a key pushed out leaves the curve's structures) and
        /// the new rate. Fixed size O(log N).
        @inline(__always) mutating func sampled(_ id: UInt64) -> Bool {
            guard isSampled else { return true }
            let hash = KeySampling.shardsHash(id)
            guard sampleSet != nil else { return hash <= threshold }
            if index.find(id) != nil { return true }  // in the set already
            if sampleSet!.isFull, hash >= sampleSet!.largest! { return false }
            if let out = sampleSet!.insert(hash: hash, id: id) { forget(out) }
            result.largestSampleSet = max(result.largestSampleSet, sampleSet!.count)
            if sampleSet!.isFull {
                result.finalRate = Double(sampleSet!.largest!) / 18_446_744_073_709_551_616.0
                scale = 1 / result.finalRate
            }
            return true
        }

        /// A key pushed out of the fixed-size sample set: its weight leaves its tree, its
        /// index entry goes, its slot is reused.
        mutating func forget(_ id: UInt64) {
            guard let slot = index.remove(id) else { return }
            let key = keys[Int(slot)]
            remove(key)
            keys[Int(slot)] = Key(lastPosition: -1, size: 0, band: Int32(capacities.count))
            freeSlots.append(slot)
        }

        /// The first capacity index in low..<high where `fits` holds (high when none);
        /// `fits` must hold from some index on (capacities ascend).
        @inline(__always) func firstIndex(from low: Int, to high: Int, where fits: (Int) -> Bool) -> Int {
            var low = low
            var high = high
            while low < high {
                let middle = (low + high) / 2
                if fits(capacities[middle]) { high = middle } else { low = middle + 1 }
            }
            return low
        }

        /// The first capacity index in low..<high at least `value` (high when none), without
        /// branches on the comparisons: distances are unpredictable, and a branching search
        /// mispredicted about half its steps (a seventh of a 100-point curve's time).
        @inline(__always) func firstCapacity(from low: Int, to high: Int, atLeast value: Int) -> Int {
            guard low < high else { return low }
            var base = low
            var length = high - low
            // All ones when the capacity is below `value` (both ≥ 0, so no overflow); a
            // ternary here compiled to a branch.
            while length > 1 {
                let half = length &>> 1
                base &+= half & ((capacities[base &+ half] &- value) &>> 63)
                length &-= half
            }
            return base &+ ((capacities[base] &- value) &>> 63) & 1
        }

        /// Per bucket of values (their highest bit and the two below it: 256 buckets, each
        /// [L, U) with U ≤ 1.25 L), the capacity indexes the first capacity ≥ a value there lies
        /// between: the first capacity ≥ L and the first ≥ U. A search starts from those, so
        /// log-spaced capacities leave one or two steps, not ⌈log₂ P⌉ dependent loads.
        static func searchBuckets(_ capacities: [Int]) -> UnsafeMutableBufferPointer<Int32> {
            let bounds = UnsafeMutableBufferPointer<Int32>.allocate(capacity: 512)
            func first(atLeast value: UInt64) -> Int32 { Int32(capacities.firstIndex { UInt64($0) >= value } ?? capacities.count) }
            for bucket in 0..<256 {
                let (bit, quarter) = (UInt64(bucket / 4), UInt64(bucket % 4))
                let (low, high): (UInt64, UInt64) = bit < 2
                    ? (1 << bit, 1 << (bit + 1))
                    : ((4 + quarter) << (bit - 2), bit == 63 && quarter == 3 ? .max : (5 + quarter) << (bit - 2))
                bounds[2 * bucket] = first(atLeast: low)
                bounds[2 * bucket + 1] = first(atLeast: high)
            }
            return bounds
        }

        /// The bucket of `value` (≥ 1) in `searchBuckets`.
        @inline(__always) static func bucket(of value: Int) -> Int {
            let bit = 63 &- value.leadingZeroBitCount
            return bit < 2 ? 4 &* bit : 4 &* bit &+ (value &>> (bit &- 2)) & 3
        }

        /// `firstCapacity` for a distance ≥ 1, from its bucket's bounds.
        @inline(__always) func firstCapacity(distanceFrom low: Int, to high: Int, atLeast value: Int) -> Int {
            let bucket = Self.bucket(of: value)
            let found = firstCapacity(
                from: max(low, Int(searchBounds[2 &* bucket])), to: min(high, Int(searchBounds[2 &* bucket &+ 1])), atLeast: value)
            return min(found, high)  // a bucket starting past `high`: none in low..<high
        }

        /// The smallest capacity index holding `size`, or `capacities.count` when none does
        /// (searched from the size's bucket: one or two steps, where a binary search over 100
        /// capacities took seven dependent loads a request).
        @inline(__always) func band(of size: Int) -> Int {
            size <= capacities[0] ? 0 : firstCapacity(distanceFrom: 1, to: capacities.count, atLeast: size)
        }

        /// Starts loading the key record of `id` when it has one, and returns its slot (−1 when
        /// none yet). Slots never move, so a request can use the slot found ahead.
        /// (Mutating, as `prefetchTree`: called from the mutating `feed`, a non-mutating
        /// method got a copy of the whole engine, its arrays retained and released, each call.)
        @inline(__always) mutating func prefetchKey(_ id: UInt64) -> Int32 {
            guard let slot = index.find(id) else { return -1 }
            cwb_prefetch(keys.address(of: Int(slot)))
            return slot
        }

        /// Starts loading the tree lines at the last position of the key in `slot` (≥ 0).
        @inline(__always) mutating func prefetchTree(slot: Int32) {
            guard slot >= 0 else { return }
            let key = keys[Int(slot)]
            guard key.lastPosition >= 0, Int(key.band) < capacities.count else { return }
            all?.prefetch(key.lastPosition)
            // The band's tree is written there; other bands' are read from the top down, and
            // mostly stop in the upper levels, which stay cached.
            trees[Int(key.band)]?.prefetch(key.lastPosition &>> Self.cellShift)
        }

        /// Counts a request; `knownSlot` is `id`'s slot when found ahead, else −1.
        mutating func handle(id: UInt64, size: Int, knownSlot: Int32) throws {
            result.traceRequests += 1
            result.traceBytes += ByteTotal(size)
            guard sampled(id) else { return }
            result.requests += 1
            result.requestedBytes += ByteTotal(size)
            if isSampled {
                result.weightedRequests += scale
                result.weightedBytes += scale * Double(size)
            }
            // A fixed-size sample set frees and reuses slots: a slot found ahead may be stale.
            let knownSlot = sampleSet == nil ? knownSlot : -1
            let band = band(of: size)
            tooLargeDiff[0] += 1
            tooLargeDiff[band] -= 1
            if band < top, size < smallest[band] { lowerSmallest(band, to: size) }
            if next == positions { renumber() }
            let position = next
            next += 1
            if let slot = knownSlot >= 0 ? knownSlot : index.find(id) {
                let slot = Int(slot)
                let previous = keys[slot]
                let last = previous.lastPosition
                if previous.size != size { result.sizeChanges += 1 }
                keys[slot] = Key(lastPosition: position, size: size, band: Int32(band))
                if Int(previous.band) == band, band < capacities.count {
                    // The common case, the same band: one walk up `all` reads the distance and
                    // moves the object (the band trees are read before their own move).
                    let after = all!.sumBetweenAndMove(from: last, removing: previous.size, to: position, adding: size)
                    countHits(after: after, since: last, size: size, band: band)
                    if band < top {
                        if logs[band].exists {
                            // The record's old entry died with its update, unless it is the log's
                            // last, which the key keeps (requested again with nothing between in
                            // its band: no read meets those entries, so they would pile up dead).
                            // (A read's compaction may have moved entries: the slot is checked.)
                            let end = logs[band].count &- 1
                            if end >= 0, Int(previous.logIndex) == end, logs[band][end] == Int32(truncatingIfNeeded: slot) {
                                keys[slot].logIndex = previous.logIndex
                            } else {
                                appendLog(band, slot: slot)
                            }
                        } else {
                            tree(band).move(from: last &>> Self.cellShift, removing: previous.size, to: position &>> Self.cellShift, adding: size)
                        }
                        if size < previous.size && last > skipFloor { clearSkips() }
                        newest[band] = position
                    }
                    return
                }
                if band < capacities.count { countHits(since: last, size: size, band: band) }
                remove(previous)
                if band < capacities.count { add(band: band, position: position, size: size, slot: slot) }
                return
            } else {
                result.uniqueKeys += 1
                let slot: Int32
                if let free = freeSlots.popLast() {
                    slot = free
                    index.insert(id, slot)
                    keys[Int(slot)] = Key(lastPosition: position, size: size, band: Int32(band))
                } else {
                    // Slots are 32-bit (half the index's memory): 2^31 keys is the limit.
                    guard keys.count < Int(Int32.max) else { throw WorkbenchError("more than \(Int32.max) distinct keys: above what a curve can follow") }
                    slot = Int32(keys.count)
                    index.insert(id, slot)
                    keys.append(Key(lastPosition: position, size: size, band: Int32(band)))
                }
                if band < capacities.count { add(band: band, position: position, size: size, slot: Int(slot)) }
            }
        }

        /// An object that fits some capacity, at `position`, its key in `slot` (its record
        /// written): into `all`, and into its band's tree or log when below the top band (a band
        /// above the top makes it the new top).
        @inline(__always) mutating func add(band: Int, position: Int, size: Int, slot: Int) {
            if all == nil { all = PrefixSumTree(count: positions, hugePages: true) }  // read by every request
            all!.add(position, size)
            if band > top { raiseTop(to: band) }
            if band < top {
                if logs[band].exists {
                    appendLog(band, slot: slot)
                } else if let tree = trees[band] {
                    tree.add(position &>> Self.cellShift, size)
                } else if keepsLog(band) {
                    makeLog(band)
                    appendLog(band, slot: slot)
                } else {
                    makeTree(band).add(position &>> Self.cellShift, size)
                }
                newest[band] = position
            }
        }

        /// Whether `band` (below the top) may keep a log: the largest capacity below the top
        /// is at most `logReach` of its smallest objects.
        @inline(__always) func keepsLog(_ band: Int) -> Bool {
            let (reach, overflow) = smallest[band].multipliedReportingOverflow(by: LRUMissRatioCurve.logReach)
            return overflow || capacities[top - 1] <= reach
        }

        /// `slot`'s key, just requested, at the end of `band`'s log. O(1) amortized.
        @inline(__always) mutating func appendLog(_ band: Int, slot: Int) {
            // Log indexes are 32-bit, in the record's padding: a log that long becomes a tree.
            // (Never while renumbering rebuilds the logs, which hold only their band's keys
            // then, below 2^31; so the tree is built from settled records.)
            if logs[band].count >= Int(Int32.max) { return logToTree(band) }
            keys[slot].logIndex = logs[band].append(Int32(truncatingIfNeeded: slot))
        }

        /// `band` (below the top) held an object of `size`, smaller than any before: a log that
        /// may now read too many entries becomes a tree. Once per band and new smallest size.
        mutating func lowerSmallest(_ band: Int, to size: Int) {
            smallest[band] = size
            if logs[band].exists, !keepsLog(band) { logToTree(band) }
        }

        /// A tree of `band`'s objects at their last positions, built from the keys (cells of
        /// 2^cellShift = 8 positions; at most 8 sizes of at most 2^53 a cell, so the checked adds
        /// cannot trap). O(keys + positions / 8).
        func treeOfKeys(in band: Int) -> PrefixSumTree {
            var values = Array(repeating: 0, count: Self.cells(positions))
            for key in keys where Int(key.band) == band && key.lastPosition >= 0 { values[key.lastPosition &>> Self.cellShift] += key.size }
            return PrefixSumTree(values: values, count: Self.cells(positions))
        }

        /// `band`'s log becomes a tree (its smallest objects, or the top band's capacity,
        /// changed): built from the keys, O(keys + positions). At most once per band.
        mutating func logToTree(_ band: Int) {
            trees[band] = treeOfKeys(in: band)
            logs[band].deallocate()
            logsMadeTrees += 1
            clearSkips()  // the lowest band may have a tree now
        }

        /// A key's entry leaves the trees it is in (its last position is about to change, or
        /// it left the sample; an entry in a log died when the key's record changed).
        @inline(__always) mutating func remove(_ key: Key) {
            let band = Int(key.band)
            guard key.lastPosition >= 0, band < capacities.count else { return }
            all!.add(key.lastPosition, -key.size)
            trees[band]?.add(key.lastPosition &>> Self.cellShift, -key.size)
            if key.lastPosition > skipFloor && band < top { clearSkips() }
        }

        /// An object of a band above the top came: the old top band's objects, counted until
        /// now only in `all`, get their own tree or log (built from the keys: O(keys + k log k)
        /// for the band's k keys, and O(positions / 8) for a tree); the bands between hold
        /// nothing; a log the higher capacities would make read too far becomes a tree. At most
        /// once per band.
        mutating func raiseTop(to band: Int) {
            let old = top
            top = band
            clearSkips()
            guard old >= 0 else { return }
            var held: [(position: Int, slot: Int)] = []
            for slot in keys.indices where Int(keys[slot].band) == old && keys[slot].lastPosition >= 0 {
                held.append((keys[slot].lastPosition, slot))
                smallest[old] = min(smallest[old], keys[slot].size)
            }
            held.sort { $0.position < $1.position }
            if keepsLog(old) {
                makeLog(old)
                for entry in held { appendLog(old, slot: entry.slot) }
            } else {
                trees[old] = treeOfKeys(in: old)
                activeBands.append(old)
                activeBands.sort()
            }
            newest[old] = held.last?.position ?? -1
            for lower in activeBands where logs[lower].exists && !keepsLog(lower) { logToTree(lower) }
        }

        /// A request at `next − 1` for an object last requested at `last`: the capacities
        /// from its band up where it hits get a hit.
        @inline(__always) mutating func countHits(since last: Int, size: Int, band: Int) {
            // Everything in a tree sits at or before the previous request (`next − 2`): the sum
            // after `last` up to there is what came after. From the top band's capacity on (and
            // from the request's own band, when that is higher) every object counts.
            // (No closure here: one capturing `self` in a mutating method copies the engine.)
            var after = 0  // no tree yet: every earlier object was too large
            if let all { after = all.suffixSum(after: last, through: next - 2) }
            countHits(after: after, since: last, size: size, band: band)
        }

        /// As above, with `after` (the sizes in `all` after `last`) known.
        @inline(__always) mutating func countHits(after: Int, since last: Int, size: Int, band: Int) {
            if band < top && last > skipThrough[band] { countHitsBelowTop(since: last, size: size, band: band) }
            markHits(from: max(band, top), to: capacities.count, distance: size + after, scaled: Double(size) + Double(after) * scale, size: size)
        }

        /// The capacities from the request's band up to the top band's (exclusive): each
        /// counts the bands up to its own. (Not inlined: inlined, its registers were saved
        /// and restored on every request, with one band too.)
        @inline(never) mutating func countHitsBelowTop(since last: Int, size: Int, band: Int) {
            if next >= skipDue {
                refreshSkips()
                if last <= skipThrough[band] { return }
            }
            belowTopReads &+= 1
            var distance = size
            var scaled = Double(size)
            var low = band
            let ceiling = capacities[top - 1]
            for active in activeBands {
                // Distances only grow with the bands: past the largest capacity below the top,
                // none of those capacities can hit.
                if isSampled ? scaled > Double(ceiling) : distance > ceiling { return }
                if active > band && last <= skipThrough[active] {
                    markHits(from: low, to: active, distance: distance, scaled: scaled, size: size)
                    return  // from `active` up, none can hit
                }
                // A band whose newest position is not after `last` adds nothing. A sum past what is
                // left below the ceiling need not be exact (a tree read from the top down, a log
                // from its newest entry). Sampled too: the scaled distance is at least the
                // distance, the scale being 1/R ≥ 1, so a distance past the ceiling is a scaled
                // one past it too.
                let limit = ceiling - distance
                let between = newest[active] <= last ? 0
                    : logs[active].exists ? logSum(active, after: last, stoppingAbove: limit)
                    : bandSum(active, after: last, stoppingAbove: limit)
                if between > limit {
                    if active > band { markHits(from: low, to: active, distance: distance, scaled: scaled, size: size) }
                    return
                }
                if active <= band {
                    distance += between
                    scaled += Double(between) * scale
                    continue
                }
                // Capacities low..<active see the distance so far; from `active` on, more (a band
                // adding nothing leaves them one range, marked once).
                guard between > 0 else { continue }
                markHits(from: low, to: active, distance: distance, scaled: scaled, size: size)
                distance += between
                scaled += Double(between) * scale
                low = active
            }
            markHits(from: low, to: top, distance: distance, scaled: scaled, size: size)
        }

        /// The ranges' bounds found again (see `skipThrough`), from `all`'s positions read back
        /// from the newest, one at most once: from the top range down, the smallest bound so far
        /// is a position whose objects after it are known band by band; a range whose objects
        /// there (those of its band and below: all of them but the bands above it) do not pass
        /// its largest capacity reads further back until they do, and that position before the
        /// last read is its bound, and the smallest. A range not found within `skipScan`
        /// positions takes the lowest band's bound (`lowestBandBound`), a bound of every range,
        /// and so do the ranges below it. O(P + skipScan + log₈ n), the positions read the
        /// newest. Sampled too: the scaled distance is at least the distance (1/R ≥ 1).
        mutating func refreshSkips() {
            skipDue = next &+ Self.skipRefresh
            skipFloor = .max
            let ceiling = capacities[top &- 1]
            var position = next &- 1  // the next to read back
            let stop = max(0, next &- Self.skipScan)
            var read = 0  // sizes after `position` (the smallest bound so far), at most `skipScan` of them
            var above = 0  // of those, the sizes of the bands above the current range
            var capacity = top
            var fallback: Int? = nil
            var smallest = Int.max  // the ranges' bounds so far: the smallest
            for range in stride(from: activeBands.count &- 1, through: 0, by: -1) {
                let band = activeBands[range]
                // The bands above this range up to the range above's own band (the top's holds none).
                for higher in (band &+ 1)...capacity { above &+= bandScratch[higher] }
                let largest = capacities[capacity &- 1]  // the range is band..<capacity
                var counted = read &- above
                while counted <= largest && position >= stop {
                    let size = all!.leaf(position)
                    position &-= 1
                    guard size > 0 && size <= ceiling else { continue }
                    let sizeBand = self.band(of: size)
                    bandScratch[sizeBand] &+= size
                    read &+= size
                    if sizeBand > band { above &+= size } else { counted &+= size }
                }
                if counted > largest {
                    smallest = min(smallest, position)  // the objects after it pass the range's largest capacity
                } else {
                    if fallback == nil { fallback = lowestBandBound() }
                    smallest = min(smallest, fallback!)
                }
                if smallest >= 0 { skipFloor = smallest }  // the smallest in force so far
                for below in band..<capacity { skipThrough[below] = smallest }
                capacity = band
            }
            for below in 0..<capacity { skipThrough[below] = -1 }
            for band in 0..<top { bandScratch[band] = 0 }
        }

        /// A position after which the lowest band's objects alone sum past the largest capacity
        /// below the top (a bound of every range: that band counts in all), from its tree (as
        /// its objects stand before the request being counted moves), or −1 when it keeps none:
        /// the position before the first cell whose prefix sum reaches total − that capacity. One
        /// walk down the tree, O(log₈ n), its lines mostly the newest.
        func lowestBandBound() -> Int {
            guard let lowest = activeBands.first, let tree = trees[lowest] else { return -1 }
            let cell = tree.firstPosition(prefixSumAtLeast: tree.total &- capacities[top &- 1])
            return cell &<< Self.cellShift &- 1
        }

        /// The bounds no longer hold (see `skipThrough`): none until the next read finds them.
        @inline(__always) mutating func clearSkips() {
            skipDue = 0
            guard skipFloor != .max else { return }  // none in force
            for capacity in 0..<capacities.count { skipThrough[capacity] = -1 }
            skipFloor = .max
        }

        /// A band tree's entries: cells of 8 positions, `all`'s level-0 lines. (Cells of 64, a
        /// tree an eighth the size, were measured: 5–10% faster on the 5M Zipf trace, whose
        /// only tree band is dense, 10–25% slower on one of sizes log-uniform from 100 B to
        /// 1 MiB, where a sparse band's partial cell read up to 8 cold lines of `all`.)
        static let cellShift = 3
        static func cells(_ positions: Int) -> Int { (positions + (1 << cellShift) - 1) &>> Self.cellShift }

        /// The sizes of `band`'s objects after `last` up to its newest position, or, once they
        /// pass `limit`, a part of them above it (`PrefixSumTree.suffixSum(after:through:stoppingAbove:)`).
        /// The band's tree sums whole cells; the positions after `last` in its own cell are read
        /// from `all`'s line there (the request's walk has just loaded it), keeping the sizes of
        /// the band's range: a size fixes its band.
        @inline(__always) func bandSum(_ band: Int, after last: Int, stoppingAbove limit: Int) -> Int {
            let through = newest[band]
            var sum = trees[band]!.suffixSum(after: last &>> Self.cellShift, through: through &>> Self.cellShift, stoppingAbove: limit)
            guard sum <= limit else { return sum }
            let low = band == 0 ? 0 : capacities[band - 1]
            let high = capacities[band]
            var lane = last &+ 1
            let end = min(through, last | (1 &<< Self.cellShift &- 1))
            while lane <= end {
                let size = all!.leaf(lane)
                if size > low && size <= high { sum &+= size }
                lane &+= 1
            }
            return sum
        }

        /// The sizes of `band`'s live objects after `last` (its log), or, once they pass
        /// `limit`, a part of them above it: read back from the log's end, the newest first.
        /// O(live entries read + dead ones): at most `logReach + 1` live ones when `limit` is
        /// below the ceiling, and at most as many dead ones plus 16 before a read drops those it
        /// met (`compact`): at most 2 × 33 + 16 entries a read, amortized.
        @inline(__always) mutating func logSum(_ band: Int, after last: Int, stoppingAbove limit: Int) -> Int {
            let log = logs[band]
            var sum = 0
            var index = log.count &- 1
            var live = 0
            var dead = 0
            while index >= 0 {
                let key = keys[Int(log[index])]
                if key.logIndex == Int32(truncatingIfNeeded: index), Int(key.band) == band {
                    if key.lastPosition <= last { break }
                    sum &+= key.size  // at most limit + one size: no overflow
                    live &+= 1
                    if sum > limit { break }
                } else {
                    dead &+= 1
                }
                index &-= 1
            }
            if dead > live &+ 16 { compact(band, from: index &+ 1) }
            return sum
        }

        /// Drops the dead entries of `band`'s log from `start` on, the live ones keeping their
        /// order. O(entries from `start`).
        mutating func compact(_ band: Int, from start: Int) {
            var kept = start
            for index in start..<logs[band].count {
                let slot = Int(logs[band][index])
                guard keys[slot].logIndex == Int32(truncatingIfNeeded: index), Int(keys[slot].band) == band else { continue }
                logs[band][kept] = Int32(truncatingIfNeeded: slot)
                keys[slot].logIndex = Int32(truncatingIfNeeded: kept)
                kept += 1
            }
            logs[band].count = kept
            compactions += 1
        }

        @inline(__always) mutating func markHits(from low: Int, to high: Int, distance: Int, scaled: Double, size: Int) {
            guard low < high else { return }
            let first = isSampled
                ? firstIndex(from: low, to: high) { Double($0) >= scaled }
                : firstCapacity(distanceFrom: low, to: high, atLeast: distance)
            guard first < high else { return }
            hitDiff[first] += 1
            hitDiff[high] -= 1
            byteDiff[first] += ByteTotal(size)
            byteDiff[high] -= ByteTotal(size)
            if isSampled {
                weightedHitDiff[first] += scale
                weightedHitDiff[high] -= scale
                weightedByteDiff[first] += scale * Double(size)
                weightedByteDiff[high] -= scale * Double(size)
            }
        }

        /// `band`'s tree (below the top), made empty on first use (the request adding to it is
        /// the band's first object).
        @inline(__always) mutating func tree(_ band: Int) -> PrefixSumTree {
            if let tree = trees[band] { return tree }
            return makeTree(band)
        }

        mutating func makeLog(_ band: Int) {
            logs[band].grow()
            activeBands.append(band)
            activeBands.sort()
            clearSkips()
        }

        mutating func makeTree(_ band: Int) -> PrefixSumTree {
            let tree = PrefixSumTree(count: Self.cells(positions))
            trees[band] = tree
            activeBands.append(band)
            activeBands.sort()
            clearSkips()
            return tree
        }

        /// Positions ran out: the keys keep their order but get positions 0..<k; the position
        /// space doubles when more than half is in use. `all`, dense, is rebuilt from one
        /// buffer (in place while the space keeps its size: its pages stay mapped); a band's
        /// tree holds only its band's keys, so each key is moved within it to its new position
        /// (the moves commute). O(positions + keys × log n + bands), no sort but by band: positions are distinct.
        mutating func renumber() {
            renumberings += 1
            clearSkips()
            var slotAt = Array(repeating: Int32(-1), count: positions)
            for slot in keys.indices where keys[slot].lastPosition >= 0 { slotAt[keys[slot].lastPosition] = Int32(slot) }
            let oldPositions = positions
            if (keys.count - freeSlots.count) * 2 > positions { positions *= 2 }
            let grown = positions != oldPositions
            if grown {
                for band in activeBands where trees[band] != nil {
                    trees[band]!.deallocate()
                    trees[band] = PrefixSumTree(count: Self.cells(positions))
                }
            }
            // New positions in the keys' order; each band tree's moves are gathered (a counting
            // sort by band) and applied band by band, as two ascending streams per tree: applied in
            // key order they interleaved every band's lines and stalled on each.
            var movesBefore = Array(repeating: 0, count: capacities.count + 1)
            if !activeBands.isEmpty {
                for key in keys where key.lastPosition >= 0 {  // in slot order: one stream
                    let band = Int(key.band)
                    if band < capacities.count, trees[band] != nil { movesBefore[band + 1] += 1 }
                }
            }
            for band in 0..<capacities.count { movesBefore[band + 1] += movesBefore[band] }
            var moves = [BandMove](repeating: BandMove(from: 0, to: 0, size: 0), count: movesBefore[capacities.count])
            // A log keeps its band's keys in their new order, dead entries dropped.
            for band in activeBands where logs[band].exists { logs[band].empty() }
            var newPosition = 0
            for (at, slot) in slotAt.enumerated() where slot >= 0 {
                if at + 16 < slotAt.count, slotAt[at + 16] >= 0 { cwb_prefetch(keys.address(of: Int(slotAt[at + 16]))) }
                let slot = Int(slot)
                let key = keys[slot]
                let band = Int(key.band)
                if band < capacities.count, trees[band] != nil {
                    moves[movesBefore[band]] = BandMove(from: key.lastPosition, to: newPosition, size: key.size)
                    movesBefore[band] += 1
                }
                keys[slot].lastPosition = newPosition
                if band < capacities.count, logs[band].exists { appendLog(band, slot: slot) }
                newPosition += 1
            }
            for band in newest.indices { newest[band] = -1 }
            for band in activeBands where logs[band].exists && logs[band].count > 0 {
                newest[band] = keys[Int(logs[band][logs[band].count - 1])].lastPosition
            }
            var start = 0
            for band in 0..<capacities.count where movesBefore[band] > start {
                let tree = trees[band]!
                for move in moves[start..<movesBefore[band]] {
                    if grown {
                        tree.add(move.to &>> Self.cellShift, move.size)
                    } else {
                        tree.move(from: move.from &>> Self.cellShift, removing: move.size, to: move.to &>> Self.cellShift, adding: move.size)
                    }
                }
                newest[band] = moves[movesBefore[band] - 1].to
                start = movesBefore[band]
            }
            next = newPosition
            slotAt = []
            moves = []
            if let tree = all {
                var values = Array(repeating: 0, count: positions)
                for key in keys where key.lastPosition >= 0 && Int(key.band) < capacities.count { values[key.lastPosition] = key.size }
                if grown {
                    tree.deallocate()
                    all = PrefixSumTree(values: values, count: positions, hugePages: tree.hugePages)
                } else {
                    tree.refill(values)
                }
            }
        }

        /// A key's move in its band's tree when positions are renumbered.
        struct BandMove {
            var from: Int
            var to: Int
            var size: Int
        }

        /// Frees the index, the difference buffers and the trees (once, when the pass ends or fails).
        func deallocate() {
            index.deallocate()
            keys.deallocate()
            hitDiff.deallocate()
            byteDiff.deallocate()
            tooLargeDiff.deallocate()
            searchBounds.deallocate()
            newest.deallocate()
            skipThrough.deallocate()
            bandScratch.deallocate()
            all?.deallocate()
            for band in activeBands {
                trees[band]?.deallocate()
                logs[band].deallocate()
            }
            logs.deallocate()
            smallest.deallocate()
        }

        mutating func finish() -> Result {
            var hits = 0
            var bytes: ByteTotal = 0
            var tooLarge = 0
            var weightedHits = 0.0
            var weightedBytes = 0.0
            for point in capacities.indices {
                weightedHits += weightedHitDiff[point]
                weightedBytes += weightedByteDiff[point]
                result.points[point].weightedHits = weightedHits
                result.points[point].weightedHitBytes = weightedBytes
                hits += hitDiff[point]
                bytes += byteDiff[point]
                tooLarge += tooLargeDiff[point]
                result.points[point].hits = hits
                result.points[point].hitBytes = bytes
                result.points[point].tooLarge = tooLarge
            }
            return result
        }
    }
}
