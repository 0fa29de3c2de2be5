import WorkbenchCore
import WorkbenchTraces
/// The image libraries' two-tier caches with their documented defaults, as `TieredCache`
/// options (sources: docs/http-caching-facts.md §4–5, with file and line for each).
/// The memory tier's capacity is the run's `--capacity`; with `--device` and no
/// `--capacity` it is the library's own default on that device (`memoryLimit(on:)`): a
/// share of its RAM (Kingfisher 1/4, Nuke 15% up to 768 MB), a fixed size (AFNetworking),
/// or none at all (SDWebImage, PINCache: see there). What a library does to its memory
/// cache on entering the background is `on-background`, replayed on a recording's
/// `background` events (docs/tiers.md cites each library's source): PINCache clears it,
/// Nuke trims it to 10% of its limit, Kingfisher's documentation says its NSCache storage
/// is purged, AFNetworking and SDWebImage have no handler for their memory cache. Disk
/// sweeps on entering the background (SDWebImage's and Kingfisher's expired files) and
/// timers other than Kingfisher's memory sweep are not replayed; the results say so.
package struct TierPreset: Sendable {
    package let name: String
    let summary: String
    package let memory: String
    package let disk: String
    /// Tier and backend options, under the user's own.
    package let options: [String: String]
    /// The library's default memory limit on a device: bytes and the rule, sourced.
    package let memoryLimit: @Sendable (DeviceClass) -> DeviceMemoryLimit
    /// What the library does on entering the background that a replay does not model, for
    /// the note beside the replayed background events; nil when nothing is left out.
    package var backgroundNotReplayed: String? = nil
    /// What the library's memory cache is charged for a decoded image and how it downsamples
    /// when configured (`--display`): `DecodedBitmap`, with the rule and its source said.
    package var bitmap = DecodedBitmap.packed
    package var bitmapRule = "width × height × 4, no downsampling modeled"

    package static let all: [TierPreset] = [
        TierPreset(
            name: "afnetworking",
            summary: "AFAutoPurgingImageCache (100 MB, purge to 60%, cleared on warning) over the downloader's URLCache on disk (Cache.db, 150 MB)",
            memory: "autopurge", disk: "sqlite",
            options: ["purge-target": "0.6", "disk-capacity": "150MB", "promote": "on", "on-warning": "clear", "on-background": "none"],
            memoryLimit: { _ in
                DeviceMemoryLimit(bytes: 100 << 20, rule: "100MiB, AFAutoPurgingImageCache's fixed memoryCapacity (AFAutoPurgingImageCache.m L76 @d9f589cc, docs/http-caching-facts.md §5); not RAM-relative")
            },
            bitmapRule: "width × height × 4 (AFCachedImage's totalBytes: size × scale² × 4 bytes per pixel, no row padding, AFAutoPurgingImageCache.m L44-48 @d9f589cc); AFImageDownloader has no downsampling"),
        TierPreset(
            name: "sdwebimage",
            summary: "SDImageCache: SDMemoryCache (an NSCache) over SDDiskCache files (no size limit, sweep to half), disk hits promoted, cleared on warning",
            memory: "nscache", disk: "files",
            options: ["disk-capacity": "unlimited", "sweep-target": "0.5", "promote": "on", "on-warning": "clear", "on-background": "none"],
            memoryLimit: { device in
                DeviceMemoryLimit(bytes: device.ramBytes, rule: "no limit of its own: SDImageCacheConfig.maxMemoryCost defaults to 0, \"no memory cost limit\" (SDImageCacheConfig.h L103-108 @36e79ba4), which SDMemoryCache gives NSCache as totalCostLimit (SDMemoryCache.m L59); replayed with the whole RAM (\(device.ramBytes) bytes) as the limit, so only memory warnings (--memory-warning) empty it — iOS's own discarding from such an NSCache is undocumented and not modeled")
            },
            backgroundNotReplayed: "SDImageCache's sweep of disk files unread for a week (maxDiskAge, SDImageCache.m L861-882, SDDiskCache.m L151-243 @36e79ba4): the files backend keeps them, so a recording longer than a week can hit where the app missed; NSCache's own discarding on background is undocumented (--on-background clear assumes it)",
            bitmap: DecodedBitmap(downsampling: .fitInside, rowAlignment: DecodedBitmap.coreGraphicsRowAlignment),
            bitmapRule: "bytes per row × height (SDMemoryCacheCostForImage: CGImageGetBytesPerRow × height, UIImage+MemoryCacheCost.m L13-28 @36e79ba4), rows padded to 64 bytes as CoreGraphics lays them out; with --display, the thumbnail pixel size fitted inside the box (SDImageIOAnimatedCoder.m L489-506)"),
        TierPreset(
            name: "kingfisher",
            summary: "Kingfisher ImageCache: NSCache memory with a 300 s TTL extended by reads (swept every 120 s) over files kept 7 days from last access",
            memory: "nscache", disk: "files",
            options: [
                "memory-ttl": "300", "memory-sweep": "120", "disk-capacity": "unlimited", "sweep-target": "0.5",
                "max-age": "604800", "max-age-from": "access", "promote": "on", "on-warning": "clear", "on-background": "clear",
            ],
            memoryLimit: { device in
                // UInt64 division, as Kingfisher's `totalMemory / 4`.
                DeviceMemoryLimit(bytes: device.ramBytes / 4, rule: "RAM / 4 = \(device.ramBytes) / 4, Kingfisher's MemoryStorage totalCostLimit (ImageCache.swift L294-297 @410984bf)")
            },
            backgroundNotReplayed: "ImageCache's sweep of expired disk files (backgroundCleanExpiredDiskCache, ImageCache.swift L929-973 @410984bf), which changes no outcome here: the files backend already misses a file past max-age",
            bitmap: DecodedBitmap(downsampling: .longestSide),
            bitmapRule: "width × height × bytes per pixel, no row padding (Image.swift `cost` L161-176 @410984bf); with --display, DownsamplingImageProcessor's longest side max(w, h) × scale (Image.swift L469-486)"),
        TierPreset(
            name: "nuke",
            summary: "Nuke's default pipeline: ImageCache (CLOCK, entries up to 10% of it) over DataLoader's URLCache on disk (150 MB)",
            memory: "clock", disk: "sqlite",
            options: ["memory-entry-limit": "0.1", "disk-capacity": "150MB", "promote": "on", "on-warning": "clear", "on-background": "trim:0.1"],
            memoryLimit: { device in
                // Int(Double(physicalMemory) * 0.15) truncates, then min(…, 805_306_368), as Nuke.
                let share = Int(Double(device.ramBytes) * 0.15)
                let capped = share > 805_306_368
                return DeviceMemoryLimit(
                    bytes: min(share, 805_306_368),
                    rule: "15% of RAM (\(share) bytes)\(capped ? " capped at 768MB (805306368 bytes)" : ", under the 768MB cap"), Nuke's ImageCache.defaultCostLimit (ImageCache.swift L73-76 @c4fc70af)")
            },
            bitmap: DecodedBitmap(downsampling: .fill, rowAlignment: DecodedBitmap.coreGraphicsRowAlignment),
            bitmapRule: "bytes per row × height (ImageCache.cost(for:), ImageCache.swift L107-117 @c4fc70af), rows padded to 64 bytes as CoreGraphics lays out its bytesPerRow: 0 contexts (Graphics.swift L195-203); with --display, ImageProcessors.Resize's aspect fill, each side rounded, never upscaled (Graphics.swift L43-47, L245-254)"),
        TierPreset(
            name: "pincache",
            summary: "PINCache: PINMemoryCache (LRU) over PINDiskCache (50 MB, LRU trim to the limit), disk hits promoted, cleared on warning",
            memory: "lru", disk: "files",
            options: ["disk-capacity": "50MB", "sweep-target": "1", "promote": "on", "on-warning": "clear", "on-background": "clear"],
            memoryLimit: { device in
                DeviceMemoryLimit(bytes: device.ramBytes, rule: "no limit of its own: PINMemoryCache's costLimit is 0 (PINMemoryCache.m L105 @2fb85948) and it trims only when costLimit > 0; replayed with the whole RAM (\(device.ramBytes) bytes) as the limit, so only memory warnings (--memory-warning) empty it")
            },
            bitmapRule: "width × height × 4: PINMemoryCache charges the cost its caller gives, and no caller's rule is modeled; no downsampling"),
    ]

    /// The preset called `name`, if it is one. O(presets).
    package static func named(_ name: String) -> TierPreset? { all.first { $0.name == name } }

    /// The preset as a backend the registry lists.
    package func kind(memory memoryKind: BackendKind, disk diskKind: BackendKind) -> BackendKind {
        BackendKind(
            name: name, summary: summary, options: TieredCache.options(memory: memoryKind, disk: diskKind),
            microsecondsPerRequest: memoryKind.microsecondsPerRequest + diskKind.microsecondsPerRequest
        ) { [options] config in
            try TieredCache(config, memory: memoryKind, disk: diskKind, presetOptions: options)
        }
    }
}
