import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// libCacheSim's random choices, reproduced so that its randomized and sampled policies
/// (Random, RandomTwo, Hyperbolic, LRU-Prob, BeladySize) make the same choices and so the
/// same counts.
///
/// `next_rand` has two forms in libCacheSim's history, both reproduced:
/// - `lehmer64` (the default): Lemire's Lehmer generator, a 128-bit state multiplied by
///   0xda942042e4dd58b5, returning its high 64 bits; the thread-local state starts at
///   0xdeadbeef and `set_rand_seed(s)` sets it to s. That is the C code inside the PyPI
///   package `libcachesim` 0.3.5 (its `.so` exports the TLS `g_lehmer64_state`, initialized
///   to 0xdeadbeef in `.tdata`; its `chained_hashtable_rand_obj_v2` multiplies by that
///   constant; no MMIX constant occurs in it), as in
///   https://github.com/access-bits/libCacheSim/blob/712e9fbbe10f911d4ee15f0ac4923f630bd2065b/libCacheSim/utils/mymath.c
///   and its `utils/include/mymath.h` ("this random number generator does not work" beside
///   the retired MMIX line). The package never calls `set_rand_seed`, so a fresh process
///   replays from 0xdeadbeef.
/// - `mmix`: Knuth's MMIX linear congruential generator, state × 6364136223846793005 +
///   1442695040888963407 from 0, as the cacheMon snapshot's `utils/include/mymath.h`
///   (https://github.com/cacheMon/libCacheSim/blob/4131f4a2e46b48a25228ce9258c51042f5df423a/libCacheSim/utils/include/mymath.h).
///   Its `cachesim` seeds it from the clock (`bin/cachesim/sim.c`: `srand(time(NULL));
///   set_rand_seed(rand())`), so its runs of these policies cannot be repeated;
///   scripts/reference_libcachesim_c.sh runs that code from seed 0 instead.
///
/// libCacheSim has one generator per thread, so a randomized admissioner in front of a
/// randomized policy interleaves its draws with the policy's. The state is therefore shared
/// by copies of a `LibCacheSimRandom` (a reference), and the gate hands the policy's
/// generator to its admissioner (`LibCacheSimRandomized`).
struct LibCacheSimRandom {
    enum Generator: String, CaseIterable {
        case lehmer64, mmix
    }

    /// The 128-bit state, words [high, low] (`low` alone for mmix), shared by copies; read
    /// through a pointer so a draw pays no reference counting or exclusivity check.
    private final class State {
        let words = UnsafeMutablePointer<UInt64>.allocate(capacity: 2)
        init(low: UInt64) { words.initialize(to: 0); (words + 1).initialize(to: low) }
        deinit { words.deallocate() }
    }

    let generator: Generator
    /// The state it started from.
    let start: UInt64
    /// Which libCacheSim code the policy drawing from it follows (`reference=`).
    private(set) var reference = LibCacheSimReference.release
    /// Keeps `words` alive.
    private let state: State
    private let words: UnsafeMutablePointer<UInt64>

    /// `seed` nil: the generator's own start (0xdeadbeef for lehmer64, 0 for mmix);
    /// otherwise what `set_rand_seed(seed)` leaves.
    init(_ generator: Generator = .lehmer64, seed: UInt64? = nil) {
        self.generator = generator
        start = seed ?? (generator == .lehmer64 ? 0xDEAD_BEEF : 0)
        state = State(low: start)
        words = state.words
    }

    @inline(__always) func next() -> UInt64 {
        switch generator {
        case .lehmer64:
            // The 128-bit product modulo 2^128; the result is its high half.
            let product = words[1].multipliedFullWidth(by: 0xDA94_2042_E4DD_58B5)
            words[0] = words[0] &* 0xDA94_2042_E4DD_58B5 &+ product.high
            words[1] = product.low
            return words[0]
        case .mmix:
            words[1] = 6_364_136_223_846_793_005 &* words[1] &+ 1_442_695_040_888_963_407
            return words[1]
        }
    }
}

/// A policy that draws from libCacheSim's `next_rand`: its generator, for an admissioner in
/// front to draw from too (libCacheSim's one generator per thread).
protocol LibCacheSimRandomized {
    var libCacheSimRandom: LibCacheSimRandom { get }
}

/// The options every randomized policy shares: `generator` (lehmer64, mmix: which
/// libCacheSim's generator and hash-table draw are followed) and `seed`.
extension LibCacheSimRandom {
    /// With `reference=libcachesim-aa0fc40` the generator is MMIX (the repository's
    /// `utils/include/mymath.h`: one generator per thread, from 0), and lehmer64 is refused.
    init(options: PolicyOptions) throws {
        let reference = try LibCacheSimReference.of(options)
        let repository = reference == LibCacheSimReference.repository
        let name = options.values["generator"] ?? (repository ? Generator.mmix : Generator.lehmer64).rawValue
        guard let generator = Generator(rawValue: name.trimmingSpaces) else {
            throw WorkbenchError("--generator must be lehmer64 or mmix, not \(ErrorText.quote(name))")
        }
        guard !repository || generator == .mmix else {
            throw WorkbenchError("--generator lehmer64 is the PyPI release's; reference=\(reference) draws with mmix (its mymath.h): leave generator out")
        }
        let seed = try options.values["seed"].map { _ in UInt64(try options.integer("seed", default: 0, range: 0...Int.max)) }
        self.init(generator, seed: seed)
        self.reference = reference
    }

