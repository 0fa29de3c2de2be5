import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// What a replay of a recording did with the app's lifecycle events, said under the table:
/// `--memory-warning recorded` on a recording without warnings, and the background events
/// replayed with what each backend does on one (`CacheBackend.backgroundResponse`) and
/// what its library does that is not replayed (`TierPreset.backgroundNotReplayed`).
extension TableReport {
    static func recordedEventNotes(_ results: [RunResult]) -> [String] {
        var notes: [String] = []
        if results.contains(where: { $0.memoryWarningSchedule == .recorded && !$0.failed && $0.tally.memoryWarnings == 0 }) {
            notes.append("--memory-warning recorded: the recording has no memory warning, so none was delivered")
        }
        if let first = results.first(where: { $0.tally.undeliveredWarnings > 0 }) {
            let count = first.tally.undeliveredWarnings
            notes.append("the recording has \(count == 1 ? "1 memory warning" : "\(count) memory warnings") the app's cache went through, not delivered to the models (--memory-warning recorded delivers them)")
        }
        if let first = results.first(where: { $0.tally.undeliveredBackgrounds > 0 }) {
            let count = first.tally.undeliveredBackgrounds
            notes.append("the recording's \(count == 1 ? "1 background event was" : "\(count) background events were") not replayed (--background off)")
        }
        for result in results where !result.failed {
            let t = result.tally
            guard let response = t.backgroundResponse else { continue }
            let events = t.backgrounds == 1 ? "the recording's 1 background event was" : "the recording's \(t.backgrounds) background events were"
            var note = "\(rowLabel(result)): \(events) replayed: \(result.backendLabel) \(response)"
            if t.backgroundReleasedBytes > 0 { note += ", releasing \(ByteCount.format(t.backgroundReleasedBytes)) in all" }
            if t.foregrounds > 0 { note += "; \(t.foregrounds) foreground event\(t.foregrounds == 1 ? "" : "s") counted (no library acts on one)" }
            if let unreplayed = TierPreset.named(result.backend)?.backgroundNotReplayed { note += "; not replayed: \(unreplayed)" }
            notes.append(note + " (--background off ignores them)")
        }
        return notes
    }
}
