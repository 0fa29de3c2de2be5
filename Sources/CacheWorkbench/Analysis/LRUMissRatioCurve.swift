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
/// smallest curve capacity they fit (one tree per band that has objects); the distance at
/// capacity i sums the bands up to i. When every object fits the smallest capacity there is
/// one tree. Equal to separate `lru` runs at every capacity (tested), with one exception it
/// reports: a replay keeps an object's stored size on a hit, the curve uses each request's
/// own size, so requests that change their key's size (`sizeChanges`) may differ.
///
/// SHARDS (Waldspurger et al., FAST 2015), fixed rate: with `samplingRate` R < 1 only keys
/// whose hash falls below R are replayed, distances between them are scaled by 1/R, and
/// ratios are sampled misses over R × all requests (SHARDS-adj).
///
/// Complexity: O(log n + log P) per request with one band (n = distinct positions kept,
/// P = capacities), O(B (log n + log P)) with B bands; positions are renumbered when they
/// run out, so memory is O(distinct keys + P).
public enum LRUMissRatioCurve {
    public struct Point: Sendable, Equatable {
        public var capacity: Int
        public var hits = 0
        public var hitBytes: ByteTotal = 0
        /// Requests for objects larger than the capacity (misses that store nothing).
        public var tooLarge = 0
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

        /// Misses over requests. Sampled (SHARDS-adj): misses over the requests the rate
        /// expects, R × all requests — as if the shortfall or excess of sampled requests
        /// were hits at distance 0, which removes the bias of popular keys falling in or
        /// out of the sample (Waldspurger et al., §4.3).
        public func objectMissRatio(_ point: Point) -> Double? {
            guard requests > 0 else { return nil }
            let misses = Double(requests - point.hits)
            guard samplingRate < 1 else { return misses / Double(requests) }
            return min(1, misses / (samplingRate * Double(traceRequests)))
        }

        public func byteMissRatio(_ point: Point) -> Double? {
            guard requestedBytes > 0 else { return nil }
            let misses = (requestedBytes - point.hitBytes).asDouble
            guard samplingRate < 1 else { return misses / requestedBytes.asDouble }
            return min(1, misses / (samplingRate * traceBytes.asDouble))
        }
    }

    /// The curve at `capacities` (any order, ≥ 1). The caller checks that the distinct
    /// keys' sizes sum within an Int (`MissRatioCurveRun` does, from the trace summary).
    public static func compute(
        _ source: any RequestSource, capacities: [Int], ignoreObjectSize: Bool = false, samplingRate: Double = 1,
        expectedRequests: Int? = nil, expectedKeys: Int? = nil, progress: ((Double?) -> Void)? = nil
    ) throws -> Result {
        var engine = Engine(capacities: capacities.sorted(), samplingRate: samplingRate, expectedKeys: expectedKeys ?? 0)
        defer { engine.deallocate() }
        // Positions for every (sampled) request expected, so that none need renumbering.
        if let expected = expectedRequests ?? source.expectedCount {
            engine.positions = max(engine.positions, Int(Double(expected) * min(1, samplingRate * 1.1)) + 1024)
        }
        var sinceProgress = 0
        // The trace is known ahead, so each request's three dependent cache misses (its
        // index bucket, its key record, the tree lines at its last position) are started
        // in a pipeline: the bucket 16 requests ahead, the record 8 ahead (its slot kept
        // here, so the request itself need not look it up again), the tree lines 4 ahead.
        var slotsAhead = [Int32](repeating: -1, count: 8)
        while let chunk = try source.nextChunk() {
            for lane in slotsAhead.indices { slotsAhead[lane] = -1 }
            try chunk.withUnsafeBufferPointer { requests in
                let end = requests.endIndex
                for position in requests.indices {
                    // Fields, not the whole request: copying a Request retains its key name.
                    let id = requests[position].id
                    let size = requests[position].size
                    let slot = slotsAhead[position & 7]
                    if position + 16 < end { engine.index.prefetch(requests[position + 16].id) }
                    if position + 8 < end { slotsAhead[(position + 8) & 7] = engine.prefetchKey(requests[position + 8].id) }
                    if position + 4 < end { engine.prefetchTree(slot: slotsAhead[(position + 4) & 7]) }
                    guard size > 0 else {
                        engine.result.droppedZeroSize += 1
                        continue
                    }
                    try engine.handle(id: id, size: ignoreObjectSize ? 1 : size, knownSlot: slot)
                }
            }
            sinceProgress += chunk.count
            if sinceProgress >= 1 << 20, let progress {
                sinceProgress = 0
                progress(source.progress)
            }
        }
        engine.result.skippedRows = source.skippedRows
        return engine.finish()
    }

