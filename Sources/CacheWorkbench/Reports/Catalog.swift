/// What `bench list` prints.
public enum Catalog {
    public static func text() -> String {
        var text = "Backends (--backend):\n"
        let width = BackendRegistry.all.map(\.name.count).max() ?? 0
        for kind in BackendRegistry.all {
            text += "  \(kind.name)\(String(repeating: " ", count: width - kind.name.count))  \(kind.summary)\n"
            for option in kind.options {
                text += "  \(String(repeating: " ", count: width))    --\(option.name): \(option.help)\n"
            }
        }
        text += "\nTrace formats (--format; compressed .gz .zst .xz .bz2 files are streamed through their decompressor):\n"
        for format in TraceFormat.all {
            let names = format.extensions.isEmpty ? "" : " (.\(format.extensions.joined(separator: ", .")))"
            text += "  \(format.name)  \(format.summary)\(names)\n"
        }
        text += "\nCost models (--cost): auto (pixels for memory backends when the trace has dimensions, else encoded), \(CostModel.allCases.map(\.rawValue).joined(separator: ", "))\n"
        return text
    }
}
