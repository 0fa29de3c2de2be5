import Foundation
import Testing
@testable import CacheWorkbench
@testable import WorkbenchReports
@testable import WorkbenchCommands
@testable import WorkbenchCore
@testable import WorkbenchMetrics
@testable import WorkbenchTraces
@testable import WorkbenchHTTP
@testable import WorkbenchBackends
@testable import WorkbenchSimulation
@testable import WorkbenchExperiments

@Suite("One-pass LRU miss-ratio curves", .onTestWorkers)
struct MissRatioCurveTests {
    /// Requests with sizes that change per key (a size change is what the curve reports).
    private func sizedTrace() -> [Request] { zipfRequests(requests: 20_000, images: 2_000, seed: 4) }

    @Test("equal to separate lru replays at every capacity, too-large objects included")
    func exact() throws {
        let requests = sizedTrace()
        let largest = requests.map(\.size).max() ?? 0
        // From below the largest object (several bands) to above the working set.
        let capacities = [largest / 8, largest / 2, largest, 1 << 20, 3 << 20, 8 << 20, 64 << 20, 1 << 30]
        let source = try InMemoryTrace(label: "t", requests: requests).open(keepKeyNames: false)
        let curve = try LRUMissRatioCurve.compute(source, capacities: capacities)
        #expect(curve.sizeChanges == 0)
        #expect(curve.requests == requests.count)
        for point in curve.points {
            let tally = try replayUntimed(requests, backend: LRUCache(capacity: point.capacity), capacity: point.capacity)
            #expect(point.hits == tally.hits && point.hitBytes == tally.hitBytes && point.tooLarge == tally.tooLarge, "at \(point.capacity)")
        }
        #expect(curve.points.contains { $0.tooLarge > 0 } && curve.points.contains { $0.tooLarge == 0 && $0.hits > 0 })
    }

    @Test("positions are renumbered when they run out, without changing the curve")
    func renumbering() throws {
        // 200k requests pass the first 65,536 positions several times; sizes in several bands.
        let requests = zipfRequests(requests: 200_000, images: 5_000, seed: 2)
        let largest = requests.map(\.size).max() ?? 0
        let source = try InMemoryTrace(label: "t", requests: requests).open(keepKeyNames: false)
        let curve = try LRUMissRatioCurve.compute(source, capacities: [largest / 4, largest, 8 << 20, 256 << 20], expectedRequests: 0)
        for point in curve.points {
            let tally = try replayUntimed(requests, backend: LRUCache(capacity: point.capacity), capacity: point.capacity)
            #expect(point.hits == tally.hits && point.hitBytes == tally.hitBytes, "at \(point.capacity)")
        }
        // With the trace's length and keys known, the position space is capped at 4 a key
        // (here the 65,536 minimum, not 200k): renumbered too, the same curve.
        let known = try LRUMissRatioCurve.compute(
            try InMemoryTrace(label: "t", requests: requests).open(keepKeyNames: false),
            capacities: [largest / 4, largest, 8 << 20, 256 << 20], expectedRequests: requests.count, expectedKeys: 5_000)
        #expect(known.points == curve.points)
    }

    @Test("a trace needing at most a quarter more positions than 4 a key keeps one a request: not renumbered, the same curve")
    func positionPerRequestWithinAQuarter() throws {
        // 100k requests want 101,024 positions (above the 65,536 minimum): capped at 4 a key for
        // 20,000 keys expected (80,000: over a quarter less), kept for 20,400 (81,600: within).
        let requests = zipfRequests(requests: 100_000, images: 5_000, seed: 3)
        let largest = requests.map(\.size).max() ?? 0
        let capacities = [largest / 4, largest, 8 << 20, 256 << 20]
        func curve(expectedKeys: Int) throws -> (points: [LRUMissRatioCurve.Point], renumberings: Int) {
            let pass = LRUMissRatioCurve.Pass(capacities: capacities, expectedRequests: requests.count, expectedKeys: expectedKeys)
            try requests.withUnsafeBufferPointer { try pass.feed($0) }
            return (pass.finish(skippedRows: 0).points, pass.renumberings)
        }
        let capped = try curve(expectedKeys: 20_000)
        let kept = try curve(expectedKeys: 20_400)
        #expect(capped.renumberings > 0)
        #expect(kept.renumberings == 0)
        #expect(capped.points == kept.points)
    }

