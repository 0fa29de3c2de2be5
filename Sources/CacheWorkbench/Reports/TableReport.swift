import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// The comparison table printed on the terminal: one line per run, aligned columns.
///
/// Rows under different cost models are never side by side without a word: each model gets
/// its own group with a heading, and the footer says why they do not compare. Gets are
/// shown as hits and misses apart (a miss answered from an index is not a fast read).
/// Anything a figure rests on — requests too large for the cache, skipped rows, requests
/// priced by a fallback — is said under the table when it is not zero.
public enum TableReport {
    public static func render(_ results: [RunResult], environment: RunEnvironment) -> String {
        let warned = results.contains { $0.memoryWarningSchedule != nil }
        var headers = ["backend", "capacity", "cost", "requests", "hit ratio", "byte hit", "hit p50", "hit p99",
                       "miss p50", "set p50", "set p99", "req/s", "evictions", "heap peak"]
        let onDisk = results.contains { $0.disk != nil }
        let refused = results.contains { $0.tally.tooLarge > 0 }
        if refused { headers.append("too large") }
        if warned { headers += ["warnings", "released", "hit before", "hit after"] }
        let answeredHTTP = results.contains { $0.tally.http != nil }
        if answeredHTTP { headers += ["fresh", "stale", "304", "fetched", "origin bytes", "offline", "not stored"] }
        let downloaded = results.contains { $0.httpSettings?.downloads != nil }
        if downloaded { headers += ["joined", "queue p50", "queue p99"] }
        if onDisk { headers += ["write amp", "fsyncs", "on disk", "space amp"] }
        headers.append("status")
        let models = results.reduce(into: [CostModel]()) { if !$0.contains($1.costModel) { $0.append($1.costModel) } }
        let ordered = models.flatMap { model in results.filter { $0.costModel == model } }
        var rows: [[String]] = []
        for result in ordered {
            let t = result.tally
            let heap: String = t.memory.allocated.map { ByteCount.format($0) } ?? "–"
            var row: [String] = [result.backendLabel, capacityLabel(result), result.costModel.rawValue, String(t.requests)]
            row += [hitRatioCell(t.objectHitRatio, runs: t.runObjectHitRatios), hitRatioCell(t.byteHitRatio, runs: t.runByteHitRatios)]
            row += [nanoseconds(t.getHit?.p50), nanoseconds(t.getHit?.p99), nanoseconds(t.getMiss?.p50)]
            row += [nanoseconds(t.set?.p50), nanoseconds(t.set?.p99), rate(t.throughput), result.replayed ? String(t.finalFacts.evictions) : "–", heap]
            if refused { row.append(String(t.tooLarge)) }
            if warned {
                let released: String = ByteCount.format(t.warningReleasedBytes)
                row += [String(t.memoryWarnings), released, percent(t.meanHitRatio(\.hitRatioBefore)), percent(t.meanHitRatio(\.hitRatioAfter))]
            }
            if answeredHTTP {
                if let h = t.http {
                    row += [String(h.freshHits), String(h.staleServed), String(h.notModified), String(h.originFetches),
                            ByteCount.format(h.originBytes), String(h.offlineFailures), String(h.notStoredTotal)]
                } else {
                    row += Array(repeating: "–", count: 7)
                }
            }
            if downloaded {
                if let h = t.http, result.httpSettings?.downloads != nil {
                    row += [String(h.coalescedRequests), waitLabel(h.queueWait?.p50), waitLabel(h.queueWait?.p99)]
                } else {
                    row += Array(repeating: "–", count: 3)
                }
            }
            if onDisk { row += diskCells(result) }
            row.append(result.failed ? "FAILED: \(t.failure ?? "")" : "ok")
            rows.append(row)
        }
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < row.count - 1 { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return index <= 2 ? cell + pad : (index == cells.count - 1 ? cell : pad + cell)
            }.joined(separator: "  ")
        }
        var text = line(headers) + "\n"
        for (index, row) in rows.enumerated() {
            let model = ordered[index].costModel
            if models.count > 1, index == 0 || ordered[index - 1].costModel != model {
                text += "-- cost \(model.rawValue): \(model == .pixels ? "width × height × 4 per object (a decoded bitmap, what a memory cache holds)" : "the encoded size (what a disk cache or a policy simulator holds)")\n"
            }
            text += line(row) + "\n"
        }
        let agreement = AgreementReport.text(ordered)
        if !agreement.isEmpty { text += "\nagreement with the app's recorded outcomes:\n" + agreement }
        let options = optionLines(ordered)
        if !options.isEmpty {
            text += "\noptions set (not the defaults; the CSV's backend_options and http_settings hold every setting):\n" + options.joined(separator: "\n") + "\n"
        }
        let spreads = ordered.compactMap { result in result.spread.map { (result, $0) } }
        if let repeats = spreads.first?.1.repeats {
            text += "\nmedians of \(repeats) repeats above; the spread (min–max) over them:\n"
            for (result, spread) in spreads {
                var figures: [String] = []
                for (column, label) in [("get_hit_p50_ns", "hit p50"), ("get_miss_p50_ns", "miss p50"), ("set_p50_ns", "set p50"), ("set_p99_ns", "set p99")] {
                    if let range = spread.ranges[column] { figures.append("\(label) \(nanoseconds(UInt64(range.min)))–\(nanoseconds(UInt64(range.max)))") }
                }
                if let range = spread.ranges["throughput_rps"] { figures.append("req/s \(rate(range.min))–\(rate(range.max))") }
                text += "  \(result.backendLabel) \(capacityLabel(result)): \(figures.joined(separator: ", "))\n"
            }
        }
        let notes = Self.notes(results)
        if !notes.isEmpty { text += "\n" + notes.map { "note: " + $0 }.joined(separator: "\n") + "\n" }
        // A row refused before its replay read anything (its folder refused, its backend not
        // made) says nothing about the trace: its refusal is the one message.
        if let first = results.first(where: { !$0.failedBeforeReplay }) {
            text += "\ntrace \(first.trace): \(first.tally.traceRequests) requests"
            if first.tally.droppedZeroSize > 0 { text += ", \(first.tally.droppedZeroSize) of size 0 dropped" }
            if first.tally.skippedRows > 0 { text += ", \(first.tally.skippedRows) malformed rows skipped" }
            if let load = first.loadSeconds, load > 0 {
                text += "; read into memory in \(String(format2: load)) s (\(rate(Double(first.tally.traceRequests + first.tally.skippedRows) / load)) rows/s)"
            }
            var workingSets: [String] = []
            for result in results {
                guard let workingSet = result.workingSetBytes else { continue }
                let entry = result.ignoreObjectSize ? "\(workingSet) objects" : "\(ByteCount.format(workingSet)) \(result.costModel.rawValue)"
                if !workingSets.contains(entry) { workingSets.append(entry) }
            }
            if !workingSets.isEmpty { text += "; working set " + workingSets.joined(separator: ", ") }
            if let schedule = first.memoryWarningSchedule { text += "; memory warnings \(schedule)" }
            text += first.timing ? "; clock overhead \(environment.clockOverheadNanoseconds) ns per timed call (included in latencies)" : "; timing off"
            text += "\n"
        }
        return text
    }

    /// What the figures rest on, in sentences: one cost model per group and why groups do
    /// not compare; fallbacks; too-large objects; warning windows that did not fit.
    public static func notes(_ results: [RunResult]) -> [String] {
        var notes: [String] = []
        let models = Set(results.map(\.costModel))
        if models.count > 1 {
            notes.append("rows are grouped by cost model and compare only within a group: at equal capacity a cache holds far fewer decoded bitmaps (pixels) than encoded files; --cost pixels or --cost encoded puts every row on one model")
        }
        notes += runsNotes(results)
        notes += fallbackNotes(results)
        notes += httpNotes(results)
        notes += backendNotes(results)
        notes += pixelRuleNotes(results)
        notes += deviceNotes(results)
        notes += ModelNotes.notes(results)
        notes += LibraryBehaviourNotes.notes(results)
        for result in results where (result.spread?.disagreements ?? 0) > 0 {
            notes.append("\(TableReport.rowLabel(result)): \(result.spread!.disagreements) of \(result.spread!.repeats) repeats counted different hits than the first (the row shows the first's counts); replays are meant to be deterministic for a trace, options and seed")
        }
        for result in results where result.tally.tooLarge > 0 {
            if result.mode == .ops {  // only sets store under --mode ops
                let sets = result.tally.tooLarge == 1 ? "1 set was for an object" : "\(result.tally.tooLarge) sets were for objects"
                notes.append("\(TableReport.rowLabel(result)): \(sets) larger than the whole capacity, not stored (too_large)")
                continue
            }
            let requests = result.tally.tooLarge == 1 ? "1 request was for an object larger than the whole capacity, counted as a miss" : "\(result.tally.tooLarge) requests were for objects larger than the whole capacity, counted as misses"
            notes.append("\(TableReport.rowLabel(result)): \(requests) and not stored (too_large)")
        }
        // A recording that cannot answer "which cache, how big": nothing in it is asked twice.
        var noReuseTraces: [String] = []
        for result in results where result.tally.requests > 0 && result.compulsoryMisses == result.tally.requests && !noReuseTraces.contains(result.trace) {
            noReuseTraces.append(result.trace)
            let counted = result.tally.requests == 1 ? "its 1 counted request asks" : "each of its \(result.tally.requests) counted requests asks"
            notes.append("no reuse in \(result.trace): \(counted) for an object for the first time (compulsory_misses), so no cache can hit and this trace cannot rank caches or size one")
        }
        if let first = results.first, first.ignoreObjectSize {
            notes.append("--ignore-obj-size: every object counts 1, so capacities are in objects and the byte hit ratio counts objects")
        }
        if let first = results.first, first.tally.warmupRequests > 0 {
            notes.append("the first \(first.tally.warmupRequests) requests warmed the cache and are in no figure (--warmup)")
        }
        if let first = results.first, first.tally.skippedRows > 0 {
            notes.append("\(first.tally.skippedRows) malformed trace rows were skipped (--skip-bad); every figure leaves them out")
        }
        notes += warningNotes(results)
        notes += recordedEventNotes(results)
        return NoteMerging.merged(notes, subjects: results.map(rowLabel))
    }

    /// A row as notes name it: its backend and capacity, in objects under --ignore-obj-size
    /// (a count, never bytes).
    static func rowLabel(_ result: RunResult) -> String {
        "\(result.backendLabel) at " + (result.ignoreObjectSize ? "\(result.capacityBytes) objects" : ByteCount.format(result.capacityBytes))
    }

    /// `100MiB`, `10% (5.2MiB)`-style, or `100 obj` when every object counts 1.
    /// The HTTP mode's assumptions and refusals, per run, when they happened.
    static func httpNotes(_ results: [RunResult]) -> [String] {
        var notes: [String] = []
        for result in results {
            guard let h = result.tally.http, let settings = result.httpSettings else { continue }
            let at = rowLabel(result)
            if h.heuristicLifetimes > 0 {
                notes.append("\(at): \(h.heuristicLifetimes) stored responses had no explicit lifetime and got \(settings.heuristicFraction) × (Date − Last-Modified) (RFC 9111 §4.2.2's heuristic\(settings.profile == .apple ? "; Apple documents none, so this is an assumption" : ""); --heuristic-fraction 0 turns it off)")
            }
            if h.validatedBySize > 0 {
                notes.append("\(at): \(h.validatedBySize) revalidations were decided by body size, because the recorded response lacked the stored validator")
            }
            if h.notStoredTotal > 0 { notes.append("\(at): \(h.notStoredTotal) responses not stored (\(h.notStoredText.replacingOccurrences(of: ";", with: ", ")))") }
            if h.sizesFromEarlierResponse > 0 {
                notes.append("\(at): \(h.sizesFromEarlierResponse) fetches were of a recorded 304, so their body size is the last size the trace gave that URL (an inferred size, in origin_bytes)")
            }
            if h.rangeRequests > 0 {
                notes.append("\(at): \(h.rangeRequests) requests asked for a range (Range): sent to the origin without a lookup (answering a range from a stored complete response is not modeled); a 206 is never stored (partial)")
            }
            if h.partialBodyHits > 0 {
                notes.append("\(at): \(h.partialBodyHits) hits served a stored 206's partial body as the whole (corelibs stores 206 and never reads Range); they count as hits")
            }
            if h.singletonConflicts > 0 {
                notes.append("\(at): \(h.singletonConflicts) responses repeated Date, Age, ETag, Last-Modified or Expires with different values: the first value was used, and a repeated Expires made the response stale (RFC 9111 §4.2.1)")
            }
            if settings.profile == .apple && h.varyMismatches > 0 {
                notes.append("\(at): \(h.varyMismatches) requests missed on Vary; Apple documents no Vary rule, so RFC 9111 §4.1's was assumed")
            }
            if let wrong = result.wrongBodyHits, wrong > 0 {
                notes.append("\(at): \(wrong) hits served another URL's body (corelibs keys by host + port + path: a different query or scheme collides); they count as hits")
            }
            if let rules = result.tally.httpRules, !rules.hasPrefix("whole:") {
                notes.append("\(at): HTTP rules by layer, \(rules): \(h.libraryHits) hits served by a layer that reads no headers (library_hits), whatever Cache-Control or Expires said")
            }
            if h.requestDirectives > 0 {
                notes.append("\(at): " + Self.requestDirectivesNote(h, profile: settings.profile))
            }
            if settings.profile == .corelibs && settings.policy != .useProtocolCachePolicy {
                notes.append("\(at): corelibs ignores --request-policy \(settings.policy.rawValue) (FoundationNetworking never reads URLRequest.cachePolicy)")
            }
        }
        return notes
    }

    /// What the replay did with the requests' own Cache-Control (RFC 9111 §5.2.1).
    static func requestDirectivesNote(_ h: HTTPCounts, profile: HTTPCacheProfile) -> String {
        let carried = "\(h.requestDirectives) requests carried their own Cache-Control directives (no-cache, no-store, max-age, max-stale, min-fresh or only-if-cached; a HAR recorded with the browser's \"Disable cache\" sends no-cache on every request)"
        switch profile {
        case .corelibs:
            return carried + ": ignored, as FoundationNetworking's reuse test reads only the response's Cache-Control"
        case .rfc9111, .apple:
            var text = carried + ": honoured as RFC 9111 §5.2.1 says" + (profile == .apple ? " (Apple documents no rule for them, so the RFC's is assumed)" : "")
            if h.onlyIfCachedFailures > 0 { text += "; \(h.onlyIfCachedFailures) only-if-cached requests found nothing usable stored (the RFC's 504, in offline_failures)" }
            return text
        }
    }

    /// What a backend counted itself, per run: its remarks, hits its key got wrong, and where
    /// a two-tier cache's hits came from.
    static func backendNotes(_ results: [RunResult]) -> [String] {
        var notes: [String] = []
        for result in results {
            let at = rowLabel(result)
            for remark in result.tally.finalDetails.remarks { notes.append("\(at): \(remark.count) \(remark.text)") }
            if let orphans = result.tally.finalDetails.orphansRemoved, orphans > 0 {
                notes.append("\(at): \(orphans) body files that no entry named (written before a crash, never committed) were removed when the folder was reopened (orphans_removed); the footprint is without them")
            }
            if let disk = result.disk, !disk.createdFolders.isEmpty {
                let named = disk.createdFolders.map { ErrorText.quote($0, limit: 4096) }.joined(separator: ", ")
                notes.append("\(at): created \(named) under --cache-dir; kept (a --cache-dir folder is never removed: the next run reopens it)")
            }
            if let disk = result.disk, disk.kept, !result.failedBeforeReplay {
                let opened = result.tally.openingEntries
                notes.append(opened > 0
                    ? "\(at): warm start: reopened \(opened) entries (\(ByteCount.format(result.tally.openingBytes))) an earlier run left in \(disk.folder)"
                    : "\(at): cold start: \(disk.folder) held no entries")
            }
            if let verified = result.tally.verifiedHits {
                notes.append("\(at): verified \(verified) hits: each body read back matched, byte for byte, the one stored for its key (--verify)\(result.tally.tiers != nil ? "; memory-tier hits read no stored bytes and are not among them" : "")")
            }
            if result.tally.http == nil, let wrong = result.tally.wrongBodyHits, wrong > 0 {
                notes.append("\(at): \(wrong) hits returned another URL's body (its key drops the query and the scheme); they are in the hit ratio, which they inflate")
            }
            guard let t = result.tally.tiers, result.tally.requests > 0 else { continue }
            let share = { (count: Int) in percent(Double(count) / Double(result.tally.requests)) }
            var text = "\(at): memory hits \(share(t.memoryHits)), disk hits \(share(t.diskHits)) of requests; \(t.promotions) disk hits promoted to memory, \(t.diskWrites) bodies written to disk"
            if t.flushed > 0 { text += ", \(t.flushed) of them flushed on memory warnings" }
            if t.memoryExpired > 0 { text += ", \(t.memoryExpired) memory entries expired" }
            if t.memoryRefused > 0 { text += ", \(t.memoryRefused) kept out of memory (over the entry limit or the memory capacity; stored on disk only)" }
            if t.diskRefused > 0 { text += ", \(t.diskRefused) kept off the disk (over the disk tier's capacity: held in memory only; disk_refused)" }
            notes.append(text)
            if result.tally.http != nil {
                // A tier whose layers read no headers serves every body it finds: its lookups are its hits.
                if result.tally.httpRules?.hasSuffix(";disk:none") != true && result.tally.httpRules != "memory:none" {
                    notes.append("\(at): in the HTTP mode the tier counts lookups that found a body, stale ones the model then revalidated or fetched again included, so memory + disk hits can exceed the hits")
                }
                let rules = result.tally.httpRules ?? ""
                if rules.hasPrefix("whole:") {
                    notes.append("\(at): the HTTP mode's too_large is per tier (a response too large for memory is stored on disk only); --entry-share-limit, when set, compares with the run's capacity, the memory tier's, not the disk tier's (an assumption: the libraries' own rules differ)")
                } else if rules.contains(";disk:") && !rules.contains(";disk:none") {
                    notes.append("\(at): the HTTP mode's too_large is per tier (a response too large for the disk layer, a URLCache, still fills memory when it fits); --entry-share-limit, when set, compares with the disk layer's capacity")
                } else {
                    notes.append("\(at): the HTTP mode's too_large is per tier (a response too large for memory is stored on disk only)")
                }
            }
        }
        return notes
    }

    /// A queue wait in trace time (the histogram's 1 ns floor reads as no wait).
    static func waitLabel(_ nanoseconds: UInt64?) -> String {
        guard let nanoseconds else { return "–" }
        return nanoseconds <= 1 ? "0 ms" : "\(String(format2: Double(nanoseconds) / 1e6)) ms"
    }

    static func capacityLabel(_ result: RunResult) -> String {
        let size: String = result.ignoreObjectSize ? "\(result.capacityBytes) obj" : ByteCount.format(result.capacityBytes)
        return result.capacity.needsWorkingSet ? size + " (\(result.capacity))" : size
    }

    /// Runs whose pixel costs rest on the encoded-size fallback, one sentence each (also on
    /// stderr: see `RunSetup.Outcome`).
    public static func fallbackNotes(_ results: [RunResult]) -> [String] {
        let pricing = results.filter { $0.encodedFallbacks > 0 }.map { result in
            let priced = result.tally.costSources?.total ?? 0
            let estimate = result.pixelRules.estimate == nil ? "the decoded-size estimate is off" : "no format the decoded-size estimate knows (JPEG, PNG, GIF, WebP, AVIF)"
            return "\(TableReport.rowLabel(result)): \(result.encodedFallbacks) of \(priced) requests had no dimensions (none in the trace, none in the URL that decodes to at least its encoded size; \(estimate)) and were charged their encoded size under pixel cost, which undercounts decoded memory; give --decoded-ratio R to price them at R × encoded (columns cost_from_*)"
        } + estimateNotes(results)
        let policies = results.filter { $0.tally.finalFacts.fallbacks > 0 }.map { result in
            let facts = result.tally.finalFacts
            return "\(TableReport.rowLabel(result)): \(facts.fallbacks) \(facts.fallbackRule ?? "decisions followed the workbench's own rule")"
        }
        return pricing + policies
    }

    static func diskCells(_ result: RunResult) -> [String] {
        let amplification: String = result.writeAmplification.map { String(format2: $0) + "×" } ?? "–"
        let syncs: String = result.disk?.io.map { String($0.totalSyncs) } ?? "–"
        let footprint: String = result.disk.map { ByteCount.format($0.footprintBytes) } ?? "–"
        let space: String = result.spaceAmplification.map { String(format2: $0) + "×" } ?? "–"
        return [amplification, syncs, footprint, space]
    }

    package static func percent(_ value: Double?) -> String {
        guard let value else { return "–" }
        return String(format2: value * 100) + "%"
    }

    package static func nanoseconds(_ value: UInt64?) -> String {
        guard let value else { return "–" }
        if value < 10_000 { return "\(value) ns" }
        if value < 10_000_000 { return "\(value / 1000) µs" }
        return "\(value / 1_000_000) ms"
    }

    static func rate(_ value: Double?) -> String {
        guard let value else { return "–" }
        if value >= 1e6 { return String(format2: value / 1e6) + "M" }
        if value >= 1e3 { return String(format2: value / 1e3) + "k" }
        return String(Int(value))
    }
}
