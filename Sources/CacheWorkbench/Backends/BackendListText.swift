import WorkbenchCore
import WorkbenchTraces
/// The text of a `--backend` list, before any name is looked up: items separated by commas
/// outside brackets, each a name, a group, or a variant `name[option=value;option=value]`.
/// The registry checks names and options; this only reads the shape.
///
/// Complexity: O(length).
package enum BackendListText {
    /// A variant's name and its options in the order written.
    package struct Variant: Equatable {
        package var name: String
        var options: [(key: String, value: String)]

        package static func == (a: Variant, b: Variant) -> Bool {
            a.name == b.name && a.options.map(\.key) == b.options.map(\.key) && a.options.map(\.value) == b.options.map(\.value)
        }
    }

    /// The items, split at commas that are not inside brackets, trimmed.
    package static func items(_ text: String) -> [String] {
        var items: [String] = []
        var current = ""
        var depth = 0
        for character in text {
            if character == "[" { depth += 1 } else if character == "]" { depth = max(0, depth - 1) }
            if character == "," && depth == 0 {
                items.append(current.trimmingSpaces)
                current = ""
            } else {
                current.append(character)
            }
        }
        items.append(current.trimmingSpaces)
        return items
    }

    /// The variant an item writes, nil for a plain name; an error names what is wrong.
    package static func variant(_ item: String) throws(WorkbenchError) -> Variant? {
        guard let open = item.firstIndex(of: "[") else { return nil }
        guard item.hasSuffix("]") else { throw WorkbenchError("backend '\(item)': a variant's options end with ']'") }
        let name = String(item[..<open]).trimmingSpaces
        let body = item[item.index(after: open)..<item.index(before: item.endIndex)]
        var options: [(key: String, value: String)] = []
        for part in body.split(separator: ";", omittingEmptySubsequences: true) {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(pair[0]).trimmingSpaces.lowercased()
            guard pair.count == 2, !key.isEmpty else {
                throw WorkbenchError("backend '\(name)[\(body)]': expected option=value;option=value, not '\(part)'")
            }
            guard !options.contains(where: { $0.key == key }) else { throw WorkbenchError("backend '\(name)[\(body)]': '\(key)' given twice") }
            options.append((key, String(pair[1]).trimmingSpaces))
        }
        guard !options.isEmpty else { throw WorkbenchError("backend '\(name)[]': give options in the brackets, or drop them") }
        return Variant(name: name, options: options)
    }
}