    /// Thirty capacities, twenty of them below the largest object: the bands below the top
    /// band and their skips (a band with nothing after the last position, a distance past
    /// every capacity below the top) against replays. The largest objects come only in the
    /// second half, so the top band rises mid-trace and the old top's tree is built then; few
    /// positions at first, so they are renumbered several times.
    @Test("many bands, the top band rising mid-trace, positions renumbered: equal to lru replays at every capacity")
    func manyBands() throws {
        var random = SeededRandom(seed: 21)
        // Sizes per key from 1 byte to 4 MiB, log-uniform; fixed per key.
        let sizes = (0..<3_000).map { _ in Int(exp(Double.random(in: 0..<1, using: &random) * log(4_194_304.0))) + 1 }
        let median = sizes.sorted()[sizes.count / 2]
        let ids = zipfRequests(requests: 60_000, images: 3_000, seed: 8).map { Int($0.id % 3_000) }
        var requests: [Request] = []
        for (index, id) in ids.enumerated() {
            // First half: only keys at most the median size (their bands are the top until then).
            if index < ids.count / 2, sizes[id] > median { continue }
            requests.append(Request(time: Double(index), id: UInt64(id), size: sizes[id]))
        }
        let largest = sizes.max()!
        let capacities = (0..<30).map { Int(Double(largest) / 1_000 * pow(10_000, Double($0) / 29)) }
        let source = try InMemoryTrace(label: "t", requests: requests).open(keepKeyNames: false)
        let curve = try LRUMissRatioCurve.compute(source, capacities: capacities, expectedRequests: 0)
        #expect(curve.sizeChanges == 0 && capacities.filter { $0 < largest }.count >= 20)
        for point in curve.points {
            let tally = try replayUntimed(requests, backend: LRUCache(capacity: point.capacity), capacity: point.capacity)
            #expect(point.hits == tally.hits && point.hitBytes == tally.hitBytes && point.tooLarge == tally.tooLarge, "at \(point.capacity)")
        }
        #expect(curve.points.filter { $0.capacity < largest && $0.hits > 0 }.count >= 10)
    }

    /// A trace for the bands' logs: sizes log-uniform from 150 KB to `largest`, fixed per key,
    /// the larger half only from the trace's half on (the top band rises then); every third
    /// request for key 1 or 2 in turn, both of 180 KB (a low band's log fills with their dead
    /// entries, each requested again after the other); with
    /// `small`, every 25th key only from the last quarter on, of 1–64 KiB.
    private func logTrace(requests count: Int, largest: Double, small: Bool, seed: UInt64) -> [Request] {
        var random = SeededRandom(seed: seed)
        var sizes = (0..<4_000).map { _ in Int(exp(log(150_000.0) + Double.random(in: 0..<1, using: &random) * log(largest / 150_000))) }
        sizes[1] = 180_000
        sizes[2] = 180_000
        let median = sizes.sorted()[sizes.count / 2]
        let ids = zipfRequests(requests: count, images: 4_000, seed: seed).enumerated().map {
            $0.offset % 3 == 0 ? 1 + $0.offset / 3 % 2 : Int($0.element.id % 4_000)
        }
        var requests: [Request] = []
        for (index, id) in ids.enumerated() {
            if index < count / 2, sizes[id] > median { continue }
            var size = sizes[id]
            if small, id % 25 == 0 {
                if index < count * 3 / 4 { continue }
                size = 1_024 + Int(UInt64(id) &* 2_654_435_761 % 64_512)
            }
            requests.append(Request(time: Double(index), id: UInt64(id), size: size))
        }
        return requests
    }

