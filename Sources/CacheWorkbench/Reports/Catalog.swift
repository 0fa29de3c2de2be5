import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// What `bench list` prints.
public enum Catalog {
    public static func text() -> String {
        var text = "Backends (--backend):\n"
        let width = BackendRegistry.all.map(\.name.count).max() ?? 0
        let tierOptions = Set(TieredCache.options.map(\.name))
        for kind in BackendRegistry.all {
            text += "  \(kind.name)\(String(repeating: " ", count: width - kind.name.count))  \(kind.summary)\n"
            let preset = TierPreset.all.first { $0.name == kind.name }
            // A preset lists its defaults; the tier options come once, below the list.
            if let preset {
                let defaults = preset.options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ";")
                text += "  \(String(repeating: " ", count: width))    = tier:\(preset.memory)+\(preset.disk)[\(defaults)]\n"
                continue
            }
            for option in kind.options where !tierOptions.contains(option.name) {
                // Bracket-only options have no flag: shown as `name[option=…]`.
                let spelled = BackendRegistry.isBracketOnly(option.name) ? "\(kind.name)[\(option.name)=…]" : "--\(option.name)"
                text += "  \(String(repeating: " ", count: width))    \(spelled): \(option.help)\n"
            }
        }
        text += "\nTwo-tier caches: tier:MEMORY+DISK (e.g. tier:autopurge+files) puts any memory backend above over any disk backend; the presets above are such tiers with a library's defaults (the group `tiers`). --capacity is the memory tier's; with --device and no --capacity, a preset's memory tier takes its library's own limit on that device (docs/device.md). A tier takes its backends' options and these:\n"
        for option in TieredCache.options {
            text += "    --\(option.name): \(option.help.hasPrefix("tier: ") ? String(option.help.dropFirst(6)) : option.help)\n"
        }
        text += "Groups: default (lru and the modeled iOS caches, without foundation-urlcache: it scans its folder on every store), policies, tiers, all.\n"
        text += "\nTrace formats (--format; compressed .gz .zst .xz .bz2 files are streamed through their decompressor):\n"
        for format in TraceFormat.all {
            let names = format.extensions.isEmpty ? "" : " (.\(format.extensions.joined(separator: ", .")))"
            text += "  \(format.name)  \(format.summary)\(names)\n"
        }
        text += "\nCost models (--cost): auto (pixels for memory backends when the pixel rules price the trace's images: dimensions, URL, ratio or the decoded-size estimate; else encoded), \(CostModel.allCases.map(\.rawValue).joined(separator: ", "))\n"
        return text
    }
}
