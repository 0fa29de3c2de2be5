import WorkbenchCore
import WorkbenchTraces
/// SDWebImage's weak memory cache (`SDImageCacheConfig.shouldUseWeakMemoryCache`): beside
/// its NSCache, SDMemoryCache keeps an NSMapTable with weak values of every image it stored
/// (SDMemoryCache.m L84-96, L98-117 @36e79ba4). A memory warning empties only the NSCache
/// (`[super removeAllObjects]`, L77-81), so an image a view still holds is found in the map
/// and put back; an explicit removal clears the map too (L119-141).
///
/// "Still held" is a rule, not a measurement: the `onScreen` most recently looked-up
/// distinct images are on screen (a feed's visible cells), and an image is held when the
/// one shown is the one memory stored (its last lookup hit memory, or the image was stored
/// after it). An image that left the screen is held by nothing but the NSCache, so once it
/// is gone from there its weak entry is gone for good: only the window needs remembering.
///
/// Complexity: O(onScreen) per lookup, store or removal (a short array); O(onScreen) memory.
struct WeakMemoryCache {
    /// A screen of thumbnails (a 4 × 5 grid): the rule's default, an assumption said in the notes.
    static let defaultOnScreen = 20

    let onScreen: Int
    /// The on-screen images, least recent first, each with whether the image shown is the
    /// one the memory tier stored (so the weak map still reaches it).
    private var window: [(key: String, stored: Bool)] = []

    init(onScreen: Int) {
        self.onScreen = max(1, onScreen)
        window.reserveCapacity(self.onScreen)
    }

    /// A lookup of `key`: whether it was on screen with its stored image (a weak-map hit if
    /// memory misses), and it becomes the most recent, not yet stored.
    mutating func lookUp(_ key: String) -> Bool {
        var alive = false
        if let index = window.firstIndex(where: { $0.key == key }) {
            alive = window[index].stored
            window.remove(at: index)
        } else if window.count == onScreen {
            window.removeFirst()  // scrolled off: only the NSCache holds it now
        }
        window.append((key, false))
        return alive
    }

    /// `key`'s image was stored in memory (a set, a promotion, a put-back) or found there.
    mutating func stored(_ key: String) {
        if let index = window.lastIndex(where: { $0.key == key }) { window[index].stored = true }
    }

    /// `key` was removed explicitly: the weak map loses it too.
    mutating func removed(_ key: String) {
        if let index = window.lastIndex(where: { $0.key == key }) { window[index].stored = false }
    }
}