    /// Feeds `requests` to a curve in parts (cut at the given times), the bands' structures
    /// after each, and checks every capacity against a replay.
    private func logCurve(_ requests: [Request], capacities: [Int], cuts: [Double]) throws -> [(logs: Int, trees: Int, compactions: Int, logsMadeTrees: Int)] {
        let pass = LRUMissRatioCurve.Pass(capacities: capacities, expectedRequests: 0)
        var structures: [(logs: Int, trees: Int, compactions: Int, logsMadeTrees: Int)] = []
        var start = 0
        for cut in cuts + [.infinity] {
            let end = requests.firstIndex { $0.time >= cut } ?? requests.count
            try requests[start..<end].withUnsafeBufferPointer { try pass.feed($0) }
            structures.append(pass.bandStructures)
            start = end
        }
        let curve = pass.finish(skippedRows: 0)
        #expect(curve.sizeChanges == 0)
        for point in curve.points {
            let tally = try replayUntimed(requests, backend: LRUCache(capacity: point.capacity), capacity: point.capacity)
            #expect(point.hits == tally.hits && point.hitBytes == tally.hitBytes && point.tooLarge == tally.tooLarge, "at \(point.capacity)")
        }
        let largest = requests.map(\.size).max()!
        #expect(curve.points.filter { $0.capacity < largest && $0.hits > 0 }.count >= 10)
        return structures
    }

    /// Bands of few large objects keep logs instead of trees (the capacity below the top is at
    /// most `logReach` of their smallest objects). Objects up to twice `logReach` × 150 KB, the
    /// larger half from the trace's half on: the top band rises, and the lowest bands' logs,
    /// which would now read too far, become trees. Positions renumbered (more requests than
    /// the 65,536 first positions); dead entries dropped (key 1).
    @Test("bands kept as logs, made trees when the top rises, dead entries dropped, renumbered: equal to lru replays")
    func bandLogsTopRising() throws {
        let largest = 150_000 * 2 * Double(LRUMissRatioCurve.logReach)
        let requests = logTrace(requests: 90_000, largest: largest, small: false, seed: 9)
        let capacities = (0..<24).map { Int(200_000 * pow(2 * largest / 200_000, Double($0) / 23)) }
        let structures = try logCurve(requests, capacities: capacities, cuts: [45_000])
        #expect(structures[0].logs >= 5 && structures[0].trees == 0 && structures[0].compactions > 0, "\(structures[0])")
        #expect(structures[1].logs >= 3 && structures[1].trees >= 1 && structures[1].logsMadeTrees >= 1, "\(structures[1])")
    }

    /// Objects up to `logReach` / 2 × 150 KB (so the top band's rise turns no log into a
    /// tree), and from the last quarter on objects of 1–64 KiB: the lowest band's smallest
    /// object falls, and its log becomes a tree.
    @Test("a log made a tree when smaller objects come: equal to lru replays")
    func bandLogsSmallerObjects() throws {
        let largest = 150_000 * Double(LRUMissRatioCurve.logReach) / 2
        let requests = logTrace(requests: 40_000, largest: largest, small: true, seed: 10)
        let capacities = (0..<24).map { Int(200_000 * pow(2 * largest / 200_000, Double($0) / 23)) }
        let structures = try logCurve(requests, capacities: capacities, cuts: [30_000])
        #expect(structures[0].logs >= 5 && structures[0].trees == 0, "\(structures[0])")
        #expect(structures[1].trees >= 1 && structures[1].logsMadeTrees >= 1, "\(structures[1])")
    }

    /// The curve's own definition, computed naively: a request fits C and its key was requested
    /// before, and its size plus the sizes (each at its key's last request) of the other keys
    /// requested since, those that fit C, is at most C.
    private func naiveHits(_ requests: [Request], capacity: Int) -> (hits: Int, tooLarge: Int) {
        var last: [UInt64: (time: Int, size: Int)] = [:]
        var hits = 0
        var tooLarge = 0
        for (time, request) in requests.enumerated() {
            if request.size > capacity {
                tooLarge += 1
            } else if let previous = last[request.id] {
                var distance = request.size
                for (id, entry) in last where id != request.id && entry.time > previous.time && entry.size <= capacity { distance += entry.size }
                if distance <= capacity { hits += 1 }
            }
            last[request.id] = (time, request.size)
        }
        return (hits, tooLarge)
    }

