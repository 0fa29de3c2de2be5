import ArgumentParser
import CacheWorkbench

/// The options of one replay (`bench run` and `bench sweep`): the trace, the backends and
/// their options, capacities, cost model, timing and outputs.
struct ReplayArguments: ParsableArguments {
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Trace file to replay (default: the bundled Traces/default.csv).", valueName: "file"))
    var trace: String?

    @OptionGroup var reading: TraceReadingOptions

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Backends, comma-separated, mixed with the groups `default` (lru and the modeled iOS caches), `policies` (lru, the policy simulators and bounds), `tiers` (the libraries' two-tier presets) and `all`. `tier:MEMORY+DISK` is any memory backend over any disk backend (tier:autopurge+files). A variant gives one backend its own options, `name[option=value;…]` (nscache[key-hash=full]). `bench list` shows every name and option.", valueName: "list"))
    var backend = "default"

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Capacities, comma-separated: bytes, 64MiB (MB = MiB = 2^20), 10% or 0.1 of the working set, ram:15% of --device's RAM. Default: 100MB, AFAutoPurgingImageCache's memory budget; with --device, each preset's own limit on it.", valueName: "list"))
    var capacity: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("An iPhone/iPad class (bench list --devices): its RAM for ram:P% capacities and, without --capacity, the presets' own memory limits; its scale for --url-units points.", valueName: "name"))
    var device: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Sizes read from image URLs are pixels (default; every supported convention documents pixels) or points (multiplied by --device's scale unless the URL has @Nx or dpr).", valueName: "pixels|points"))
    var urlUnits: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The view size the app's library downsamples to, in points at a screen scale (120x90@3), or `recorded` (each request's own, from an app recording): the kingfisher, sdwebimage and nuke presets then charge the downsampled bitmap, as their library does when configured to (docs/tiers.md). Pixel cost only.", valueName: "WxH@scale|recorded"))
    var display: String?

