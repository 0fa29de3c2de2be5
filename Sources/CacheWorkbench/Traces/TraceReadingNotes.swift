import WorkbenchCore
import WorkbenchMetrics
extension TraceFile {
    /// What replaying this trace must say about how it was read: a format guessed from the
    /// content, and for a HAR its repeat views and moved runs (`HARReading.notes`). Reads
    /// the file again.
    public func readingNotes(runs replay: RunsReplay = .notReplayed) throws -> [String] {
        let guessed = guess.map { ["\(path) is read as \(format.name), guessed because \($0); name its format with --format if that is wrong"] } ?? []
        if format.name == "app-recording" {
            let options = ReadOptions(keepKeyNames: false, skipBadRows: skipBadRows, formatOptions: formatOptions, maxLineBytes: maxLineBytes)
            return guessed + (try AppRecordingReader.facts(path: path, options: options)).summary.readingNotes
        }
        guard format.name == "har" else { return guessed }
        let filter = try HARFilter(formatOptions)
        let reading = try HARTraceReader.read(HARTraceReader.readAll(path), path: path, filter: filter, keepKeyNames: false, skipBad: skipBadRows)
        return guessed + reading.notes(view: filter.view, order: filter.pageOrder, runs: replay, chosen: filter.runs)
    }
}