    /// Keys changing size across bands (so their log entries die without a new one in the
    /// same band), now and then to a few bytes (a log band's smallest falls), a third of the
    /// requests for key 0 or 1 in turn, of one size (their dead entries dropped), against the
    /// naive definition (replays keep a stored size on a hit, so they may differ here).
    @Test("keys changing size across log bands: equal to the curve's definition computed naively")
    func bandLogsSizeChanges() throws {
        var random = SeededRandom(seed: 45)
        var sizes = (0..<150).map { _ in Int.random(in: 100_000...1_000_000, using: &random) }
        var requests: [Request] = []
        for (index, request) in zipfRequests(requests: 4_000, images: 150, seed: 6).enumerated() {
            let id = index % 3 == 0 ? index / 3 % 2 : Int(request.id % 150)
            let draw = Double.random(in: 0..<1, using: &random)
            if id < 2 {
                sizes[id] = 180_000  // keys 0 and 1 keep one size, in one band
            } else if draw < 0.01 {
                sizes[id] = Int.random(in: 1...2_000, using: &random)
            } else if draw < 0.06 {
                sizes[id] = Int.random(in: 100_000...1_000_000, using: &random)
            }
            requests.append(Request(time: Double(index), id: UInt64(id), size: sizes[id]))
        }
        let capacities = [150_000, 200_000, 260_000, 330_000, 420_000, 530_000, 670_000, 850_000, 1_000_000, 1_200_000, 2_000_000, 8_000_000]
        let pass = LRUMissRatioCurve.Pass(capacities: capacities)
        try requests.withUnsafeBufferPointer { try pass.feed($0) }
        let structures = pass.bandStructures
        #expect(structures.logs + structures.logsMadeTrees >= 5 && structures.compactions > 0, "\(structures)")
        let curve = pass.finish(skippedRows: 0)
        #expect(curve.sizeChanges > 100)
        for point in curve.points {
            let naive = naiveHits(requests, capacity: point.capacity)
            #expect(point.hits == naive.hits && point.tooLarge == naive.tooLarge, "at \(point.capacity)")
        }
        #expect(curve.points.filter { $0.capacity < 1_000_000 && $0.hits > 0 }.count >= 5)
    }

    /// Keys of 1–4 KB (60%) and of 8 KB–512 KB: the lowest band keeps a tree, and a request
    /// whose last position is far enough back that the band's objects since sum past the
    /// largest capacity below the top skips every band (`Engine.skipThrough`). With `changes`,
    /// keys now and then shrink within the lowest band, leave it or enter it, which must clear
    /// the bound; the largest objects come only from the trace's half on (the ceiling rises).
    private func skipBoundTrace(requests count: Int, keys: Int, changes: Bool, seed: UInt64) -> [Request] {
        var random = SeededRandom(seed: seed)
        func draw() -> Int {
            Double.random(in: 0..<1, using: &random) < 0.6
                ? Int.random(in: 1_000...4_000, using: &random)
                : Int(exp(log(8_000.0) + Double.random(in: 0..<1, using: &random) * log(64.0)))
        }
        var sizes = (0..<keys).map { _ in draw() }
        var requests: [Request] = []
        for (index, request) in zipfRequests(requests: count, images: keys, seed: seed).enumerated() {
            let id = Int(request.id % UInt64(keys))
            if changes {
                let roll = Double.random(in: 0..<1, using: &random)
                if roll < 0.005, sizes[id] > 1_000 {
                    sizes[id] = Int.random(in: 1_000..<min(sizes[id], 4_000), using: &random)  // shrinks, into or within the band
                } else if roll < 0.01 {
                    sizes[id] = draw()
                }
            }
            if index < count / 2, sizes[id] > 100_000 { continue }
            requests.append(Request(time: Double(index), id: UInt64(id), size: sizes[id]))
        }
        return requests
    }

    @Test("requests far back skip the bands below the top, positions renumbered: equal to lru replays, most skipped")
    func skipBoundsSkip() throws {
        let requests = skipBoundTrace(requests: 80_000, keys: 8_000, changes: false, seed: 12)
        let capacities = (0..<30).map { Int(4_096 * pow(16_384, Double($0) / 29)) }
        let pass = LRUMissRatioCurve.Pass(capacities: capacities, expectedRequests: 0)
        try requests.withUnsafeBufferPointer { try pass.feed($0) }
        let structures = pass.bandStructures
        #expect(structures.trees >= 1, "\(structures)")
        let reads = pass.belowTopReads
        let curve = pass.finish(skippedRows: 0)
        // Almost every request is below the top; a third at most read the bands.
        #expect(reads > 0 && reads < requests.count / 3, "\(reads) of \(requests.count)")
        for point in curve.points {
            let tally = try replayUntimed(requests, backend: LRUCache(capacity: point.capacity), capacity: point.capacity)
            #expect(point.hits == tally.hits && point.hitBytes == tally.hitBytes && point.tooLarge == tally.tooLarge, "at \(point.capacity)")
        }
        let largest = requests.map(\.size).max()!
        #expect(curve.points.filter { $0.capacity < largest && $0.hits > 0 }.count >= 15)
    }

