/// The image libraries' two-tier caches with their documented defaults, as `TieredCache`
/// options (sources: ../shared/HTTP-CACHING-FACTS.md §4–5, with file and line for each).
/// The memory tier's capacity is always the run's `--capacity`: the libraries' own limits
/// are unlimited (SDWebImage, PINCache) or a share of the device's RAM (Kingfisher 1/4,
/// Nuke 15% up to 768 MB), which a replay has no device for. What a library does on
/// timers or on entering the background (age sweeps, PINCache's clear) is not replayed:
/// a trace has no such events.
struct TierPreset: Sendable {
    let name: String
    let summary: String
    let memory: String
    let disk: String
    /// Tier and backend options, under the user's own.
    let options: [String: String]

    static let all: [TierPreset] = [
        TierPreset(
            name: "afnetworking",
            summary: "AFAutoPurgingImageCache (100 MB, purge to 60%, cleared on warning) over the downloader's URLCache on disk (Cache.db, 150 MB)",
            memory: "autopurge", disk: "sqlite",
            options: ["purge-target": "0.6", "disk-capacity": "150MB", "promote": "on", "on-warning": "clear"]),
        TierPreset(
            name: "sdwebimage",
            summary: "SDImageCache: SDMemoryCache (an NSCache) over SDDiskCache files (no size limit, sweep to half), disk hits promoted, cleared on warning",
            memory: "nscache", disk: "files",
            options: ["disk-capacity": "unlimited", "sweep-target": "0.5", "promote": "on", "on-warning": "clear"]),
        TierPreset(
            name: "kingfisher",
            summary: "Kingfisher ImageCache: NSCache memory with a 300 s TTL extended by reads (swept every 120 s) over files kept 7 days from last access",
            memory: "nscache", disk: "files",
            options: [
                "memory-ttl": "300", "memory-sweep": "120", "disk-capacity": "unlimited", "sweep-target": "0.5",
                "max-age": "604800", "max-age-from": "access", "promote": "on", "on-warning": "clear",
            ]),
        TierPreset(
            name: "nuke",
            summary: "Nuke's default pipeline: ImageCache (CLOCK, entries up to 10% of it) over DataLoader's URLCache on disk (150 MB)",
            memory: "clock", disk: "sqlite",
            options: ["memory-entry-limit": "0.1", "disk-capacity": "150MB", "promote": "on", "on-warning": "clear"]),
        TierPreset(
            name: "pincache",
            summary: "PINCache: PINMemoryCache (LRU) over PINDiskCache (50 MB, LRU trim to the limit), disk hits promoted, cleared on warning",
            memory: "lru", disk: "files",
            options: ["disk-capacity": "50MB", "sweep-target": "1", "promote": "on", "on-warning": "clear"]),
    ]

    /// The preset as a backend the registry lists.
    func kind(memory memoryKind: BackendKind, disk diskKind: BackendKind) -> BackendKind {
        BackendKind(
            name: name, summary: summary, options: TieredCache.options(memory: memoryKind, disk: diskKind),
            microsecondsPerRequest: memoryKind.microsecondsPerRequest + diskKind.microsecondsPerRequest
        ) { [options] config in
            try TieredCache(config, memory: memoryKind, disk: diskKind, presetOptions: options)
        }
    }
}
