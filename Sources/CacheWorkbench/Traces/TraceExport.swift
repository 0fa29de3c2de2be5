import WorkbenchCore
import WorkbenchMetrics
/// Writes any trace as CSV (used by `bench gen`; `bench convert` later).
public enum TraceExport {
    public static func write(_ trace: any Trace, to path: String?, shape: CSVTraceWriter.Shape) throws {
        let writer = try CSVTraceWriter(path: path, shape: shape)
        let source = try trace.open(keepKeyNames: true)
        while let chunk = try source.nextChunk() {
            try Interruption.check()  // a safe point: between chunks (the partial file goes with the writer)
            for request in chunk { try writer.write(request) }
        }
        try writer.finish()
    }
}