    /// `generator=…;seed=…;reference=…` for `settings` (the state it starts from, and which
    /// libCacheSim code the policy follows).
    var settings: String { "generator=\(generator.rawValue);seed=\(start);reference=\(reference)" }
}

/// The slots of a policy's objects laid out as libCacheSim's chained hash table lays out its
/// objects (`dataStructure/hashtable/chainedHashTableV2.c`), for `hashtable_rand_obj`. Each
/// id's bucket is XXH3-64 of its 8 bytes (`HASH_TYPE XXHASH3`, `include/config.h`; the PyPI
/// build's `chained_hashtable_insert_v2` inlines the same XXH3 steps); a new object goes to
/// the head of its chain; a table holding more than `threshold` × buckets objects doubles,
/// re-adding chains bucket by bucket. The draw has two forms, after the two generators:
/// - `mmix`, the cacheMon snapshot: draw buckets (`next_rand() & mask`) until one is not
///   empty and take its chain's head; the table doubles past 1 object per bucket
///   (`CHAINED_HASHTABLE_EXPAND_THRESHOLD 1`).
/// - `lehmer64`, the PyPI package 0.3.5 (as access-bits/libCacheSim@712e9fbb
///   `chained_hashtable_rand_obj_v2`, and its `.so`: the 32-draw limit and the chain walk are
///   in its disassembly): after more than 32 empty draws in one pick, every further empty draw
///   first halves the table (`_chained_hashtable_shrink_v2`); then a second draw picks a
///   position in the chain (`next_rand() % chain length`). The table doubles past 2 objects per
///   bucket (its insert compares `n_obj` with `2 << hashpower`).
///
/// Memory: one bit per bucket plus a dictionary entry per non-empty bucket and 12 bytes per
/// slot. Complexity: insert O(1) amortized, remove O(chain), random pick O(buckets / objects)
/// expected draws (bounded near 32 once the PyPI form has shrunk the table).
struct LibCacheSimBuckets {
    private(set) var hashpower: Int
    let form: LibCacheSimRandom.Generator
    private var mask: UInt64
    /// Whether each bucket holds an object.
    private var occupied: [UInt64]
    /// The chain head of each non-empty bucket.
    private var heads: [UInt64: Int32] = [:]
    /// By slot: the next object of its chain (−1 at the end) and its id.
    private var chainNext: [Int32] = []
    private var ids: [UInt64] = []
    private(set) var count = 0

    /// libCacheSim's `hashpower`: 2^hashpower buckets to begin with.
    init(hashpower: Int, form: LibCacheSimRandom.Generator) {
        self.hashpower = hashpower
        self.form = form
        mask = (1 << UInt64(hashpower)) - 1
        occupied = [UInt64](repeating: 0, count: max(1, (1 << hashpower) / 64))
    }

    /// XXH3_64bits of an 8-byte little-endian id (xxHash's `XXH3_len_4to8_64b` with seed 0
    /// and the default secret's bytes 8–23, then `XXH3_rrmxmx`).
    static func hash(_ id: UInt64) -> UInt64 {
        let bitflip: UInt64 = 0x1CAD_21F7_2C81_017C ^ 0xDB97_9083_E96D_D4DE
        let input64 = (id >> 32) &+ ((id & 0xFFFF_FFFF) << 32)
        var h = input64 ^ bitflip
        h ^= ((h << 49) | (h >> 15)) ^ ((h << 24) | (h >> 40))
        h = h &* 0x9FB2_1C65_1E98_DF25
        h ^= (h >> 35) &+ 8
        h = h &* 0x9FB2_1C65_1E98_DF25
        return h ^ (h >> 28)
    }

    /// `chained_hashtable_insert_v2`: grow first if over the threshold, then head of chain.
    mutating func insert(_ slot: Int32, id: UInt64) {
        let threshold = form == .lehmer64 ? 2 : 1
        if count > (Int(mask) + 1) * threshold { rehash(to: hashpower + 1) }
        let index = Int(slot)
        if index >= chainNext.count {
            let grown = max(index + 1, chainNext.count * 2)
            chainNext += [Int32](repeating: -1, count: grown - chainNext.count)
            ids += [UInt64](repeating: 0, count: grown - ids.count)
        }
        ids[index] = id
        addToBucket(slot)
        count += 1
    }

