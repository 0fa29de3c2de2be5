import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Synchronization
extension BackendKind {
    /// This backend with the `admission` option: an admission policy in front of it
    /// (`AdmissionGate`), the one line that gives it to every policy.
    func admitting() -> BackendKind {
        var kind = self
        kind.options.append(("admission", name == "lru" ? AdmissionChoice.help : AdmissionChoice.shortHelp))
        // `reference=` chooses a random admissioner's generator too; a policy whose own code
        // is the same in both references takes it for that alone.
        let ownReference = options.contains { $0.name == "reference" }
        if !ownReference { kind.options.append(("reference", name == "lru" ? AdmissionChoice.referenceHelp : "as lru: the generator of admission=prob:P")) }
        let (make, name) = (factory, self.name)
        kind.factory = { config in
            var own = config
            // The policy's own (read, left for it) or the gate's (taken).
            let reference = ownReference ? own.options["reference"] : own.options.removeValue(forKey: "reference")
            guard let text = own.options.removeValue(forKey: "admission") else {
                if reference != nil && !ownReference { throw AdmissionChoice.referenceAlone(backend: name) }
                return try make(config)
            }
            return try AdmissionChoice(parsing: text, backend: name).gate(try make(own), config: config, name: name, text: text, reference: reference)
        }
        return kind
    }
}

extension BackendKind {
    /// This backend with the `prefetch` option: a prefetcher in front of it (`PrefetchGate`),
    /// the one line that gives it to every policy (outside any admission gate, which passes
    /// the prefetcher's insertions through unasked).
    func prefetching() -> BackendKind {
        var kind = self
        kind.options.append(("prefetch", name == "lru" ? PrefetchChoice.help : PrefetchChoice.shortHelp))
        kind.options.append(("prefetch-params", name == "lru" ? PrefetchChoice.paramsHelp : "as lru"))
        let (make, name) = (factory, self.name)
        kind.factory = { config in
            var own = config
            let params = own.options.removeValue(forKey: "prefetch-params")
            guard let text = own.options.removeValue(forKey: "prefetch") else {
                if params != nil { throw WorkbenchError("backend \(PrefetchChoice.written(name, "prefetch-params=…")): prefetch-params needs prefetch= (obl or pg)") }
                return try make(config)
            }
            if config.considersObjectMetadata { throw ObjectMetadataBytes.prefetchRefusal }
            let choice = try PrefetchChoice(parsing: text, params: params, backend: name)
            let inner = try make(own)
            guard let target = inner as? any CacheBackend & PrefetchTarget else {
                throw WorkbenchError("backend \(PrefetchChoice.written(name, "prefetch=\(text)")): \(name) is not a policy simulator a prefetcher can insert into")
            }
            guard !target.keepsGhosts else {
                throw WorkbenchError("backend \(PrefetchChoice.written(name, "prefetch=\(text)")): \(name) keeps ghost entries, and libCacheSim's insert of a prefetched object reads the ghost state its last lookup left; not reproduced, so refused")
            }
            func wrap<B: CacheBackend & PrefetchTarget>(_ inner: B) -> any CacheBackend {
                PrefetchGate(inner, prefetcher: choice.make(capacity: config.capacityBytes), capacity: config.capacityBytes, countsObjects: config.countsObjects)
            }
            return wrap(target)
        }
        return kind
    }
}

extension BackendKind {
    /// This policy with libCacheSim's per-object metadata in its capacity under
    /// `--consider-obj-metadata` (`ObjectMetadataBytes`), the one line that gives it to every
    /// policy; inside any admission gate or prefetcher.
    func accountingObjectMetadata() -> BackendKind {
        var kind = self
        let (make, name) = (factory, self.name)
        kind.factory = { config in
            let made = try make(config)
            guard config.considersObjectMetadata else { return made }
            let bytes = try ObjectMetadataBytes.bytes(for: name)
            guard let simulator = made as? any MetadataAccounting else {
                throw WorkbenchError("--consider-obj-metadata: \(name) is not a policy simulator")
            }
            simulator.setMetadataBytes(bytes)
            return made
        }
        return kind
    }
}

extension BackendKind {
    /// This policy with objects expiring under `--use-ttl` (`ExpiryGate`), inside any
    /// admission gate or prefetcher, as libCacheSim checks expiry in its lookup.
    func expiring() -> BackendKind {
        var kind = self
        let (make, name) = (factory, self.name)
        kind.factory = { config in
            let made = try make(config)
            guard config.usesTTL else { return made }
            if let refusal = ExpiryRules.refusal(for: name) { throw refusal }
            guard let target = made as? any CacheBackend & PrefetchTarget else { throw WorkbenchError("--use-ttl: \(name) is not a policy simulator") }
            func wrap<B: CacheBackend & PrefetchTarget>(_ inner: B) -> any CacheBackend { ExpiryGate(inner) }
            return wrap(target)
        }
        return kind
    }
}

/// A backend whose capacity can count libCacheSim's per-object metadata (`PolicySimulator`).
protocol MetadataAccounting: AnyObject {
    func setMetadataBytes(_ bytes: Int)
}

extension PolicySimulator: MetadataAccounting {
    func setMetadataBytes(_ bytes: Int) { metadataBytes = bytes }
}

public enum BackendRegistry {
    /// Memory and policy backends first, then the disk backends, then the presets, then any
    /// registered by a program of one's own (`register`). `bench run` with no `--backend`
    /// runs `defaultKinds`.
    public static var all: [BackendKind] { builtInKinds + registered.withLock { $0 } }

