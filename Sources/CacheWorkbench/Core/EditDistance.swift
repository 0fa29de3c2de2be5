/// Levenshtein distance (insertions, deletions and substitutions of one character each),
/// for "did you mean" suggestions on misspelled names. O(m × n) time, O(n) space: names
/// are short.
package enum EditDistance {
    static func between(_ a: String, _ b: String) -> Int {
        let (a, b) = (Array(a), Array(b))
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// The candidate closest to `name` within `limit` edits (the first of equals), or nil;
    /// never one that takes as many edits as `name` has characters (`xy` is not a typo of `2q`).
    package static func closest(to name: String, among candidates: [String], limit: Int = 2) -> String? {
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = between(name, candidate)
            if distance <= limit, distance < name.count, distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        return best?.candidate
    }
}