    @Test("keys shrinking in, leaving and entering the lowest band, the ceiling rising: equal to the naive definition")
    func skipBoundsCleared() throws {
        let requests = skipBoundTrace(requests: 7_000, keys: 500, changes: true, seed: 13)
        // The ceiling is 65,536 until objects above 131,072 come, then 131,072.
        let capacities = [4_096, 8_192, 16_384, 32_768, 65_536, 131_072, 600_000, 4_000_000]
        let pass = LRUMissRatioCurve.Pass(capacities: capacities, expectedRequests: 0)
        try requests.withUnsafeBufferPointer { try pass.feed($0) }
        let reads = pass.belowTopReads
        let curve = pass.finish(skippedRows: 0)
        #expect(curve.sizeChanges > 30 && reads < requests.count / 2, "\(curve.sizeChanges), \(reads)")
        for point in curve.points {
            let naive = naiveHits(requests, capacity: point.capacity)
            #expect(point.hits == naive.hits && point.tooLarge == naive.tooLarge, "at \(point.capacity)")
        }
        #expect(curve.points.filter { $0.capacity <= 65_536 && $0.hits > 0 }.count >= 4)
    }

    /// The hits of `sizes` (key, size) at `capacities`, checked against the naive definition.
    private func handHits(_ sizes: [(UInt64, Int)], capacities: [Int]) throws -> [Int] {
        let requests = sizes.enumerated().map { Request(time: Double($0.offset), id: $0.element.0, size: $0.element.1) }
        let pass = LRUMissRatioCurve.Pass(capacities: capacities)
        try requests.withUnsafeBufferPointer { try pass.feed($0) }
        let curve = pass.finish(skippedRows: 0)
        for point in curve.points { #expect(point.hits == naiveHits(requests, capacity: point.capacity).hits, "at \(point.capacity)") }
        return curve.points.map(\.hits)
    }

    /// By hand, each case a bound (`Engine.skipThrough`) that must not skip A's last request. Z
    /// (5,000) makes the top band; A (10) comes early; then objects not below the top (Y,
    /// 5,000 each, or Z again) fill positions, then F1–F10 (100 each) and G (50): the lowest
    /// band's objects after A sum 1,050, past the ceiling of 1,000, and G's second request
    /// finds the bound (A's position is before it, whatever the cells' size up to 64).
    @Test("hand-computed: a key leaving or shrinking in the lowest band, the ceiling rising, a lower band: the skip is cleared")
    func skipBoundsHand() throws {
        let fillers = (0..<10).map { (UInt64(10 + $0), 100) }
        let ys = { (count: Int) in (0..<count).map { (UInt64(100 + $0), 5_000) } }
        let start: [(UInt64, Int)] = [(900, 5_000), (1, 10)] + ys(64) + fillers + [(20, 50), (20, 50)]
        // F1 leaves the lowest band (to 5,000): A's distance at 1,000 is 10 + 950. At 10,000
        // G hits, and F1 (5,000 + 950); A's distance there counts the Y's.
        #expect(try handHits(start + [(10, 5_000), (1, 10)], capacities: [1_000, 10_000]) == [2, 2])
        // F1 shrinks to 40 in its band: A's distance at 1,000 is 10 + 990, and F1's 40 + 950.
        #expect(try handHits(start + [(10, 40), (1, 10)], capacities: [1_000, 10_000]) == [3, 2])
        // The ceiling rises to 100,000 (W, 500,000), and the old top band (Z and the Y's, 2,000
        // each) gets a tree: A's distance there is 10 + Z's 2,000 + 1,050. Z requested 30 times
        // in a row, the first after the Y's (2,000 + 40 × 2,000 + 10): 30 hits at 100,000 and above.
        let rising: [(UInt64, Int)] = [(900, 2_000)] + ys(40).map { ($0.0, 2_000) } + [(1, 10)]
            + Array(repeating: (900, 2_000), count: 30) + fillers + [(20, 50), (20, 50), (30, 500_000), (1, 10)]
        #expect(try handHits(rising, capacities: [1_000, 100_000, 1_000_000]) == [1, 32, 32])
        // A (20) comes back at 5 bytes, in a band below the bound's: it fits 10 alone.
        let lower: [(UInt64, Int)] = [(900, 5_000), (1, 20)] + ys(64) + fillers + [(20, 50), (20, 50), (1, 5)]
        #expect(try handHits(lower, capacities: [10, 1_000, 10_000]) == [1, 1, 1])
    }

    /// By hand, bounds per range of capacities (`skipThrough`): capacities 100, 1,000 and
    /// 10,000, Z (5,000) the top band, so 100 and 1,000 are ranges below the top, the first
    /// counting objects up to 100, the second all up to 1,000. G's second request finds the
    /// bounds; A's last request reads or skips by them.
    @Test("hand-computed: a range's bound skips only the capacities from it up, and a lower range's does not skip higher ones")
    func rangeBoundsHand() throws {
        // Objects after A: G (50), B1 and B2 (600 each); before A: S1–S3 (40 each). The 1,000
        // range's bound is A's position (B1, B2 and G pass 1,000 after it), the 100 range's is
        // before S2 (G, A, S3 and S2 pass 100): A reads, hits at 100 (10 + 50), stops at the
        // 1,000 range (skipped), and hits at 10,000 (10 + 1,250 + 50 counted from the top).
        let higherNearer: [(UInt64, Int)] = [(900, 5_000), (11, 40), (12, 40), (13, 40), (1, 10), (21, 600), (22, 600), (30, 50), (30, 50), (1, 10)]
        #expect(try handHits(higherNearer, capacities: [100, 1_000, 10_000]) == [2, 1, 2])
        // After A only S1–S3 and G (170): the 100 range's bound is after A (G, S3 and S2 pass
        // 100), but the 1,000 range has none, so A must not skip: it misses at 100 (10 + 170)
        // and hits at 1,000 and 10,000.
        let lowerNearer: [(UInt64, Int)] = [(900, 5_000), (1, 10), (11, 40), (12, 40), (13, 40), (30, 50), (30, 50), (1, 10)]
        #expect(try handHits(lowerNearer, capacities: [100, 1_000, 10_000]) == [1, 2, 2])
    }

    /// The capacity a distance reaches is searched from a bucket of the distance's leading
    /// bits (its highest bit and the two below): capacities of 1 to 4 bytes (the buckets of
    /// one and two bits), on and either side of powers of two and of the buckets' quarter
    /// bounds, repeated, and far apart, against replays.
    @Test("capacities of every magnitude from 1 byte, on and beside bucket bounds, repeated: equal to lru replays")
    func capacitySearch() throws {
        var random = SeededRandom(seed: 33)
        // Sizes from 1 byte to 64 KiB, log-uniform, fixed per key; 400 keys, Zipf-like reuse.
        let sizes = (0..<400).map { _ in Int(exp(Double.random(in: 0..<1, using: &random) * log(65_536.0))) }
        let ids = zipfRequests(requests: 8_000, images: 400, seed: 5).map { Int($0.id % 400) }
        let requests = ids.enumerated().map { Request(time: Double($0.offset), id: UInt64($0.element), size: sizes[$0.element]) }
        let capacities = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16, 17, 20, 20, 24, 28, 31, 32, 33, 1_023, 1_024, 1_025,
                          1_279, 1_280, 1_281, 40_000, 65_535, 65_536, 65_536, 65_537, 300_000, 5_000_000]
        let source = try InMemoryTrace(label: "t", requests: requests).open(keepKeyNames: false)
        let curve = try LRUMissRatioCurve.compute(source, capacities: capacities)
        for point in curve.points {
            let tally = try replayUntimed(requests, backend: LRUCache(capacity: point.capacity), capacity: point.capacity)
            #expect(point.hits == tally.hits && point.hitBytes == tally.hitBytes && point.tooLarge == tally.tooLarge, "at \(point.capacity)")
        }
        #expect(curve.points.filter { $0.capacity <= 33 && $0.hits > 0 }.count >= 5)
    }

