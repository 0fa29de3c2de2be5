import WorkbenchCore
import WorkbenchTraces
import WorkbenchMetrics
/// `bench http-check FILE`'s input, opened as every command opens a trace
/// (`TraceFile.checkRegularFile`): a device or FIFO is refused at once, before it is read
/// whole (`/dev/zero` once grew without bound, a FIFO without a writer blocked forever).
/// Apart from `HTTPCheck` so the fuzz target that drives `HTTPCheck.check` needs no trace files.
extension HTTPCheck {
    public static func run(path: String, profiles: [HTTPCacheProfile] = HTTPCacheProfile.allCases) throws -> HTTPCheck {
        try TraceFile.checkRegularFile(path)
        var filter = try HARFilter([:])
        filter.view = .all
        filter.pageOrder = .asRecorded
        let reading = try HARTraceReader.read(HARTraceReader.readAll(path), path: path, filter: filter, keepKeyNames: true, skipBad: false)
        return try check(reading, path: path, profiles: profiles)
    }
}
