extension TraceFile {
    /// What replaying this trace must say about how it was read: for a HAR, its repeat views
    /// and moved runs (`HARReading.notes`); nothing for other formats. Reads the file again.
    public func readingNotes() throws -> [String] {
        guard format.name == "har" else { return [] }
        let filter = try HARFilter(formatOptions)
        let reading = try HARTraceReader.read(HARTraceReader.readAll(path), path: path, filter: filter, keepKeyNames: false, skipBad: skipBadRows)
        return reading.notes(view: filter.view, order: filter.pageOrder)
    }
}
