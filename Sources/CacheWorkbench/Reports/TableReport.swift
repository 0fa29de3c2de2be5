/// The comparison table printed on the terminal: one line per run, aligned columns.
public enum TableReport {
    public static func render(_ results: [RunResult], environment: RunEnvironment) -> String {
        let warned = results.contains { $0.memoryWarningSchedule != nil }
        var headers = ["backend", "capacity", "cost", "requests", "hit ratio", "byte hit", "get p50", "get p99",
                       "set p50", "set p99", "req/s", "evictions", "heap peak"]
        let onDisk = results.contains { $0.disk != nil }
        if warned { headers += ["warnings", "released", "hit before", "hit after"] }
        if onDisk { headers += ["write amp", "fsyncs", "on disk", "space amp"] }
        headers.append("status")
        var rows: [[String]] = []
        for result in results {
            let t = result.tally
            rows.append([
                result.backend,
                ByteCount.format(result.capacityBytes) + (result.capacity.needsWorkingSet ? " (\(result.capacity))" : ""),
                result.costModel.rawValue, String(t.requests),
                percent(t.objectHitRatio), percent(t.byteHitRatio),
                nanoseconds(t.get?.p50), nanoseconds(t.get?.p99), nanoseconds(t.set?.p50), nanoseconds(t.set?.p99),
                rate(t.throughput), String(t.finalFacts.evictions),
                t.memory.allocated.map(ByteCount.format) ?? "–",
            ] + (warned ? [
                String(t.memoryWarnings), ByteCount.format(t.warningReleasedBytes),
                percent(t.meanHitRatio(\.hitRatioBefore)), percent(t.meanHitRatio(\.hitRatioAfter)),
            ] : []) + (onDisk ? diskCells(result) : []) + [
                result.failed ? "FAILED: \(t.failure ?? "")" : "ok",
            ])
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
        for row in rows { text += line(row) + "\n" }
        if let first = results.first {
            text += "\ntrace \(first.trace): \(first.tally.traceRequests) requests"
            if first.tally.droppedZeroSize > 0 { text += ", \(first.tally.droppedZeroSize) of size 0 dropped" }
            if first.tally.skippedRows > 0 { text += ", \(first.tally.skippedRows) malformed rows skipped" }
            if let load = first.loadSeconds, load > 0 {
                text += "; read into memory in \(String(format2: load)) s (\(rate(Double(first.tally.traceRequests + first.tally.skippedRows) / load)) rows/s)"
            }
            var workingSets: [String] = []
            for result in results {
                guard let workingSet = result.workingSetBytes else { continue }
                let entry = "\(ByteCount.format(workingSet)) \(result.costModel.rawValue)"
                if !workingSets.contains(entry) { workingSets.append(entry) }
            }
            if !workingSets.isEmpty { text += "; working set " + workingSets.joined(separator: ", ") }
            if let schedule = first.memoryWarningSchedule { text += "; memory warnings \(schedule)" }
            text += first.timing ? "; clock overhead \(environment.clockOverheadNanoseconds) ns per timed call (included in latencies)" : "; timing off"
            text += "\n"
        }
        return text
    }

    static func diskCells(_ result: RunResult) -> [String] {
        let amplification: String = result.writeAmplification.map { String(format2: $0) + "×" } ?? "–"
        let syncs: String = result.disk.map { String($0.io.totalSyncs) } ?? "–"
        let footprint: String = result.disk.map { ByteCount.format($0.footprintBytes) } ?? "–"
        let space: String = result.spaceAmplification.map { String(format2: $0) + "×" } ?? "–"
        return [amplification, syncs, footprint, space]
    }

    static func percent(_ value: Double?) -> String {
        guard let value else { return "–" }
        return String(format2: value * 100) + "%"
    }

    static func nanoseconds(_ value: UInt64?) -> String {
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
