import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The main cache libCacheSim's QD-LP and S3-FIFOd build with `main-cache` (`QDLP.c`,
/// `S3FIFOd.c` `_init`): its `Clock.c` with a 2-bit counter (clock2, their default), a 1-bit
/// (clock) or 3-bit (clock3) one, or a FIFO (a counter that never rises). A hit raises the
/// counter to its maximum at most; eviction gives each oldest object with a counter above 0
/// one less and a place at the head, and takes the first at 0 (`Clock_evict`).
///
/// Complexity: hit O(1); evict O(1) amortized (each reinsertion spends a hit).
struct MainClock {
    /// The `main-cache` value, lowercased.
    let kind: String
    /// 2^bits − 1 (0 for fifo).
    let maximumCount: Int32

    init(options: PolicyOptions) throws {
        kind = options.values["main-cache"]?.lowercased() ?? "clock2"
        switch kind {
        case "fifo": maximumCount = 0
        case "clock": maximumCount = 1
        case "clock2": maximumCount = 3
        case "clock3": maximumCount = 7
        default: throw WorkbenchError("--main-cache must be fifo, clock, clock2 or clock3 (libCacheSim's others are not offered), not \(ErrorText.quote(kind))")
        }
    }

    /// `Clock_evict` over `queue`: unlinks and returns the victim; `count` reads and writes
    /// an object's counter in its metadata.
    func evict<Meta>(_ queue: inout PolicyNodes<Meta>.Queue, _ nodes: inout PolicyNodes<Meta>,
                     count: WritableKeyPath<Meta, Int32>) -> Int32 {
        let victim = nextVictim(&queue, &nodes, count: count)
        nodes.unlink(victim, &queue)
        return victim
    }

    /// `Clock_evict`'s walk: the oldest object with a counter at 0, left linked (the counters
    /// it lowered and the objects it sent round stay so).
    func nextVictim<Meta>(_ queue: inout PolicyNodes<Meta>.Queue, _ nodes: inout PolicyNodes<Meta>,
                          count: WritableKeyPath<Meta, Int32>) -> Int32 {
        var victim = queue.tail
        while nodes[victim].meta[keyPath: count] >= 1 {
            nodes[victim].meta[keyPath: count] -= 1
            nodes.moveToHead(victim, &queue)
            victim = queue.tail
        }
        return victim
    }
}
