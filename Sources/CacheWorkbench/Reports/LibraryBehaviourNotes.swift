import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The image libraries' own behaviour a row's figures rest on, said under the table
/// whenever it applied (issue 43 §3): SDWebImage's weak memory cache and its on-screen
/// rule, the presets' decoded-bitmap charge (row padding) and downsampling to `--display`,
/// and the rows `--display` did not reach.
enum LibraryBehaviourNotes {
    static func notes(_ results: [RunResult]) -> [String] {
        var notes: [String] = []
        var fullSize: [String] = []
        for result in results where !result.failed {
            let t = result.tally
            if let onScreen = t.tiers?.weakCacheOnScreen {
                let found = t.tiers!.weakHits
                notes.append("\(TableReport.rowLabel(result)): SDWebImage's weak memory cache (weak-cache=on, shouldUseWeakMemoryCache) found \(found == 1 ? "1 image" : "\(found) images") again that its memory had lost to a warning or an eviction, counted as memory hits and put back; the rule: the \(onScreen) most recently looked-up distinct images are on screen, held by a view (on-screen=\(onScreen), an assumption)")
            }
            guard let pricing = t.bitmapPricing, let priced = t.costSources?.total, priced > 0 else {
                if result.costModel == .pixels, t.bitmapPricing == nil, t.displayGiven, !fullSize.contains(result.backendLabel) { fullSize.append(result.backendLabel) }
                continue
            }
            let rule = TierPreset.named(result.backend)?.bitmapRule ?? "width × height × 4"
            if t.bitmap.padded > 0 {
                notes.append("\(TableReport.rowLabel(result)): \(t.bitmap.padded) of \(priced) priced requests charged with their rows padded to \(pricing.bitmap.rowAlignment) bytes: \(rule)")
            }
            if let display = pricing.display {
                if pricing.bitmap.downsampling == .none {
                    if !fullSize.contains(result.backendLabel) { fullSize.append(result.backendLabel) }
                    continue
                }
                var note = "\(TableReport.rowLabel(result)): --display \(display): \(t.bitmap.downsampled) of \(priced) priced requests charged the downsampled bitmap"
                if t.bitmap.downsampled < priced { note += ", the rest at full size (no larger than the display, or priced without dimensions)" }
                if t.bitmap.noDisplay > 0 { note += "; \(t.bitmap.noDisplay) had no display size in the recording (full size)" }
                notes.append(note + "; \(rule)")
            }
        }
        if !fullSize.isEmpty {
            notes.append("--display applies to the presets whose library downsamples when configured (kingfisher, sdwebimage, nuke): \(fullSize.joined(separator: ", ")) charged full-size bitmaps")
        }
        return notes
    }
}
