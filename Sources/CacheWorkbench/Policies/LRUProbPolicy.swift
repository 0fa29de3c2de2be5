import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// LRU-Prob, as libCacheSim's `LRUProb.c` (`LRU_Prob_find`): LRU whose hits move the object
/// to the head only with probability `prob` (0.5): when `next_rand() % threshold == 0`, with
/// `threshold = (int)(1 / prob)` as `LRU_Prob_init` computes it (`prob` read as a C float,
/// `strtof`). Saves list updates on hits. The draws reproduce libCacheSim's generator and
/// seed (`LibCacheSimRandom`: lehmer64 from 0xdeadbeef as the PyPI package, or mmix from 0).
///
/// Complexity: hit O(1), admit O(1), evict O(1).
struct LRUProbPolicy: TailEvictingPolicy {
    typealias Meta = Void
    var queue = Nodes.Queue()
    private var generator: LibCacheSimRandom
    private let probability: Float
    /// A hit promotes when `next_rand() % threshold == 0`.
    let threshold: UInt64

    init(capacity: Int, options: PolicyOptions) throws {
        let text = options.values["prob"] ?? "0.5"
        guard let value = Float(text.trimmingSpaces), value > 0, value <= 1 else {
            throw WorkbenchError("--prob must be a number above 0 and at most 1, not \(ErrorText.quote(text))")
        }
        probability = value
        // C: `(int)1.0 / params->prob`, the float widened to double, the quotient truncated.
        threshold = UInt64(max(1, min(Double(Int32.max), (1.0 / Double(value)).rounded(.towardZero))))
        generator = try LibCacheSimRandom(options: options)
    }

    var newMeta: Void { () }
    var settings: String { "prob=\(probability);\(generator.settings)" }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        if generator.next() % threshold == 0 { nodes.moveToHead(slot, &queue) }
    }
}

/// Its draws are libCacheSim's `next_rand`, shared with an admissioner in front.
extension LRUProbPolicy: LibCacheSimRandomized {
    var libCacheSimRandom: LibCacheSimRandom { generator }
}