    @Test("hand-computed distances; a size change is counted")
    func hand() throws {
        // A(2) B(3) A: distance 2 + 3 = 5. C(1) B: 3 + 2 + 1 = 6. A(4, changed): 4 + 1 + 3 = 8.
        let sizes: [(UInt64, Int)] = [(1, 2), (2, 3), (1, 2), (3, 1), (2, 3), (1, 4)]
        let requests = sizes.enumerated().map { Request(time: Double($0.offset), id: $0.element.0, size: $0.element.1) }
        let source = try InMemoryTrace(label: "t", requests: requests).open(keepKeyNames: false)
        let curve = try LRUMissRatioCurve.compute(source, capacities: [4, 5, 6, 8])
        #expect(curve.points.map(\.hits) == [0, 1, 2, 3])
        #expect(curve.points.map(\.hitBytes) == [0, 2, 5, 9])
        #expect(curve.sizeChanges == 1)
    }

    /// Capacities 100 and 1,000, Z (500) first: objects up to 100 bytes are a band below the
    /// top, kept as a log. A(60) requested 1,000 times in a row keeps its one entry (no read
    /// meets the entries a key requested again with nothing between would leave dead, so they
    /// would pile up); then B(30) and A again: 60 + 30 fits 100.
    @Test("hand-computed: a key requested again with nothing between keeps its log entry")
    func logKeptEntry() throws {
        var sizes: [(UInt64, Int)] = [(9, 500)] + Array(repeating: (1, 60), count: 1_000)
        sizes += [(2, 30), (1, 60)]
        let requests = sizes.enumerated().map { Request(time: Double($0.offset), id: $0.element.0, size: $0.element.1) }
        let pass = LRUMissRatioCurve.Pass(capacities: [100, 1_000])
        try requests[..<1_001].withUnsafeBufferPointer { try pass.feed($0) }
        #expect(pass.bandStructures.logs == 1 && pass.logEntries == 1)
        try requests[1_001...].withUnsafeBufferPointer { try pass.feed($0) }
        #expect(pass.logEntries == 3)  // A's entry before B's died; B; A
        let curve = pass.finish(skippedRows: 0)
        #expect(curve.points.map(\.hits) == [1_000, 1_000])
        #expect(curve.points.map(\.hitBytes) == [60_000, 60_000])
    }