    @OptionGroup var pricing: PricingOptions

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("`demand-fill` (every request a read, a miss inserts: libCacheSim's semantics), `ops` (the trace's ops honoured: set inserts or replaces, delete removes, a get miss does not insert, as cachebench replays kv traces; docs/ops-mode.md) or `http` (answered by HTTP caching rules from the trace's recorded headers: a HAR).", valueName: "mode"))
    var mode = "demand-fill"

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("--mode http: whose rules, `rfc9111` (default), `apple` (URLCache as documented) or `corelibs` (FoundationNetworking on Linux as it behaves).", valueName: "profile"))
    var httpProfile: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("--mode http: the URLRequest cache policy of every request: useProtocolCachePolicy (default), reloadIgnoringLocalCacheData, reloadIgnoringLocalAndRemoteCacheData, returnCacheDataElseLoad, returnCacheDataDontLoad, reloadRevalidatingCacheData.", valueName: "policy"))
    var requestPolicy: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("--mode http: heuristic lifetime as a fraction of Date − Last-Modified when a response has no explicit one (default 0.1, RFC 9111 §4.2.2; 0 = none).", valueName: "fraction"))
    var heuristicFraction: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("--mode http: how a stale entry is checked, `conditional` (If-None-Match / If-Modified-Since; default), `head` (a HEAD, then a GET if changed: Apple's text) or `refetch` (no conditional request).", valueName: "style"))
    var revalidation: String?

    @Option(name: .customLong("on-304"), parsing: .unconditional, help: ArgumentHelp("--mode http: a 304's headers `update` the stored response (RFC 9111 §4.3.4; default) or are `ignore`d, so it stays stale (as observed of NSURLCache).", valueName: "update|ignore"))
    var on304: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("--mode http: the largest response stored, as a share of the capacity (apple's default 0.05: \"about 5% of the disk cache\"; none elsewhere).", valueName: "share|none"))
    var entryShareLimit: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("--http-profile corelibs: its key, `host-port-path` (URLCache's own, default) or `url` (the whole URL, to measure what its key does).", valueName: "key"))
    var httpKey: String?

    @Flag(name: .long, help: "--mode http: a request for a URL whose download is in flight joins it (AFImageDownloader, SDWebImage, Kingfisher, Nuke); turns on the download-time model.")
    var coalesce = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("--mode http: at most N downloads at once, the rest queue first come first served (default 6 as SDWebImage and Nuke; AFImageDownloader 4; 0 = unlimited); turns on the download-time model.", valueName: "n"))
    var maxActiveDownloads: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("--mode http: download time when the trace has no timings: seconds (0.2), 200ms, or lognormal:MEDIAN,SIGMA (default 100ms); turns on the download-time model.", valueName: "time"))
    var originLatency: String?

    @Flag(name: .customLong("ignore-obj-size"), help: "Every object counts 1 (libCacheSim's --ignore-obj-size): capacities are in objects, byte figures count objects.")
    var ignoreObjectSize = false

    @Flag(name: .customLong("consider-obj-metadata"), help: "Policies count libCacheSim's per-object metadata bytes (16 for lru, 40 for arc, …) in their byte capacity, as its cachesim --consider-obj-metadata (docs/policies-cachesim-rest.md).")
    var considerObjectMetadata = false

    @Flag(name: .customLong("use-ttl"), help: "Objects expire by the trace's TTLs (a ttl column, Twitter's and CacheLib's traces, lcs v3+): an expired object is a miss, as libCacheSim's cache_find_base with TTLs (docs/policies-cachesim-rest.md).")
    var useTTL = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Replay this many requests (100000), this share of the trace (0.2, 20%) or this much trace time (30m, 1h: libCacheSim's --warmup-sec) before counting anything.", valueName: "n|share|time"))
    var warmup: String?

    @Flag(name: .long, help: "Don't give stored objects real heap blocks of their cost (memory backends; pure hit-ratio runs).")
    var noMaterialize = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Simulated memory warnings: every:N (requests), at:T1,T2 (seconds after the first request), above:BYTES (allocated heap) or recorded (a recording's own, each before the request it came before).", valueName: "schedule"))
    var memoryWarning: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("A recording's background events: on (default when it has them: each backend does what its library does on entering the background) or off (ignored).", valueName: "on|off"))
    var background: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("nscache and tiers: what a recorded background event does to the memory (tier): none, clear or trim:F (tiers); the presets set their library's.", valueName: "response"))
    var onBackground: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Requests in the hit-ratio windows before and after each warning (default 1000, a tenth of a shorter trace).", valueName: "n"))
    var warningWindow: Int?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("nscache: key hashing, cf | full | digest.", valueName: "hash"))
    var keyHash: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("nscache: eviction order, lru | lowest-cost.", valueName: "order"))
    var eviction: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("nscache: most entries kept (0 = no limit).", valueName: "n"))
    var countLimit: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("autopurge, autopurge-o1: purge down to this fraction of capacity (default 0.6).", valueName: "fraction"))
    var purgeTarget: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("sqlite: bodies this size or larger are files in fsCachedData/ (default 4KiB as NSURLCache; 20KB as YYCache; inf = all inline).", valueName: "size"))
    var inlineLimit: String?

    @Option(name: .customLong("sqlite-evict"), parsing: .unconditional, help: ArgumentHelp("sqlite: evict the oldest time_stamp first (oldest, NSURLCache; default) or the least recently read (lru).", valueName: "order"))
    var sqliteEvict: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("sqlite: journal mode, wal (default, as Cache.db) | delete.", valueName: "mode"))
    var journalMode: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Every disk backend (sqlite, files, tiers' disks): none (default: no fsync) | consistent (bodies fsynced before rename or commit) | full (each store on storage when set returns).", valueName: "level"))
    var durability: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("sqlite: PRAGMA synchronous, full | normal | off, instead of --durability (full, consistent, none).", valueName: "level"))
    var synchronous: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("sqlite: stores per transaction (default 1, as an app writes one response at a time).", valueName: "n"))
    var batch: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("sqlite: PRAGMA page_size of a new Cache.db (default 4096).", valueName: "bytes"))
    var pageSize: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("sqlite: PRAGMA mmap_size, e.g. 256MiB (default 0: no memory map).", valueName: "bytes"))
    var mmapSize: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("clock: bits of the per-object frequency (default 1, libCacheSim's).", valueName: "n"))
    var nBitCounter: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("clock: frequency of a newly inserted object (default 0).", valueName: "n"))
    var initFreq: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("2q: A1in's share of the capacity (default 0.25, libCacheSim's).", valueName: "fraction"))
    var ainSizeRatio: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("2q: A1out's (ghost ids) share of the capacity (default 0.5).", valueName: "fraction"))
    var aoutSizeRatio: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("slru: number of equal segments (default 4, libCacheSim's).", valueName: "n"))
    var nSeg: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("s3fifo: the small FIFO's share of the capacity (default 0.10, libCacheSim's).", valueName: "fraction"))
    var fifoSizeRatio: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("s3fifo: the ghost FIFO's size as a share of the capacity (default 0.90; 0 = no ghost).", valueName: "ratio"))
    var ghostSizeRatio: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("s3fifo: hits in the small FIFO that move an object to main (default 2).", valueName: "n"))
    var moveToMainThreshold: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("wtinylfu: the window LRU's share of the capacity (default 0.01, Caffeine's).", valueName: "fraction"))
    var windowSize: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("wtinylfu: the protected segment's share of the main cache (default 0.8).", valueName: "fraction"))
    var protectedSize: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("lirs: the resident HIR queue's share of the capacity (default 0.01, libCacheSim's).", valueName: "fraction"))
    var hirsRatio: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("files: fsync each body before its rename, on | off, instead of --durability (consistent, none).", valueName: "on|off"))
    var fsync: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("files: over capacity, sweep down to this fraction (default 0.5 as SDWebImage and Kingfisher; Nuke 0.7).", valueName: "fraction"))
    var sweepTarget: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("files: seconds of trace time after which an entry is a miss (default: none).", valueName: "seconds"))
    var maxAge: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("files: an entry's age counts from its write (default) or its last read (access, as Kingfisher).", valueName: "write|access"))
    var maxAgeFrom: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Tiers (tier:MEM+DISK and the presets): NSURLSession's `default` configuration (memory and disk) or `ephemeral` (no disk tier).", valueName: "default|ephemeral"))
    var session: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Tiers: what a memory warning does to the memory tier, clear (default), trim:F (keep F of its capacity), flush-to-disk (then clear) or none.", valueName: "response"))
    var onWarning: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Tiers: copy a disk hit into memory, on (default) or off.", valueName: "on|off"))
    var promote: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Tiers: a store goes to memory and disk (through, default), or to memory only until a flush-to-disk (back).", valueName: "through|back"))
    var write: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Tiers: the disk tier's capacity, e.g. 150MB, or unlimited (the run's --capacity is the memory tier's).", valueName: "size"))
    var diskCapacity: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Tiers: seconds of trace time an unread memory entry lives, each read extending it (Kingfisher 300; default none).", valueName: "seconds"))
    var memoryTtl: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Tiers: seconds between sweeps of expired memory entries (default 120, Kingfisher's).", valueName: "seconds"))
    var memorySweep: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Tiers: entries costlier than this share of the memory capacity stay out of memory (Nuke 0.1; default none).", valueName: "share"))
    var memoryEntryLimit: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Tiers, --mode http: the memory layer's rules, none (an image cache: serves what it holds, headers unread; default) or http (the run's --http-profile).", valueName: "none|http"))
    var memoryRules: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Tiers, --mode http: the disk layer's rules, http (a URLCache: default over sqlite and foundation-urlcache) or none (a library's file cache: default over files).", valueName: "http|none"))
    var diskRules: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("foundation-urlcache: its memory capacity (default 4MiB, URLCache.shared's on Linux; --capacity is its disk capacity).", valueName: "size"))
    var memoryCapacity: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("foundation-urlcache: host-port-path (its own key, default) or url (the whole URL as its path: a correct key, to compare).", valueName: "key"))
    var urlcacheKey: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Disk backends: keep files in <folder>/<backend> (kept; reopened warm by a later run) instead of a fresh temporary folder. <folder>/<backend> must be new, empty or made by an earlier run.", valueName: "folder"))
    var cacheDir: String?

    @Flag(name: .long, help: "Disk backends: keep the temporary folders (their paths are in the CSV's cache_dir).")
    var keep = false

    @Flag(name: .long, help: "Disk backends: check every hit's bytes against the content stored for its key (the check is inside the timed get).")
    var verify = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Write all results columns as CSV to this file.", valueName: "file"))
    var csv: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("A recording: write every request where a replay and the app's recorded outcome differ, with the reason where known, as CSV to this file.", valueName: "file"))
    var disagreements: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Write the results as JSON to this file.", valueName: "file"))
    var json: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Write memory and hit ratio over time (every --sample-every requests and at warnings) as CSV.", valueName: "file"))
    var timeline: String?

    @Flag(name: .long, help: "Don't time backend calls (pure hit-ratio sweeps run faster; latency columns stay empty).")
    var noTiming = false

    @Flag(name: .long, help: "Read the whole trace into memory first, so throughput measures cache work, not parsing.")
    var preload = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Seed for randomized backends and policies (recorded in the results).", valueName: "n"))
    var seed: UInt64 = 1

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Sample allocated memory and RSS every N requests (default 4096, a hundredth of a shorter trace).", valueName: "n"))
    var sampleEvery: Int?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Replay each point K times: latency and throughput columns hold the median, <column>_min and _max the spread.", valueName: "k"))
    var `repeat` = 1

    func validate() throws {
        guard (sampleEvery ?? 1) > 0 else { throw ValidationError("--sample-every must be at least 1") }
        guard (1...1_000).contains(`repeat`) else { throw ValidationError("--repeat must be from 1 to 1000") }
        guard (1...10_000_000).contains(warningWindow ?? 1) else { throw ValidationError("--warning-window must be from 1 to 10000000 requests") }
    }

    /// The values as `RunSetup` takes them.
    func setupArguments() -> RunSetup.Arguments {
        var arguments = RunSetup.Arguments()
        arguments.trace = trace
        arguments.format = reading.format
        arguments.formatOptions = reading.formatOptions
        arguments.backends = backend
        arguments.capacities = capacity ?? "100MB"
        arguments.capacityGiven = capacity != nil
        arguments.device = device
        arguments.urlUnits = urlUnits
        arguments.display = display
        arguments.cost = pricing.cost
        arguments.inferDimensions = pricing.inferDimensions
        arguments.decodedRatio = pricing.decodedRatio
        arguments.estimate = pricing.estimate
        arguments.ignoreObjectSize = ignoreObjectSize
        arguments.considerObjectMetadata = considerObjectMetadata
        arguments.useTTL = useTTL
        arguments.warmup = warmup
        arguments.timing = !noTiming
        arguments.preload = preload
        arguments.skipBad = reading.skipBad
        arguments.materialize = !noMaterialize
        arguments.seed = seed
        arguments.sampleEvery = sampleEvery
        arguments.repeats = `repeat`
        arguments.memoryWarning = memoryWarning
        arguments.warningWindow = warningWindow
        arguments.background = background
        arguments.disagreements = disagreements
        arguments.csv = csv
        arguments.json = json
        arguments.timeline = timeline
        arguments.cacheDirectory = cacheDir
        arguments.keep = keep
        arguments.verify = verify
        arguments.command = ShellQuoting.line(["bench"] + CommandLine.arguments.dropFirst())
        arguments.http.mode = mode
        arguments.http.profile = httpProfile
        arguments.http.requestPolicy = requestPolicy
        arguments.http.heuristicFraction = heuristicFraction
        arguments.http.revalidation = revalidation
        arguments.http.on304 = on304
        arguments.http.entryShareLimit = entryShareLimit
        arguments.http.httpKey = httpKey
        arguments.http.coalesce = coalesce
        arguments.http.maxActiveDownloads = maxActiveDownloads
        arguments.http.originLatency = originLatency
        let backendOptions = [
            "key-hash": keyHash, "eviction": eviction, "count-limit": countLimit, "purge-target": purgeTarget,
            "inline-limit": inlineLimit, "sqlite-evict": sqliteEvict, "journal-mode": journalMode, "durability": durability, "synchronous": synchronous,
            "batch": batch, "page-size": pageSize, "mmap-size": mmapSize, "fsync": fsync, "sweep-target": sweepTarget, "max-age": maxAge,
            "max-age-from": maxAgeFrom, "session": session, "on-warning": onWarning, "promote": promote, "write": write,
            "disk-capacity": diskCapacity, "memory-capacity": memoryCapacity, "urlcache-key": urlcacheKey,
            "memory-ttl": memoryTtl, "memory-sweep": memorySweep, "memory-entry-limit": memoryEntryLimit,
            "memory-rules": memoryRules, "disk-rules": diskRules, "on-background": onBackground,
            "n-bit-counter": nBitCounter, "init-freq": initFreq, "ain-size-ratio": ainSizeRatio, "aout-size-ratio": aoutSizeRatio,
            "n-seg": nSeg, "fifo-size-ratio": fifoSizeRatio, "ghost-size-ratio": ghostSizeRatio,
            "move-to-main-threshold": moveToMainThreshold, "window-size": windowSize, "protected-size": protectedSize,
            "hirs-ratio": hirsRatio,
        ]
        arguments.backendOptions = backendOptions.compactMapValues { $0 }
        return arguments
    }
}