    /// `chained_hashtable_delete_v2`: unlink from its chain.
    mutating func remove(_ slot: Int32) {
        let bucket = Self.hash(ids[Int(slot)]) & mask
        count -= 1
        guard let head = heads[bucket] else { return }
        if head == slot {
            let next = chainNext[Int(slot)]
            if next >= 0 { heads[bucket] = next } else { setEmpty(bucket) }
            return
        }
        var current = head
        while chainNext[Int(current)] >= 0 && chainNext[Int(current)] != slot { current = chainNext[Int(current)] }
        if chainNext[Int(current)] == slot { chainNext[Int(current)] = chainNext[Int(slot)] }
    }

    /// `chained_hashtable_rand_obj_v2` in the table's form. Only called while an object is
    /// held (else it would draw forever, as libCacheSim does).
    mutating func random(_ generator: inout LibCacheSimRandom) -> Int32 {
        var bucket = generator.next() & mask
        var tries = 0
        while occupied[Int(bucket >> 6)] & (1 << (bucket & 63)) == 0 {
            if form == .lehmer64 {
                tries += 1
                if tries > 32 && hashpower > 0 { rehash(to: hashpower - 1) }
            }
            bucket = generator.next() & mask
        }
        let head = heads[bucket]!  // an occupied bucket has a head
        guard form == .lehmer64 else { return head }
        var length: UInt64 = 1
        var slot = head
        while chainNext[Int(slot)] >= 0 {
            slot = chainNext[Int(slot)]
            length += 1
        }
        let steps = generator.next() % length
        slot = head
        for _ in 0..<steps { slot = chainNext[Int(slot)] }
        return slot
    }

    private mutating func addToBucket(_ slot: Int32) {
        let bucket = Self.hash(ids[Int(slot)]) & mask
        if let head = heads[bucket] {
            chainNext[Int(slot)] = head
        } else {
            chainNext[Int(slot)] = -1
            occupied[Int(bucket >> 6)] |= 1 << (bucket & 63)
        }
        heads[bucket] = slot
    }

    private mutating func setEmpty(_ bucket: UInt64) {
        heads[bucket] = nil
        occupied[Int(bucket >> 6)] &= ~(1 << (bucket & 63))
    }

    /// `_chained_hashtable_expand_v2` / `_shrink_v2`: a table of 2^power buckets, then every
    /// chain re-added, old buckets in order and each chain from its head (`_copy_entries`).
    private mutating func rehash(to power: Int) {
        let oldOccupied = occupied
        let oldHeads = heads
        hashpower = power
        mask = (1 << UInt64(hashpower)) - 1
        occupied = [UInt64](repeating: 0, count: max(1, (1 << hashpower) / 64))
        heads = [:]
        heads.reserveCapacity(oldHeads.count)
        for (word, bits) in oldOccupied.enumerated() where bits != 0 {
            for bit in 0..<64 where bits & (1 << UInt64(bit)) != 0 {
                var slot = oldHeads[UInt64(word * 64 + bit)] ?? -1
                while slot >= 0 {
                    let next = chainNext[Int(slot)]
                    addToBucket(slot)
                    slot = next
                }
            }
        }
    }
}

/// What a sampling policy keeps to draw as libCacheSim does: its generator and its objects'
/// hash-table layout, built from the shared options (`hashpower`, `generator`, `seed`).
struct LibCacheSimSampler {
    let hashpower: Int
    private var generator: LibCacheSimRandom
    private var buckets: LibCacheSimBuckets

    /// `reduced`: the table has `max(12, hashpower − 8)` bits, as `Random_init`,
    /// `RandomTwo_init` and `Hyperbolic_init` make it; otherwise `hashpower` bits.
    /// `repositoryHashpower`: the default under `reference=libcachesim-aa0fc40`, where the
    /// repository's cachesim gives Hyperbolic and BeladySize `max(hashpower − 8, 16)` = 16
    /// (`bin/cachesim/cache_init.h`) and the others its 24.
    init(options: PolicyOptions, reduced: Bool, repositoryHashpower: Int = 24) throws {
        let repository = try LibCacheSimReference.of(options) == LibCacheSimReference.repository
        hashpower = try options.integer("hashpower", default: repository ? repositoryHashpower : 24, range: 1...40)
        generator = try LibCacheSimRandom(options: options)
        buckets = LibCacheSimBuckets(hashpower: reduced ? max(12, hashpower - 8) : hashpower, form: generator.generator)
    }

    var settings: String { "hashpower=\(hashpower);\(generator.settings)" }

    @inline(__always) mutating func insert(_ slot: Int32, id: UInt64) { buckets.insert(slot, id: id) }
    @inline(__always) mutating func remove(_ slot: Int32) { buckets.remove(slot) }
    /// `hashtable_rand_obj`; only while an object is held.
    @inline(__always) mutating func random() -> Int32 { buckets.random(&generator) }

    /// The generator it draws from.
    var libCacheSimRandom: LibCacheSimRandom { generator }
}
