import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// FlashProb, a DRAM cache in front of a flash cache that admits a random share of what
/// DRAM evicts, as libCacheSim's `other/flashProb.c` (`flashProb_find`, `_insert`,
/// `_evict`): an LRU "ram" of `ram-size-ratio` of the capacity (default 0.05) and a "disk"
/// of the rest, a FIFO (`disk-cache` = fifo, the default) or a 1-bit CLOCK (clock), each
/// with its own capacity. A hit in either counts (the LRU moves the object to its head);
/// every new object enters the ram — which, as libCacheSim's `ram->insert`, never evicts
/// for it and may exceed its share. Eviction, while the incoming object does not fit: with
/// the ram empty, the disk evicts; otherwise the ram's least recent object leaves it and,
/// when `next_rand() % ⌊1 / disk-admit-prob⌋ == 0` (default 0.2: 1 in 5), enters the disk
/// as the disk's own `get` would (the disk evicting for it within its capacity), else goes.
///
/// The draws are libCacheSim's `next_rand` (`LibCacheSimRandom`, lehmer64 from 0xdeadbeef as
/// the PyPI package runs it; `generator` and `seed` options), one per object leaving the
/// ram, so the counts equal libCacheSim's run in a fresh process.
///
/// Complexity: hit O(1); admit O(1); evict O(1) amortized (a disk CLOCK reinsertion spends
/// a hit).
struct FlashProbPolicy: VictimNamingPolicy {
    struct Meta {
        var onDisk: Bool
        /// The disk CLOCK's bit.
        var referenced: Bool
    }

    private(set) var ram = Nodes.Queue()
    private(set) var disk = Nodes.Queue()
    private let ramRatio: Double
    private let admitProbability: Double
    /// libCacheSim's `inv_prob = (int)(1.0 / disk_admit_prob)`.
    private let inverse: UInt64
    private let diskSize: Int
    private let diskIsClock: Bool
    private var random: LibCacheSimRandom
    /// RAM's oldest, sent to disk by its draw and waiting there for room (−1: none).
    private var mover: Int32 = -1
    /// The disk is evicting for `mover`, which does not fit it yet.
    private var moving = false

    init(capacity: Int, options: PolicyOptions) throws {
        ramRatio = try options.fraction("ram-size-ratio", default: 0.05)
        admitProbability = try options.number("disk-admit-prob", default: 0.2, range: 1.0e-9...1)
        inverse = UInt64(1.0 / admitProbability)
        // libCacheSim: (int64_t)cache_size * ratio, truncated; the disk has the rest.
        diskSize = capacity - Int(Double(capacity) * ramRatio)
        if let ramKind = options.values["ram-cache"], ramKind.lowercased() != "lru" {
            throw WorkbenchError("--ram-cache must be lru (libCacheSim's others are not offered), not \(ErrorText.quote(ramKind))")
        }
        switch options.values["disk-cache"]?.lowercased() ?? "fifo" {
        case "fifo": diskIsClock = false
        case "clock": diskIsClock = true
        case let other: throw WorkbenchError("--disk-cache must be fifo or clock, not \(ErrorText.quote(other))")
        }
        random = try LibCacheSimRandom(options: options)
    }

    var newMeta: Meta { Meta(onDisk: false, referenced: false) }
    var settings: String {
        "ram-size-ratio=\(ramRatio);disk-admit-prob=\(admitProbability);ram-cache=lru;disk-cache=\(diskIsClock ? "clock" : "fifo");\(random.settings)"
    }

    @inline(__always) mutating func hit(_ slot: Int32, _ nodes: inout Nodes) {
        if nodes[slot].meta.onDisk {
            nodes[slot].meta.referenced = true
        } else {
            forgetMover(slot)
            nodes.moveToHead(slot, &ram)
        }
    }

    /// An object waiting for room on disk that is hit or removed leaves RAM's tail: its
    /// draw no longer holds.
    @inline(__always) private mutating func forgetMover(_ slot: Int32) {
        if slot == mover {
            mover = -1
            moving = false
        }
    }

    @inline(__always) mutating func admit(_ slot: Int32, _ nodes: inout Nodes) { nodes.pushHead(slot, &ram) }

    @inline(__always) mutating func evict(_ nodes: inout Nodes, incoming: Int) -> Int32 { evictStep(&nodes, incoming: incoming) }

    /// The search: RAM's oldest goes unless a draw (probability `disk-admit-prob`) sends it
    /// to disk — the disk evicts for it (its FIFO or CLOCK) until it fits, in the same step
    /// (`stepUnfinished` meanwhile), and it moves then; with RAM empty, the disk evicts. If
    /// TinyLFU in front spares a victim, the draw and the disk's walk stay done and the object
    /// waits at RAM's tail for room, drawn for once.
    mutating func nextVictim(_ nodes: inout Nodes, incoming: Int) -> Int32 {
        while ram.count > 0 {
            let oldest = ram.tail
            if oldest != mover {
                guard random.next() % inverse == 0, nodes[oldest].cost <= diskSize else { return oldest }
                mover = oldest
            }
            if disk.bytes + nodes[oldest].cost > diskSize, disk.count > 0 { return nextDiskVictim(&nodes) }
            moveToDisk(&nodes)
        }
        return nextDiskVictim(&nodes)
    }

    /// Takes the named victim: from RAM; or from the disk, after which the object on its way
    /// there moves if it fits now (ending the step) or waits for the next victim.
    mutating func evictNamed(_ victim: Int32, _ nodes: inout Nodes, incoming: Int) -> Int32 {
        guard nodes[victim].meta.onDisk else {
            nodes.unlink(victim, &ram)
            return victim
        }
        nodes.unlink(victim, &disk)
        moving = false
        if mover >= 0 {
            if disk.bytes + nodes[mover].cost > diskSize, disk.count > 0 { moving = true } else { moveToDisk(&nodes) }
        }
        return victim
    }

    var stepUnfinished: Bool { moving }

    /// The disk's own get of the object the draw sent there, once it fits.
    private mutating func moveToDisk(_ nodes: inout Nodes) {
        nodes.unlink(mover, &ram)
        nodes[mover].meta = Meta(onDisk: true, referenced: false)
        nodes.pushHead(mover, &disk)
        mover = -1
    }

    /// The disk's victim: its oldest (FIFO), or the oldest with a clear bit (CLOCK, the
    /// bits it passes cleared and those objects sent round), left linked.
    private mutating func nextDiskVictim(_ nodes: inout Nodes) -> Int32 {
        var victim = disk.tail
        while diskIsClock && nodes[victim].meta.referenced {
            nodes[victim].meta.referenced = false
            nodes.moveToHead(victim, &disk)
            victim = disk.tail
        }
        return victim
    }

    mutating func removing(_ slot: Int32, _ nodes: inout Nodes) {
        forgetMover(slot)
        if nodes[slot].meta.onDisk { nodes.unlink(slot, &disk) } else { nodes.unlink(slot, &ram) }
    }
}

/// Its draws are libCacheSim's `next_rand`, shared with an admissioner in front.
extension FlashProbPolicy: LibCacheSimRandomized {
    var libCacheSimRandom: LibCacheSimRandom { random }
}
