import WorkbenchCore
import WorkbenchMetrics
/// `bench convert`: any readable trace to native CSV, oracleGeneral, lcs or an app recording.
public enum TraceConversion {
    public enum Target: String, Sendable {
        case csv, oracleGeneral = "oracle-general", lcs, appRecording = "app-recording"
        /// lcs in libCacheSim aa0fc40's 1 KiB layout (`LCSWriter.writeRepositoryLayout`).
        case lcsRepository = "lcs-aa0fc40"

        /// `name` when given, else from the output path.
        public init(named name: String?, path: String) throws {
            if let name {
                guard let target = Target(rawValue: name.lowercased()) else {
                    throw WorkbenchError("--to must be csv, oracle-general, lcs, lcs-aa0fc40 or app-recording, not '\(name)'")
                }
                self = target
                return
            }
            let lower = path.lowercased()
            if lower.contains("oraclegeneral") || lower.hasSuffix(".bin") { self = .oracleGeneral; return }
            if lower.contains(".lcs") { self = .lcs; return }  // libCacheSim's own rule for reading it back
            if lower.hasSuffix(".jsonl") { self = .appRecording; return }
            if lower.hasSuffix(".csv") || lower.hasSuffix(".txt") || OutputFile.standardOutputNames.contains(path) || (try? OutputFile.kind(of: path)) == .special {
                self = .csv  // a stream (standard output, a FIFO, a device) gets text
                return
            }
            throw WorkbenchError("cannot tell the output format from '\(path)': name it .csv, .oracleGeneral.bin, .lcs or .jsonl (an app recording), or pass --to")
        }
    }

    /// What a conversion wrote: requests, malformed rows skipped, what was lost
    /// (`ConversionLosses`), and whether the output was a regular file (not a stream).
    public struct Outcome: Sendable {
        public var requests: Int
        public var skipped: Int
        public var losses: ConversionLosses
        public var toFile: Bool
    }

    /// Reads the whole trace (the binary targets need every next access), counting what
    /// each request loses in `target` as it is read; key text is kept only for csv.
    /// O(n) time and memory.
    /// `lcsVersion`: the record version of an `lcs` target (1–8, `LCSWriter`); nil: 3.
    @discardableResult
    public static func convert(_ trace: TraceFile, to path: String, as target: Target, lcsVersion: Int? = nil) throws -> Outcome {
        if let lcsVersion {
            guard target == .lcs else { throw WorkbenchError("--lcs-version chooses the record version of --to lcs (libCacheSim 0.3.5's 8 KiB layout); \(target.rawValue) has one layout") }
            guard LCSWriter.versions.contains(lcsVersion) else { throw WorkbenchError("--lcs-version must be 1 to 8 (lcs.h's record versions), not \(lcsVersion)") }
        }
        let version = lcsVersion ?? LCSWriter.version
        let source = try trace.open(keepKeyNames: true)
        var requests: [Request] = []
        var losses = ConversionLosses()
        while true {
            let mark = requests.count
            guard try source.append(to: &requests, limit: 1 << 16) > 0 else { break }
            for index in mark..<requests.count {
                losses.count(requests[index], in: target, lcsVersion: version)
                if target == .appRecording { continue }
                requests[index].http = nil
                requests[index].recorded = nil
                if target != .csv { requests[index].name = nil }
            }
        }
        if trace.format.name == "app-recording" {
            // The image lookups were converted: the rest of the recording stays behind.
            let options = ReadOptions(keepKeyNames: false, skipBadRows: trace.skipBadRows, formatOptions: trace.formatOptions, maxLineBytes: trace.maxLineBytes)
            let summary = try AppRecordingReader.facts(path: trace.path, options: options).summary
            losses.droppedLifecycleEvents = summary.eventsByKind["lifecycle", default: 0]
            losses.droppedHTTPEvents = summary.eventsByKind["http", default: 0]
        }
        switch target {
        case .appRecording:
            let session = "converted-" + (try TraceChecksum.sha256(path: trace.path)).prefix(16)
            losses.recording = try AppRecordingWriter.write(requests, session: session, to: path)
        case .csv:
            try TraceExport.write(InMemoryTrace(label: trace.label, requests: requests), to: path, shape: .native(withOp: true))
        case .oracleGeneral: try OracleGeneralWriter.write(requests, label: trace.label, to: path)
        case .lcs: try LCSWriter.write(requests, label: trace.label, to: path, version: version)
        case .lcsRepository: try LCSWriter.writeRepositoryLayout(requests, label: trace.label, to: path)
        }
        return Outcome(requests: requests.count, skipped: source.skippedRows, losses: losses,
                       toFile: !OutputFile.standardOutputNames.contains(path) && (try? OutputFile.kind(of: path)) != .special)
    }
}
