import WorkbenchCore
/// libCacheSim's One Block Lookahead (cache/prefetch/OBL.c at aa0fc40): when the last k
/// demand requests (hits too, this one included) were the ids id−k+1 … id in order, the
/// object id+1 is inserted at `block-size` bytes (whatever its own size; under
/// `--ignore-obj-size` too, as the C inserts `block_size` into a cache counted in objects).
/// `OBL_handle_find` (lines 91–107) compares the ring of the k previous ids, oldest first,
/// with id−k … id−1 (UInt64 arithmetic that wraps, the ring starting at UInt64.max), then
/// records the id; `OBL_prefetch` (116–134) asks for id+1 once.
///
/// Complexity: O(k) per request, O(k) memory.
struct OBLPrefetcher: Prefetcher {
    let blockSize: Int
    let confidence: Int
    /// The last `confidence` ids, a ring whose newest is at `newest`.
    private var previous: [UInt64]
    private var newest = 0
    private var sequential = false

    /// libCacheSim's defaults: block-size 512, sequential-confidence-k 4 (OBL.c:35–40).
    init(blockSize: Int = 512, confidence: Int = 4) {
        self.blockSize = blockSize
        self.confidence = confidence
        previous = [UInt64](repeating: .max, count: confidence)
    }

    mutating func found(_ id: UInt64, size: Int, hit: Bool) {
        let k = confidence
        sequential = (0..<k).allSatisfy { previous[(newest + 1 + $0) % k] == id &- UInt64(k) &+ UInt64($0) }
        newest = (newest + 1) % k
        previous[newest] = id
    }

    mutating func candidates(after id: UInt64) -> [(id: UInt64, size: Int)] {
        guard sequential else { return [] }
        sequential = false
        return [(id &+ 1, blockSize)]
    }

    var settings: String { "prefetch=obl;prefetch-params=block-size=\(blockSize),sequential-confidence-k=\(confidence)" }
}
