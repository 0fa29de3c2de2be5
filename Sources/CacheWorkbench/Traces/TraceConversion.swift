/// `bench convert`: any readable trace to native CSV, oracleGeneral or lcs.
public enum TraceConversion {
    public enum Target: String, Sendable {
        case csv, oracleGeneral = "oracle-general", lcs

        /// `name` when given, else from the output path.
        public init(named name: String?, path: String) throws {
            if let name {
                guard let target = Target(rawValue: name.lowercased()) else {
                    throw WorkbenchError("--to must be csv, oracle-general or lcs, not '\(name)'")
                }
                self = target
                return
            }
            let lower = path.lowercased()
            if lower.contains("oraclegeneral") || lower.hasSuffix(".bin") { self = .oracleGeneral; return }
            if lower.contains(".lcs") { self = .lcs; return }  // libCacheSim's own rule for reading it back
            if lower.hasSuffix(".csv") || lower.hasSuffix(".txt") || OutputFile.standardOutputNames.contains(path) || (try? OutputFile.kind(of: path)) == .special {
                self = .csv  // a stream (standard output, a FIFO, a device) gets text
                return
            }
            throw WorkbenchError("cannot tell the output format from '\(path)': name it .csv, .oracleGeneral.bin or .lcs, or pass --to")
        }
    }

    /// Returns the requests written, the malformed rows skipped, the requests whose time
    /// lost a fraction of a second (lcs holds whole seconds), and whether the output was a
    /// regular file (not a stream such as standard output).
    @discardableResult
    public static func convert(_ trace: TraceFile, to path: String, as target: Target) throws -> (requests: Int, skipped: Int, truncatedTimes: Int, toFile: Bool) {
        let loaded = try InMemoryTrace.load(trace, keepKeyNames: target == .csv)
        var truncated = 0
        switch target {
        case .csv: try TraceExport.write(loaded, to: path, shape: .native(withOp: true))
        case .oracleGeneral: try OracleGeneralWriter.write(loaded.requests, label: trace.label, to: path)
        case .lcs: truncated = try LCSWriter.write(loaded.requests, label: trace.label, to: path)
        }
        return (loaded.requests.count, loaded.skippedRows, truncated, !OutputFile.standardOutputNames.contains(path) && (try? OutputFile.kind(of: path)) != .special)
    }
}