    private struct Engine {
        let capacities: [Int]
        var result: Result
        /// Key id → slot in `keys`.
        var index = IdIndex()
        /// Per key: the position of its last counted request, its size then, its band (one
        /// record, one cache line touched per request).
        struct Key {
            var lastPosition: Int
            var size: Int
            var band: Int32
        }
        var keys: [Key] = []
        /// Per band (capacity index): its prefix-sum tree once it holds an object, and the
        /// tree's total; the bands that have trees, ascending.
        var trees: [PrefixSumTree?]
        var totals: [Int]
        var activeBands: [Int] = []
        var positions = 1 << 16
        var next = 0
        /// Difference arrays over capacity indexes: +at the first capacity of a range, − after it.
        var hitDiff: [Int]
        var byteDiff: [ByteTotal]
        var tooLargeDiff: [Int]
        let threshold: UInt64
        /// Whether keys are sampled (SHARDS), and the distance scale 1/R.
        let isSampled: Bool
        let scale: Double

        init(capacities: [Int], samplingRate: Double, expectedKeys: Int) {
            self.capacities = capacities
            index = IdIndex(minimumCapacity: expectedKeys)
            keys.reserveCapacity(expectedKeys)
            result = Result(points: capacities.map { Point(capacity: $0) })
            result.samplingRate = samplingRate
            hitDiff = Array(repeating: 0, count: capacities.count + 1)
            byteDiff = Array(repeating: 0, count: capacities.count + 1)
            tooLargeDiff = Array(repeating: 0, count: capacities.count + 1)
            trees = Array(repeating: nil, count: capacities.count)
            totals = Array(repeating: 0, count: capacities.count)
            threshold = UInt64((samplingRate * Double(1 << 24)).rounded())
            isSampled = threshold < 1 << 24
            scale = 1 / samplingRate
        }

