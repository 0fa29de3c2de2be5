import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// Notes that say the same thing about several rows, said once. Row notes begin with their
/// row (`lru at 1 MiB: …`); when rows share the rest of the sentence, it is printed once after
/// all of them (`2 rows — lru at 1 MiB, lru at 2 MiB: …`, as the report's reading merges its
/// notes: scripts/reading.py `merged`), at the place of the first. An exact repeat of any note
/// is dropped. O(n × subjects) for the prefix match.
enum NoteMerging {
    /// `subjects` are the row labels notes may begin with (`label at capacity`).
    static func merged(_ notes: [String], subjects: [String]) -> [String] {
        // Longest first, so "lru at 1 MiB" never matches a note about "lru at 1 MiB (10%)".
        let prefixes = Array(Set(subjects)).sorted { $0.count > $1.count }
        var order: [String] = []  // a note's key: its text after the subject, or the whole note
        var subjectsOf: [String: [String]] = [:]
        var whole: Set<String> = []
        for note in notes {
            if let subject = prefixes.first(where: { note.hasPrefix($0 + ": ") }) {
                let text = String(note.dropFirst(subject.count + 2))
                let key = "\u{1}" + text
                if subjectsOf[key] == nil { order.append(key) }
                if !(subjectsOf[key, default: []].contains(subject)) { subjectsOf[key, default: []].append(subject) }
            } else if whole.insert(note).inserted {
                order.append(note)
            }
        }
        return order.map { key in
            guard let subjects = subjectsOf[key] else { return key }
            let shown = subjects.joined(separator: ", ") + ": " + String(key.dropFirst())
            return subjects.count == 1 ? shown : "\(subjects.count) rows — " + shown
        }
    }
}