    private static let builtInKinds: [BackendKind] = baseKinds
        + TierPreset.all.map { preset in preset.kind(memory: builtIn(preset.memory), disk: builtIn(preset.disk)) }

    /// Backends added by `register`, behind a lock (registration may come from any thread,
    /// though a program normally registers once, before the command runs).
    private static let registered = Mutex<[BackendKind]>([])

    /// Adds backends of a cache author's own (`BenchCommandLine.main(extraBackends:)`): each
    /// is then selected by name like a built-in one, in `all` and `default`. A name must be
    /// new (not a backend, a group or a `tier:`) and made of lower-case letters, digits and
    /// `-`, starting with a letter; otherwise nothing is registered. O(backends).
    public static func register(_ kinds: [BackendKind]) throws {
        try registered.withLock { extras in
            var taken = Set((builtInKinds + extras).map(\.name) + groupNames)
            for kind in kinds {
                let allowed = kind.name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
                guard let first = kind.name.unicodeScalars.first, ("a"..."z").contains(first), allowed else {
                    throw WorkbenchError("cannot register backend \(ErrorText.quote(kind.name)): a name is lower-case letters, digits and '-', starting with a letter")
                }
                guard taken.insert(kind.name).inserted else {
                    throw WorkbenchError("cannot register backend '\(kind.name)': the name is taken (bench list shows the backends; groups: \(groupNames.joined(separator: ", ")))")
                }
            }
            extras += kinds
        }
    }

    /// The backends themselves, before the presets built from them; every policy takes an
    /// admission policy (`admission=…`) and a prefetcher (`prefetch=…`), except the offline bound PFOO-L, which bounds every
    /// policy rather than being one.
    private static let baseKinds: [BackendKind] = ownKinds.map { own in
        let kind = own.accountingObjectMetadata().expiring()  // each refused by every backend it does not apply to
        return kind.name == "lru" || (policyNames.contains(kind.name) && !kind.needsWholeReplay) ? kind.admitting().prefetching() : kind
    }