        /// SHARDS' spatial filter: a key is sampled iff its hash's top 24 bits fall below R × 2^24.
        @inline(__always) func sampled(_ id: UInt64) -> Bool {
            guard isSampled else { return true }
            var hash = id &+ 0x9E37_79B9_7F4A_7C15
            hash = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE4_E5B9
            hash = (hash ^ (hash >> 27)) &* 0x94D0_49BB_1331_11EB
            hash ^= hash >> 31
            return hash >> 40 < threshold
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

        /// The smallest capacity index holding `size`, or `capacities.count` when none does.
        @inline(__always) func band(of size: Int) -> Int { firstIndex(from: 0, to: capacities.count) { $0 >= size } }

        /// Starts loading the key record of `id` when it has one, and returns its slot (−1 when
        /// none yet). Slots never move, so a request can use the slot found ahead.
        @inline(__always) func prefetchKey(_ id: UInt64) -> Int32 {
            guard let slot = index.find(id) else { return -1 }
            keys.withUnsafeBufferPointer { cwb_prefetch($0.baseAddress! + Int(slot)) }
            return slot
        }

        /// Starts loading the tree lines at the last position of the key in `slot` (≥ 0).
        @inline(__always) func prefetchTree(slot: Int32) {
            guard slot >= 0 else { return }
            let key = keys[Int(slot)]
            if Int(key.band) < capacities.count, let tree = trees[Int(key.band)] { tree.prefetch(key.lastPosition) }
        }

        /// Counts a request; `knownSlot` is `id`'s slot when found ahead, else −1.
        mutating func handle(id: UInt64, size: Int, knownSlot: Int32) throws {
            result.traceRequests += 1
            result.traceBytes += ByteTotal(size)
            guard sampled(id) else { return }
            result.requests += 1
            result.requestedBytes += ByteTotal(size)
            let band = band(of: size)
            tooLargeDiff[0] += 1
            tooLargeDiff[band] -= 1
            if next == positions { renumber() }
            let position = next
            next += 1
            if let slot = knownSlot >= 0 ? knownSlot : index.find(id) {
                let slot = Int(slot)
                let previous = keys[slot]
                let last = previous.lastPosition
                if previous.size != size { result.sizeChanges += 1 }
                if band < capacities.count { countHits(since: last, size: size, band: band) }
                let old = Int(previous.band)
                if old < capacities.count, let tree = trees[old] {
                    tree.add(last, -previous.size)
                    totals[old] -= previous.size
                }
                keys[slot] = Key(lastPosition: position, size: size, band: Int32(band))
            } else {
                // Slots are 32-bit (half the index's memory): 2^31 keys is the limit.
                guard keys.count < Int(Int32.max) else { throw WorkbenchError("more than \(Int32.max) distinct keys: above what a curve can follow") }
                index.insert(id, Int32(keys.count))
                result.uniqueKeys += 1
                keys.append(Key(lastPosition: position, size: size, band: Int32(band)))
            }
            if band < capacities.count {
                tree(band).add(position, size)
                totals[band] += size
            }
        }

        /// A request at `next − 1` for an object last requested at `last`: the capacities
        /// from its band up where it hits get a hit.
        @inline(__always) mutating func countHits(since last: Int, size: Int, band: Int) {
            var distance = size
            var scaled = Double(size)
            var low = band
            for active in activeBands {
                // Everything in the tree sits at or before the previous request: its total
                // less the prefix up to `last` is what came after.
                let between = totals[active] - trees[active]!.prefixSum(last)
                if active <= band {
                    distance += between
                    scaled += Double(between) * scale
                    continue
                }
                // Capacities low..<active see the distance so far; from `active` on, more.
                markHits(from: low, to: active, distance: distance, scaled: scaled, size: size)
                distance += between
                scaled += Double(between) * scale
                low = active
            }
            markHits(from: low, to: capacities.count, distance: distance, scaled: scaled, size: size)
        }

        @inline(__always) mutating func markHits(from low: Int, to high: Int, distance: Int, scaled: Double, size: Int) {
            guard low < high else { return }
            let first = isSampled
                ? firstIndex(from: low, to: high) { Double($0) >= scaled }
                : firstIndex(from: low, to: high) { $0 >= distance }
            guard first < high else { return }
            hitDiff[first] += 1
            hitDiff[high] -= 1
            byteDiff[first] += ByteTotal(size)
            byteDiff[high] -= ByteTotal(size)
        }

        /// `band`'s tree, made empty on first use (the request adding to it is the band's
        /// first object).
        mutating func tree(_ band: Int) -> PrefixSumTree {
            if let tree = trees[band] { return tree }
            let tree = PrefixSumTree(count: positions)
            trees[band] = tree
            activeBands.append(band)
            activeBands.sort()
            return tree
        }

        /// Positions ran out: the keys keep their order but get positions 0..<k, and the
        /// trees are rebuilt; the position space doubles when more than half is in use.
        /// O(positions), no sort: positions are distinct.
        mutating func renumber() {
            var slotAt = Array(repeating: Int32(-1), count: positions)
            for slot in keys.indices { slotAt[keys[slot].lastPosition] = Int32(slot) }
            if keys.count * 2 > positions { positions *= 2 }
            var values = Array(repeating: [Int](), count: capacities.count)
            for band in activeBands { values[band] = Array(repeating: 0, count: positions) }
            var newPosition = 0
            for slot in slotAt where slot >= 0 {
                let slot = Int(slot)
                keys[slot].lastPosition = newPosition
                let band = Int(keys[slot].band)
                if band < capacities.count, trees[band] != nil { values[band][newPosition] = keys[slot].size }
                newPosition += 1
            }
            for band in activeBands {
                trees[band]?.deallocate()
                trees[band] = PrefixSumTree(values: values[band], count: positions)
            }
            next = newPosition
        }

        /// Frees the index and the trees (once, when the pass ends or fails).
        func deallocate() {
            index.deallocate()
            for band in activeBands { trees[band]?.deallocate() }
        }

        mutating func finish() -> Result {
            var hits = 0
            var bytes: ByteTotal = 0
            var tooLarge = 0
            for point in capacities.indices {
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
