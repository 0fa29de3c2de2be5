import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
/// What `bench list --json` prints: the same catalog as `Catalog.text()`, for scripts.
/// Backends with their options (a preset with the tier it stands for; a policy with what it
/// is checked against, `PolicyReference`), the groups with
/// their members, the tier options, the trace formats with their extensions, the cost models.
extension Catalog {
    public static func json() throws -> String {
        func string(_ text: String) -> String { JSONReport.string(text) }
        func strings(_ texts: [String]) -> String { "[" + texts.map(string).joined(separator: ", ") + "]" }
        func options(_ list: [(name: String, help: String)]) -> String {
            "[" + list.map { "{\"name\": \(string($0.name)), \"help\": \(string($0.help))}" }.joined(separator: ", ") + "]"
        }
        let tierOptions = Set(TieredCache.options.map(\.name))
        let backends = BackendRegistry.all.map { kind -> String in
            var members = ["\"name\": \(string(kind.name))", "\"summary\": \(string(kind.summary))"]
            if let preset = TierPreset.all.first(where: { $0.name == kind.name }) {
                let defaults = preset.options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ";")
                members.append("\"preset_of\": \(string("tier:\(preset.memory)+\(preset.disk)[\(defaults)]"))")
                members.append("\"options\": []")
            } else {
                members.append("\"options\": \(options(kind.options.filter { !tierOptions.contains($0.name) }))")
            }
            if let reference = PolicyReference.byName[kind.name] {
                members.append("\"reference\": {\"against\": \(string(reference.against)), \"how\": \(string(reference.how)), \"tests\": \(strings(reference.tests))}")
            }
            return "    {" + members.joined(separator: ", ") + "}"
        }
        let groups = try BackendRegistry.groupNames.map { group in
            "\(string(group)): \(strings(try BackendRegistry.list(parsing: group).map(\.name)))"
        }
        let formats = TraceFormat.all.map { format in
            "    {\"name\": \(string(format.name)), \"summary\": \(string(format.summary)), \"extensions\": \(strings(format.extensions))}"
        }
        return """
            {
              "backends": [
            \(backends.joined(separator: ",\n"))
              ],
              "groups": {\(groups.joined(separator: ", "))},
              "tier_syntax": "tier:MEMORY+DISK",
              "tier_options": \(options(TieredCache.options)),
              "trace_formats": [
            \(formats.joined(separator: ",\n"))
              ],
              "cost_models": \(strings(["auto"] + CostModel.allCases.map(\.rawValue)))
            }

            """
    }
}
