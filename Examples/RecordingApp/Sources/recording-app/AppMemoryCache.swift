// The app's own memory cache, written as an app would (not the workbench's code): a
// dictionary with a use counter for LRU order and a byte limit. Each image is charged
// bytes_per_row × height of its decoded bitmap (width × 4 bytes per row). Over the limit it
// evicts the least recently used until within it; an image larger than the limit is not
// kept; a memory warning empties it. Lookup O(1); an insertion that evicts O(n) per eviction
// (a scan for the oldest: n is a few dozen images).

struct CachedImage {
    let width: Int
    let height: Int
    let bytesPerRow: Int
    let encodedBytes: Int
    let contentType: String
    var cost: Int { bytesPerRow * height }
}

struct AppMemoryCache {
    let limit: Int
    private var entries: [String: (image: CachedImage, lastUse: Int)] = [:]
    private var clock = 0
    private(set) var totalCost = 0

    init(limit: Int) { self.limit = limit }

    mutating func image(for key: String) -> CachedImage? {
        guard let entry = entries[key] else { return nil }
        clock += 1
        entries[key] = (entry.image, clock)
        return entry.image
    }

    mutating func insert(_ image: CachedImage, for key: String) {
        guard image.cost <= limit else { return }
        if let old = entries[key] { totalCost -= old.image.cost }
        clock += 1
        entries[key] = (image, clock)
        totalCost += image.cost
        while totalCost > limit, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            entries[oldest.key] = nil
            totalCost -= oldest.value.image.cost
        }
    }

    mutating func removeAll() {
        entries.removeAll()
        totalCost = 0
    }
}