    private static let ownKinds: [BackendKind] = [
        BackendKind(name: "lru", summary: "policy-only LRU with a byte capacity (hash map + linked list), as libCacheSim's LRU") {
            LRUCache(capacity: $0.capacityBytes)
        },
        BackendKind(name: "fifo", summary: "policy-only FIFO: evict the oldest insertion (libCacheSim's FIFO)") {
            try PolicySimulator<FIFOPolicy>(capacity: $0.capacityBytes, options: $0.options)
        },
        BackendKind(
            name: "clock", summary: "policy-only CLOCK / second chance (Corbató 1968; libCacheSim's Clock)",
            options: [
                ("n-bit-counter", "clock: bits of the per-object frequency (libCacheSim's default 1)"),
                ("init-freq", "clock: frequency of a new object (default 0)"),
            ]
        ) { try PolicySimulator<ClockPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(name: "sieve", summary: "policy-only SIEVE (Zhang et al., NSDI 2024; libCacheSim's Sieve)") {
            try PolicySimulator<SievePolicy>(capacity: $0.capacityBytes, options: $0.options)
        },
        BackendKind(name: "arc", summary: "policy-only ARC (Megiddo & Modha, FAST 2003; libCacheSim's ARC, byte sizes)") {
            try PolicySimulator<ARCPolicy>(capacity: $0.capacityBytes, options: $0.options)
        },
        BackendKind(name: "lfu", summary: "policy-only LFU, ties to the first to reach the count (libCacheSim's LFU)") {
            try PolicySimulator<LFUPolicy>(capacity: $0.capacityBytes, options: $0.options)
        },
        BackendKind(name: "belady", summary: "policy-only Belady's OPT from next-access times (Belady 1966; libCacheSim's Belady): optimal for unit sizes") {
            try PolicySimulator<BeladyPolicy>(capacity: $0.capacityBytes, options: $0.options, nextAccess: $0.nextAccess)
        },
        BackendKind(name: "lru-belady", summary: "policy-only LRU whose eviction spares objects an oracle wants (next request within capacity / miss ratio), as libCacheSim's LRU_Belady.c at aa0fc40; opt-in") {
            try PolicySimulator<LRUBeladyPolicy>(capacity: $0.capacityBytes, options: $0.options, nextAccess: $0.nextAccess)
        },
        BackendKind(name: "fifo-belady", summary: "policy-only FIFO whose eviction spares objects an oracle wants, as libCacheSim's FIFO_Belady.c at aa0fc40; opt-in") {
            try PolicySimulator<FIFOBeladyPolicy>(capacity: $0.capacityBytes, options: $0.options, nextAccess: $0.nextAccess)
        },
        BackendKind(name: "sieve-belady", summary: "policy-only SIEVE whose hand passes objects an oracle wants and which stores only wanted ones, as libCacheSim's Sieve_Belady.c at aa0fc40; opt-in") {
            try PolicySimulator<SieveBeladyPolicy>(capacity: $0.capacityBytes, options: $0.options, nextAccess: $0.nextAccess)
        },
        BackendKind(name: "nop", summary: "no cache: every request a miss, nothing stored (libCacheSim's nop); opt-in") {
            try PolicySimulator<NopPolicy>(capacity: $0.capacityBytes, options: $0.options)
        },
        // libCacheSim aa0fc40's older versions of four policies (docs/policies-cachesim-rest.md).
        BackendKind(name: "arcv0", summary: "libCacheSim aa0fc40's ARCv0: ARC whose ghost lists are LRU caches of the capacity (B2 trimmed with a while); opt-in") {
            PolicySimulator(capacity: $0.capacityBytes, policy: ARCPolicy(capacity: $0.capacityBytes, ghostListsCapped: true))
        },
        BackendKind(name: "slruv0", summary: "libCacheSim aa0fc40's SLRUv0: SLRU whose top-segment hit does nothing and whose insertion evicts segment 0 to fit; opt-in",
                    options: [("n-seg", "as slru")]) {
            PolicySimulator(capacity: $0.capacityBytes, policy: try SFIFOPolicy(capacity: $0.capacityBytes, options: PolicyOptions(values: $0.options), variant: .slruv0))
        },
        BackendKind(name: "lecarv0", summary: "libCacheSim aa0fc40's LeCaRv0: LeCaR with its defaults fixed and MMIX draws (reference aa0fc40); opt-in") {
            PolicySimulator(capacity: $0.capacityBytes, policy: try LeCaRPolicy(
                capacity: $0.capacityBytes, options: PolicyOptions(values: ["reference": LibCacheSimReference.repository]), repositoryV0: true))
        },
        BackendKind(name: "sfifov0", summary: "libCacheSim aa0fc40's SFIFOv0: SFIFO with n-queue segments; the C's corrupted cascading coolings counted, not reproduced; opt-in",
                    options: [("n-queue", "sfifov0: number of equal FIFO segments (its default 4)")]) {
            PolicySimulator(capacity: $0.capacityBytes, policy: try SFIFOPolicy(capacity: $0.capacityBytes, options: PolicyOptions(values: $0.options), variant: .sfifov0))
        },
        BackendKind(name: "lfucpp", summary: "libCacheSim's LFUCpp (cpp/LFU.cpp: lowest count, then least recently requested): the same evictions as lfu, whose ties go to the first to reach the count; opt-in") {
            try PolicySimulator<LFUPolicy>(capacity: $0.capacityBytes, options: $0.options)
        },
        BackendKind(name: "pfoo-l", summary: "offline bound PFOO-L (Berger et al., SIGMETRICS 2018): no policy beats its hits or byte hits, sizes included") {
            PFOOLowerBound(capacity: $0.capacityBytes)
        },
        // libCacheSim's learned policies, run by its PyPI package (one line for the three).
    ] + LearnedPolicyProcess.classes.map { name, className in
        BackendKind(
            name: name, summary: "libCacheSim's learned \(className), run by libCacheSim's own code from its PyPI package in a Python process (.venv; latencies are round trips to it)",
            microsecondsPerRequest: 40
        ) { try LearnedPolicyProcess(name: name, capacity: $0.capacityBytes) }
    } + [
        BackendKind(
            name: "2q", summary: "policy-only 2Q (Johnson & Shasha, VLDB 1994; libCacheSim's TwoQ)",
            options: [
                ("ain-size-ratio", "2q: A1in's share of the capacity (libCacheSim's default 0.25)"),
                ("aout-size-ratio", "2q: A1out's (ghost ids) share of the capacity (default 0.5)"),
            ]
        ) { try PolicySimulator<TwoQPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "slru", summary: "policy-only segmented LRU (Karedla et al. 1994; libCacheSim's SLRU)",
            options: [("n-seg", "slru: number of equal segments (libCacheSim's default 4)")]
        ) { try PolicySimulator<SLRUPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "s3fifo", summary: "policy-only S3-FIFO (Yang et al., SOSP 2023; libCacheSim's S3FIFO)",
            options: [
                ("fifo-size-ratio", "s3fifo: the small FIFO's share of the capacity (libCacheSim's default 0.10)"),
                ("ghost-size-ratio", "s3fifo: the ghost FIFO's size as a share of the capacity (default 0.90)"),
                ("move-to-main-threshold", "s3fifo: hits in the small FIFO that move an object to main (default 2)"),
            ]
        ) { try PolicySimulator<S3FIFOPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(name: "lfuda", summary: "policy-only LFU with dynamic aging (Arlitt et al. 2000; libCacheSim's LFUDA)") {
            try PolicySimulator<LFUDAPolicy>(capacity: $0.capacityBytes, options: $0.options)
        },
        BackendKind(name: "gdsf", summary: "policy-only GreedyDual-Size-Frequency, size-aware (Cherkasova 1998; libCacheSim's GDSF)") {
            try PolicySimulator<GDSFPolicy>(capacity: $0.capacityBytes, options: $0.options)
        },
        BackendKind(
            name: "wtinylfu", summary: "policy-only W-TinyLFU (Einziger et al., ACM ToS 2017), as libCacheSim's WTinyLFU.c: window LRU, SLRU main, counting Bloom filter; variant=caffeine after Caffeine",
            options: [
                ("variant", "wtinylfu: libcachesim (default; libCacheSim's WTinyLFU.c, exact) or caffeine (Caffeine's design: count-min sketch with reset, probation/protected duel)"),
                ("window-size", "wtinylfu: the window LRU's share of the capacity (default 0.01, both variants)"),
                ("reference", "wtinylfu: libcachesim-0.3.5 (default; the PyPI release's WTinyLFU.c) or libcachesim-aa0fc40 (the repository's: a window victim that replaces a main victim does not end the eviction)"),
                ("protected-size", "wtinylfu[variant=caffeine]: the protected segment's share of the main cache (default 0.8)"),
                ("climber", "wtinylfu[variant=caffeine]: on (default; Caffeine's hill climber adapts the window) or off (a fixed window)"),
            ], like: PolicySimulator<WTinyLFUPolicy>.self
        ) { config in
            let options = PolicyOptions(values: config.options)
            switch try options.choice("variant", among: ["libcachesim", "caffeine"]) {
            case "caffeine":
                guard config.options["reference"] == nil else {
                    throw WorkbenchError("reference= names the libCacheSim code wtinylfu follows; wtinylfu[variant=caffeine] follows Caffeine's design")
                }
                return try PolicySimulator<WTinyLFUCaffeinePolicy>(capacity: config.capacityBytes, options: config.options)
            default:
                for name in ["protected-size", "climber"] where config.options[name] != nil {
                    throw WorkbenchError("--\(name) applies to wtinylfu[variant=caffeine]; libCacheSim's W-TinyLFU has a fixed window and a 1:4 SLRU main cache")
                }
                return try PolicySimulator<WTinyLFUPolicy>(capacity: config.capacityBytes, options: config.options)
            }
        },
        BackendKind(
            name: "lirs", summary: "policy-only LIRS (Jiang & Zhang, SIGMETRICS 2002), as libCacheSim's LIRS.c; variant=paper after the paper",
            options: [
                ("variant", "lirs: libcachesim (default; libCacheSim's LIRS.c step for step, exact) or paper (the paper's steps)"),
                ("hirs-ratio", "lirs: the resident HIR queue's share of the capacity (libCacheSim's fixed 0.01)"),
            ], like: LIRSLibCacheSim.self
        ) { config in
            let options = PolicyOptions(values: config.options)
            switch try options.choice("variant", among: ["libcachesim", "paper"]) {
            case "paper": return try PolicySimulator<LIRSPaperPolicy>(capacity: config.capacityBytes, options: config.options)
            default: return try LIRSLibCacheSim(capacity: config.capacityBytes, options: options)
            }
        },
        BackendKind(
            name: "lruk", summary: "policy-only LRU-K (O'Neil et al., SIGMOD 1993; libCacheSim's LRU_K): evict the oldest k-th last access, objects seen < k times first",
            options: [("k", "lruk: accesses remembered per object (libCacheSim's default 2)")]
        ) { try PolicySimulator<LRUKPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "mq", summary: "policy-only MQ, multi-queue (Zhou et al., USENIX ATC 2001; libCacheSim's MQ)",
            options: [
                ("n-queue", "mq: LRU queues, an object in queue min(log2 of its requests, n-queue - 1) (libCacheSim's default 8)"),
                ("lifetime", "mq: ticks (hits and admissions) an object stays unaccessed before dropping a queue (default 10000)"),
                ("qout-size-ratio", "mq: Qout, the evicted ids and frequencies, as a multiple of the capacity (default 4; libCacheSim's Qout-size-ratio)"),
            ]
        ) { try PolicySimulator<MQPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "clock2qplus", summary: "policy-only Clock2Q+: small FIFO with a correlation window, main CLOCK, ghost FIFO (libCacheSim's Clock2QPlus)",
            options: [
                ("fifo-size-ratio", "clock2qplus: the small FIFO's share of the capacity (libCacheSim's default 0.10)"),
                ("ghost-size-ratio", "clock2qplus: the ghost FIFO's size as a share of the capacity (default 0.90)"),
                ("move-to-main-threshold", "clock2qplus: counted hits that move an object from the small FIFO to main (default 1)"),
                ("corr-window-ratio", "clock2qplus: hits in the small FIFO count only after this × its bytes admissions (default 0.5)"),
            ]
        ) { try PolicySimulator<Clock2QPlusPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "sfifo", summary: "policy-only segmented FIFO: SLRU whose top segment does not reorder on a hit (libCacheSim's SFIFO)",
            options: [("n-seg", "sfifo: number of equal FIFO segments (libCacheSim's default 4)")]
        ) { try PolicySimulator<SFIFOPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "s3lru", summary: "policy-only S3-LRU: S3-FIFO's small FIFO and ghost with an LRU main queue (libCacheSim's S3LRU)",
            options: [
                ("lru-size-ratio", "s3lru: the small FIFO's share of the capacity (libCacheSim's LRU-size-ratio, default 0.10)"),
                ("ghost-size-ratio", "s3lru: the ghost's size as a share of the capacity (default 0.90)"),
                ("move-to-main-threshold", "s3lru: hits in the small FIFO that move an object to main (default 1)"),
                ("promote-on-hit", "s3lru: 1 = move at the hit that reaches the threshold (default), 0 = when it leaves the small FIFO"),
            ]
        ) { try PolicySimulator<S3LRUPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "qdlp", summary: "policy-only QD-LP: probationary FIFO, ghost, main CLOCK of its own size (Yang et al., HotOS 2023; libCacheSim's QDLP)",
            options: [
                ("fifo-size-ratio", "qdlp: the probationary FIFO's share of the capacity (libCacheSim's default 0.10)"),
                ("ghost-size-ratio", "qdlp: the ghost FIFO's size as a share of the capacity (default 0.9)"),
                ("main-cache", "qdlp: the main cache, clock2 (default), clock, clock3 or fifo"),
                ("move-to-main-threshold", "qdlp: hits in the FIFO that move an object to main when it leaves (default 1)"),
            ]
        ) { try PolicySimulator<QDLPPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "car", summary: "policy-only CAR, CLOCK with adaptive replacement (Bansal & Modha, FAST 2004), as libCacheSim's CAR with its departures",
            options: [("p", "car: T1's initial target in bytes (libCacheSim's default 0)")]
        ) { try PolicySimulator<CARPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "flashprob", summary: "policy-only FlashProb: an LRU in DRAM over a flash FIFO admitting a random share of DRAM's evictions (libCacheSim's flashProb)",
            options: [
                ("ram-size-ratio", "flashprob: DRAM's share of the capacity (libCacheSim's default 0.05)"),
                ("disk-admit-prob", "flashprob: the share of DRAM's evictions flash admits, 1 in floor(1/p) draws (default 0.2)"),
                ("ram-cache", "flashprob: DRAM's policy, lru (the default and only one)"),
                ("disk-cache", "flashprob: flash's policy, fifo (default) or clock"),
                ("generator", "flashprob: libCacheSim's next_rand, lehmer64 (the PyPI package's, default) or mmix"),
                ("seed", "flashprob: the generator's starting state (default: libCacheSim's own)"),
            ]
        ) { try PolicySimulator<FlashProbPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "s3fifod", summary: "policy-only S3-FIFOd: S3-FIFO whose small queue resizes by which evictions get requested again (libCacheSim's S3FIFOd)",
            options: [
                ("fifo-size-ratio", "s3fifod: the small FIFO's initial share of the capacity (libCacheSim's default 0.10)"),
                ("main-cache", "s3fifod: the main cache, clock2 (default), clock, clock3 or fifo"),
                ("move-to-main-threshold", "s3fifod: hits in the small FIFO that move an object to main when it leaves (default 1)"),
            ]
        ) { try PolicySimulator<S3FIFOdPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "fifomerge", summary: "policy-only FIFO-Merge: examine a batch of the FIFO, keep the best-scored half, evict the rest (libCacheSim's FIFO_Merge)",
            options: [
                ("n-exam", "fifomerge: objects examined per batch (libCacheSim's default 100)"),
                ("n-keep", "fifomerge: of those, kept (default n-exam / 2)"),
                ("retain-policy", "fifomerge: the score, freq (hits per byte, default) or recency"),
                ("generator", "fifomerge: libCacheSim's next_rand for the freq score's tie-breaking term, lehmer64 (default) or mmix"),
                ("seed", "fifomerge: the generator's starting state (default: libCacheSim's own)"),
            ]
        ) { try PolicySimulator<FIFOMergePolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(name: "mru", summary: "policy-only MRU: evict the most recently used (Chou & DeWitt 1985; libCacheSim's MRU)") {
            try PolicySimulator<MRUPolicy>(capacity: $0.capacityBytes, options: $0.options)
        },
        BackendKind(name: "size", summary: "policy-only Size: evict the largest object (Williams et al. 1996; libCacheSim's Size, its heap's ties)") {
            try PolicySimulator<SizePolicy>(capacity: $0.capacityBytes, options: $0.options)
        },
        BackendKind(
            name: "beladysize", summary: "policy-only sampled size-aware Belady: evict the largest size × time to next access among samples (libCacheSim's BeladySize)",
            options: [
                ("n-sample", "beladysize/hyperbolic: objects sampled per eviction (libCacheSim's defaults 128 and 64)"),
                ("hashpower", "random/randomtwo/hyperbolic/beladysize: libCacheSim's hash-table size parameter, which decides its random draws (default 24, as its PyPI package)"),
                ("generator", "random/randomtwo/hyperbolic/lruprob/beladysize: libCacheSim's next_rand, lehmer64 (default, as its PyPI package 0.3.5) or mmix (its older C code)"),
                ("seed", "random/randomtwo/hyperbolic/lruprob/beladysize: set_rand_seed's value (default: the generator's own start, 0xdeadbeef for lehmer64, 0 for mmix)"),
                ("reference", "beladysize: libcachesim-0.3.5 (default) or libcachesim-aa0fc40 (the repository's cachesim: mmix draws, hashpower 16; exact with unit sizes, not with bytes: docs/policies.md)"),
            ]
        ) { try PolicySimulator<BeladySizePolicy>(capacity: $0.capacityBytes, options: $0.options, nextAccess: $0.nextAccess) },
        BackendKind(
            name: "random", summary: "policy-only Random eviction, libCacheSim's draws reproduced (libCacheSim's Random)",
            options: [("hashpower", "as beladysize"), ("generator", "as beladysize"), ("seed", "as beladysize"), ("reference", "random/lecar/lhd/hyperbolic/randomlru: libcachesim-0.3.5 (default; the PyPI release's code) or libcachesim-aa0fc40 (the repository's: mmix draws from 0, and for hyperbolic hashpower 16, for randomlru 64 samples)")]
        ) { try PolicySimulator<RandomPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "randomtwo", summary: "policy-only RandomTwo: of two random objects evict the less recently used (libCacheSim's RandomTwo)",
            options: [("hashpower", "as beladysize"), ("generator", "as beladysize"), ("seed", "as beladysize")]
        ) { try PolicySimulator<RandomTwoPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "lruprob", summary: "policy-only LRU-Prob: LRU whose hits promote with probability prob (libCacheSim's LRU_Prob)",
            options: [("prob", "lruprob: the chance a hit moves the object to the head (libCacheSim's default 0.5)"), ("generator", "as beladysize"), ("seed", "as beladysize")]
        ) { try PolicySimulator<LRUProbPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "hyperbolic", summary: "policy-only Hyperbolic caching: evict the lowest requests/time-in-cache among samples (Blankstein et al., ATC 2017; libCacheSim's Hyperbolic)",
            options: [("n-sample", "as beladysize"), ("hashpower", "as beladysize"), ("generator", "as beladysize"), ("seed", "as beladysize"), ("reference", "as random")]
        ) { try PolicySimulator<HyperbolicPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "lecar", summary: "policy-only LeCaR: LRU and LFU experts, the victim drawn by weights learned from their histories (Vietri et al., HotStorage 2018; libCacheSim's LeCaR)",
            options: [
                ("update-weight", "lecar: 1 = learn the weights from history hits (default), 0 = keep them fixed"),
                ("lru-weight", "lecar: the LRU expert's starting weight, its chance to choose the victim (libCacheSim's default 0.5)"),
                ("generator", "as beladysize"), ("seed", "as beladysize"), ("reference", "as random"),
            ]
        ) { try PolicySimulator<LeCaRPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "cacheus", summary: "policy-only Cacheus: scan-resistant LRU and churn-resistant LFU experts weighted by regret, learning rate adapted (Rodriguez et al., FAST 2021; libCacheSim's Cacheus)",
            options: [("generator", "as beladysize"), ("seed", "as beladysize"), ("reference", "as random")]
        ) { try PolicySimulator<CacheusPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(name: "crlfu", summary: "policy-only CR-LFU, Cacheus's churn-resistant LFU expert alone: evict the last to reach the lowest count (libCacheSim's CR_LFU)") {
            try PolicySimulator<CRLFUPolicy>(capacity: $0.capacityBytes, options: $0.options)
        },
        BackendKind(
            name: "clockpro", summary: "policy-only CLOCK-Pro as libCacheSim's ClockPro.c runs it: it never evicts, keeping the first objects that fit its cold budget; variant=paper is the paper's, after Caffeine's ClockProPolicy (objects)",
            options: [
                ("variant", "clockpro: libcachesim (default; libCacheSim's ClockPro.c, exact) or paper (the paper's three hands, as Caffeine's ClockProPolicy; needs --ignore-obj-size)"),
                ("init-ratio-cold", "clockpro: the cold budget's share of the capacity, 0 to 1 (libCacheSim's C default 1; its PyPI class's 0.5)"),
                ("percent-min-resident-cold", "clockpro[variant=paper]: the least share of resident cold pages (Caffeine's default 0.01)"),
                ("percent-max-resident-cold", "clockpro[variant=paper]: the largest share of resident cold pages (Caffeine's default 0.99)"),
                ("lower-bound-resident-cold", "clockpro[variant=paper]: the least number of resident cold pages (Caffeine's default 2)"),
                ("non-resident-multiplier", "clockpro[variant=paper]: non-resident pages kept, as a multiple of the capacity (Caffeine's default 2)"),
            ], like: PolicySimulator<ClockProLibCacheSim>.self
        ) { config in
            let options = PolicyOptions(values: config.options)
            let paperOnly = ["percent-min-resident-cold", "percent-max-resident-cold", "lower-bound-resident-cold", "non-resident-multiplier"]
            switch try options.choice("variant", among: ["libcachesim", "paper"]) {
            case "paper":
                if config.options["init-ratio-cold"] != nil { throw WorkbenchError("--init-ratio-cold applies to libCacheSim's clockpro; the paper's adapts its cold target") }
                return try ClockProPaper(capacity: config.capacityBytes, options: options, countsObjects: config.countsObjects)
            default:
                for name in paperOnly where config.options[name] != nil {
                    throw WorkbenchError("--\(name) applies to clockpro[variant=paper]; libCacheSim's ClockPro.c has a fixed cold budget")
                }
                return try PolicySimulator<ClockProLibCacheSim>(capacity: config.capacityBytes, options: config.options)
            }
        },
        BackendKind(
            name: "lhd", summary: "policy-only LHD, least hit density (Beckmann et al., NSDI 2018), as libCacheSim's LHD with its draws reproduced",
            options: [("generator", "as beladysize"), ("seed", "as beladysize"), ("reference", "as random")]
        ) { try PolicySimulator<LHDPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "randomlru", summary: "policy-only RandomLRU: of n-samples random objects evict the least recently used (libCacheSim's RandomLRU)",
            options: [("n-samples", "randomlru: objects drawn per eviction (libCacheSim's default 16; the repository's code draws 64 whatever it says)"), ("hashpower", "as beladysize"), ("generator", "as beladysize"), ("seed", "as beladysize"), ("reference", "as random")]
        ) { try PolicySimulator<RandomLRUPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "fiforeinsertion", summary: "policy-only FIFO-Reinsertion: examine n-exam objects, evict all but the n-keep best at once, reinsert those (libCacheSim's FIFO_Reinsertion)",
            options: [
                ("n-exam", "fiforeinsertion: objects examined per batch (libCacheSim's default 100; also fifomerge's)"),
                ("n-keep", "fiforeinsertion: of those, reinserted, below n-exam (default 20; fifomerge's n-exam / 2)"),
                ("retain-policy", "fiforeinsertion: the score, recency (default) or freq (hits per byte); fifomerge's default is freq"),
                ("generator", "as fifomerge"), ("seed", "as fifomerge"),
            ]
        ) { try PolicySimulator<FIFOReinsertionPolicy>(capacity: $0.capacityBytes, options: $0.options) },
        BackendKind(
            name: "nscache", summary: ModelFamily.nscacheSummary,
            options: [
                ("key-hash", "cf (CFStringHash, as NSCache; default), full (SipHash of the whole key), digest (SHA-256 key)"),
                ("eviction", "lru (default) or lowest-cost (what Foundation on Linux does)"),
                ("count-limit", "most entries kept; 0 = no limit (default)"),
                ("on-background", "a recorded background event: none (default: Apple documents nothing) or clear (assume NSCache empties itself)"),
            ]
        ) { try NSCacheLike(NSCacheLike.Options($0)) },
        BackendKind(name: "foundation-nscache", summary: ModelFamily.foundationNSCacheSummary) {
            FoundationNSCache(totalCostLimit: $0.capacityBytes)
        },
        BackendKind(
            name: "autopurge", summary: "AFAutoPurgingImageCache: over capacity, sort all by last access, purge to the preferred usage",
            options: [("purge-target", "usage to purge down to, as a fraction of capacity (AF: 60 MB of 100 MB = 0.6)")]
        ) { config in
            try AutoPurgingImageCache(memoryCapacity: config.capacityBytes, preferredMemoryUsageAfterPurge: config.purgeTarget())
        },
        BackendKind(
            name: "autopurge-o1", summary: "AFAutoPurgingImageCache's policy with an O(1) recency list (identical hits, cheap purges)",
            options: [("purge-target", "as autopurge")]
        ) { config in
            try AutoPurgingImageCacheO1(memoryCapacity: config.capacityBytes, preferredMemoryUsageAfterPurge: config.purgeTarget())
        },
        BackendKind(
            name: "sqlite", summary: "NSURLCache's Cache.db: SQLite tables, bodies at or above the inline limit as files in fsCachedData/",
            options: [
                ("inline-limit", "bodies this size or larger are files; 4KiB (NSURLCache, default), 20KB (YYCache), inf = all inline"),
                ("sqlite-evict", "oldest (time_stamp, NSURLCache; default) or lru (a hit updates time_stamp)"),
                ("journal-mode", "wal (default, as Cache.db) or delete"),
                ("durability", Durability.optionHelp),
                ("synchronous", "PRAGMA synchronous full (SQLite's default), normal or off, and the durability it amounts to (full, consistent, none); instead of durability"),
                ("batch", "stores per transaction (default 1, as an app writes)"),
                ("page-size", "PRAGMA page_size of a new Cache.db (default 4096)"),
                ("mmap-size", "PRAGMA mmap_size: read the database through a memory map of this size (default 0: no mmap)"),
            ],
            microsecondsPerRequest: 350
        ) { try URLCacheStore($0) },
        BackendKind(
            name: "files", summary: "file-per-entry (SDWebImage, Kingfisher, Nuke): SHA-256 file names, atomic writes, LRU sweep",
            options: [
                ("sweep-target", "over capacity, sweep down to this fraction (0.5 SDWebImage/Kingfisher, default; Nuke 0.7)"),
                ("durability", Durability.optionHelp),
                ("fsync", "on: fsync each file before the rename (durability consistent); off (none); instead of durability"),
                ("max-age", "seconds of trace time after which an entry is a miss (default: none)"),
                ("max-age-from", "files: an entry's age counts from its write (default) or its last read (access: Kingfisher)"),
            ],
            microsecondsPerRequest: 110
        ) { try FileStore($0) },
        BackendKind(
            name: "foundation-urlcache", summary: "the real URLCache of swift-corelibs-foundation (FoundationNetworking), driven through storeCachedResponse / cachedResponse(for:); it writes its files itself, so --durability cannot reach it (durability uncontrolled)",
            options: [
                ("memory-capacity", "foundation-urlcache: its memory capacity (default 4MiB, URLCache.shared's on Linux); the run's capacity is its disk capacity"),
                ("urlcache-key", "foundation-urlcache: host-port-path (URLCache's own key, default) or url (the whole URL as its path: a correct key, to compare)"),
            ],
            microsecondsPerRequest: 5_000  // a folder scan per store and memory miss
        ) { try FoundationURLCache($0) },
    ]

    /// A built-in backend a preset names (a fixed, known name).
    private static func builtIn(_ name: String) -> BackendKind {
        baseKinds.first { $0.name == name }!
    }

    /// Every option name some backend takes.
    /// Backend options with a command-line flag of the same name (`--window-size`), given to
    /// every backend that takes them; `bench run` and `sweep` declare exactly these
    /// (`Trust2JournalTests` checks both ways through the sweep fingerprint).
    public static let flagOptionNames: Set<String> = [
        "key-hash", "eviction", "count-limit", "purge-target", "inline-limit", "sqlite-evict", "journal-mode",
        "durability", "synchronous", "batch", "page-size", "mmap-size", "fsync", "sweep-target", "max-age",
        "max-age-from", "session", "on-warning", "promote", "write", "disk-capacity", "memory-capacity",
        "urlcache-key", "memory-ttl", "memory-sweep", "memory-entry-limit", "n-bit-counter", "init-freq",
        "ain-size-ratio", "aout-size-ratio", "n-seg", "fifo-size-ratio", "ghost-size-ratio",
        "move-to-main-threshold", "window-size", "protected-size", "hirs-ratio", "memory-rules", "disk-rules",
        "on-background",
    ]

    /// Whether an option is given only inside a backend's brackets (`lruk[k=3]`,
    /// `wtinylfu[variant=caffeine]`): every option without a flag. Policy parameters are, so a
    /// new policy is one file and one registry line, and `--k` never applies to every backend
    /// at once; the backend list, fingerprinted whole, carries them.
    public static func isBracketOnly(_ option: String) -> Bool { !flagOptionNames.contains(option) }

    /// Options with a command-line flag (the sweep fingerprint's).
    public static var optionNames: Set<String> { flagOptionNames }

    public static func named(_ name: String) throws -> BackendKind {
        if name.lowercased().hasPrefix("tier:") { return try tier(name) }
        guard let kind = all.first(where: { $0.name == name.lowercased() }) else {
            let suggestion = EditDistance.closest(to: name.lowercased(), among: all.map(\.name) + groupNames)
                .map { " (did you mean '\($0)'?)" } ?? ""
            throw WorkbenchError("unknown backend '\(name)'\(suggestion); known: \(all.map(\.name).joined(separator: ", ")), the groups \(groupNames.joined(separator: ", ")), and tier:MEMORY+DISK")
        }
        return kind
    }

    /// The names `--backend` takes for groups of backends (`list(parsing:)`).
    public static let groupNames = ["default", "policies", "tiers", "all"]

    /// `tier:MEM+DISK`: a memory backend over a disk backend (`TieredCache`).
    static func tier(_ name: String) throws -> BackendKind {
        let parts = try TierOptionText.parts(name)
        let (memory, disk) = (try named(parts.memory), try named(parts.disk))
        guard !tierNames.contains(memory.name), !tierNames.contains(disk.name) else {
            throw WorkbenchError("backend '\(name)': a tier's memory and disk are single backends, not tiers")
        }
        guard !memory.storesBytes, !memory.needsFuture, disk.storesBytes else {
            throw WorkbenchError("backend '\(name)': a tier is tier:MEMORY+DISK; the memory backends are \(baseKinds.filter { !$0.storesBytes && !$0.needsFuture }.map(\.name).joined(separator: ", ")), the disk backends \(baseKinds.filter(\.storesBytes).map(\.name).joined(separator: ", "))")
        }
        guard disk.probesIO else {
            throw WorkbenchError("backend '\(name)': \(disk.name) is a memory-and-disk cache of its own, not a tier's disk")
        }
        return TieredCache.kind(memory: memory, disk: disk)
    }

    /// The libraries' two-tier presets (`TierPreset`): the group `tiers`, not in `default`.
    public static let tierNames: Set<String> = Set(TierPreset.all.map(\.name))

    /// Policy-only simulators of research policies (in `Policies/`): in `all` and
    /// `policies`, not in the default set, which compares the modeled iOS caches (and `lru`).
    /// The offline bounds' names (`bench plot` draws them gray and dashed).
    public static var offlineBoundNames: [String] { baseKinds.filter(\.isOfflineBound).map(\.name) }

    public static let policyNames: Set<String> = ["fifo", "clock", "sieve", "arc", "2q", "slru", "lfu", "belady", "s3fifo", "lfuda", "gdsf", "wtinylfu", "lirs", "pfoo-l", "lruk", "mq", "clock2qplus", "sfifo", "s3lru", "qdlp", "car", "flashprob", "s3fifod", "fifomerge", "mru", "size", "beladysize", "random", "randomtwo", "lruprob", "hyperbolic", "lecar", "cacheus", "crlfu", "clockpro", "lhd", "randomlru", "fiforeinsertion"]

    /// What `bench run` runs without `--backend`: `lru` and every modeled iOS cache.
    public static var defaultKinds: [BackendKind] {
        all.filter { !policyNames.contains($0.name) && !tierNames.contains($0.name) && !optInNames.contains($0.name) }
    }

    /// Backends only run when named: `foundation-urlcache` scans its folder on every store
    /// and memory miss, so a default run would wait on it; the learned policies need the
    /// Python environment (made on first use, from PyPI) and a process per row, which the
    /// main job must not wait for.
    /// So are the names libCacheSim's cachesim takes that add nothing to a comparison of
    /// policies — `nop` (no cache) and `lfucpp` (lfu's evictions) — and its Belady-assisted
    /// policies, which with byte capacities turn their queue forever in libCacheSim.
    public static let optInNames: Set<String> = Set(["foundation-urlcache", "nop", "lfucpp", "lru-belady", "fifo-belady", "sieve-belady", "arcv0", "slruv0", "lecarv0", "sfifov0"]
        + LearnedPolicyProcess.classes.map(\.key))

    /// A comma-separated list of names, or `default` (or nothing), `all`, `policies`, `tiers`.
    public static func list(parsing text: String?) throws -> [BackendKind] {
        guard let text, !text.isEmpty else { return defaultKinds }
        // Names, variants (`name[option=value;…]`) and the groups `default`, `policies` and
        // `all`, mixed freely, in order, once each.
        var kinds: [BackendKind] = []
        for spec in BackendListText.items(text) {
            let group: [BackendKind]
            if let variant = try BackendListText.variant(spec) {
                group = [try named(variant.name).variant(variant)]
            } else {
                switch spec.lowercased() {
                case "default": group = defaultKinds
                case "all": group = all
                case "policies": group = all.filter { $0.name == "lru" || policyNames.contains($0.name) }
                case "tiers": group = all.filter { tierNames.contains($0.name) }
                default: group = [try named(spec)]
                }
            }
            for kind in group where !kinds.contains(where: { $0.label == kind.label }) { kinds.append(kind) }
        }
        return kinds
    }

}
