/// A trace file on disk in a known format, reopened for each replay.
public struct TraceFile: Trace {
    public let path: String
    public let format: TraceFormat
    public let skipBadRows: Bool

    public init(path: String, format: TraceFormat? = nil, skipBadRows: Bool = false) throws {
        self.path = path
        self.format = try format ?? TraceFormat.detect(path: path)
        self.skipBadRows = skipBadRows
    }

    public var label: String { path }

    public func open(keepKeyNames: Bool) throws -> any RequestSource {
        try format.open(path, ReadOptions(keepKeyNames: keepKeyNames, skipBadRows: skipBadRows))
    }
}

/// A trace format: one reader plus how to recognise its files. Adding a format is one
/// reader file and one entry in `all`.
public struct TraceFormat: Sendable {
    public let name: String
    public let summary: String
    public let extensions: [String]
    let open: @Sendable (String, ReadOptions) throws -> any RequestSource

    public static let all: [TraceFormat] = [
        TraceFormat(
            name: "csv", summary: "native CSV: time,key,size[,width,height][,op], header optional",
            extensions: ["csv", "txt"],
            open: { path, options in try CSVTraceReader(path: path, options: options) }),
    ]

    public static func named(_ name: String) throws -> TraceFormat {
        guard let format = all.first(where: { $0.name == name.lowercased() }) else {
            throw WorkbenchError("unknown trace format '\(name)'; known: \(all.map(\.name).joined(separator: ", "))")
        }
        return format
    }

    /// By extension; CSV when nothing else claims the file.
    public static func detect(path: String) throws -> TraceFormat {
        let lower = path.lowercased()
        if let format = all.first(where: { format in format.extensions.contains { lower.hasSuffix("." + $0) } }) {
            return format
        }
        return all[0]
    }
}