    @Test("SHARDS samples about the rate's share of keys and stays near the exact curve")
    func shards() throws {
        let requests = zipfRequests(requests: 100_000, images: 10_000, seed: 3).map { Request(time: $0.time, id: $0.id, size: 1) }
        // Capacities where the sampled cache holds 100 keys or more (at 100 it holds ~10,
        // and which of the hottest keys libCacheSim's hash samples decides the ratio: 0.12
        // off there, see docs/mrc.md).
        let capacities = [1000, 5000, 20000]
        let exact = try LRUMissRatioCurve.compute(try InMemoryTrace(label: "t", requests: requests).open(keepKeyNames: false), capacities: capacities)
        let sampled = try LRUMissRatioCurve.compute(
            try InMemoryTrace(label: "t", requests: requests).open(keepKeyNames: false), capacities: capacities, samplingRate: 0.1)
        #expect(sampled.requests > 5_000 && sampled.requests < 20_000)
        for (point, reference) in zip(sampled.points, exact.points) {
            let error = abs((sampled.objectMissRatio(point) ?? 0) - (exact.objectMissRatio(reference) ?? 0))
            #expect(error < 0.05, "at \(point.capacity): error \(error)")
        }
    }

    @Test("bench mrc: a table, a CSV row per capacity, one-line errors")
    func command() throws {
        let folder = TemporaryFolder()
        let csv = folder.path + "/mrc.csv"
        let run = try bench(["mrc", "--points", "12", "--csv", csv])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("exact LRU stack distances"))
        let rows = try csvRows(csv)
        #expect(rows.count == 12 && rows.allSatisfy { $0["method"] == "mattson" && $0["policy"] == "lru" })
        let bad = try bench(["mrc", "--policy", "nscache"])
        #expect(bad.status == 2 && bad.err.split(separator: "\n").count == 1 && bad.err.hasPrefix("bench: error:"))
        let rate = try bench(["mrc", "--sampling-rate", "2"])
        #expect(rate.status == 2 && rate.err.contains("--sampling-rate"))
        let shards = try bench(["mrc", "--points", "5", "--sampling-rate", "50%", "--against-exact"])
        #expect(shards.status == 0 && shards.out.contains("SHARDS_adj at rate 0.5") && shards.out.contains("error against the exact curve"))
    }
}
