import WorkbenchCore
import WorkbenchMetrics
/// libCacheSim-style CSV with a column mapping, as `cachesim`'s csv reader takes it:
/// `columns` = `time=1,key=2,size=3` (1-based; `key` required; without `time` the row
/// number is the time, without `size` every object is 1 byte), `header` = `on`/`off`
/// (default: detected), `delimiter` = one character, `tab` or `space` (default `,`).
struct LibCacheSimCSVFormat: LineFormat {
    let separator: UInt8?
    let time: Int?
    let key: Int
    let size: Int?
    let headerSetting: Bool?
    /// Data rows read so far: the time of a row when no column gives one.
    private var rows = 0

    init(options: [String: String]) throws(WorkbenchError) {
        var mapping: [String: Int] = [:]
        for part in (options["columns"] ?? "time=1,key=2,size=3").split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { String($0).trimmingSpaces.lowercased() }
            guard pair.count == 2, ["time", "key", "size"].contains(pair[0]), let column = Int(pair[1]), column >= 1 else {
                throw WorkbenchError("--columns takes time=N,key=N,size=N (1-based columns), not \(ErrorText.quote(String(part)))")
            }
            guard column <= LineTraceReader<Self>.maxColumns else {
                throw WorkbenchError("--columns: column \(column) is beyond the \(LineTraceReader<Self>.maxColumns) fields a row may have")
            }
            mapping[pair[0]] = column - 1
        }
        guard let key = mapping["key"] else { throw WorkbenchError("--columns must map key (e.g. time=1,key=2,size=3)") }
        self.key = key
        time = mapping["time"]
        size = mapping["size"]
        switch options["header"]?.lowercased() {
        case nil: headerSetting = nil
        case "on", "yes", "true": headerSetting = true
        case "off", "no", "false": headerSetting = false
        case let other?: throw WorkbenchError("--header must be on or off, not '\(other)'")
        }
        switch options["delimiter"] {
        case nil: separator = 0x2C
        case "tab", "\\t": separator = 0x09
        case "space": separator = nil
        case let text? where text.utf8.count == 1: separator = text.utf8.first!
        case let text?: throw WorkbenchError("--delimiter must be one character, tab or space, not '\(text)'")
        }
    }

    mutating func header(_ fields: LineFields) throws(FieldParsing.Failure) -> Bool {
        if let headerSetting { return headerSetting }
        let column = time ?? key
        return column < fields.count && FieldParsing.isWord(fields[column])
    }

    mutating func requests(_ fields: LineFields, keepKeyNames: Bool, into requests: inout [Request]) throws(FieldParsing.Failure) {
        defer { rows += 1 }
        let needed = max(key, time ?? 0, size ?? 0) + 1
        guard fields.count >= needed else { throw FieldParsing.Failure("expected at least \(needed) fields, found \(fields.count)") }
        let key = try FieldParsing.key(fields[self.key], keepName: keepKeyNames)
        let time = try self.time.map { column throws(FieldParsing.Failure) in try FieldParsing.time(fields[column]) } ?? Double(rows)
        let size = try self.size.map { column throws(FieldParsing.Failure) in try FieldParsing.size(fields[column], column: "size") } ?? 1
        requests.append(Request(time: time, id: key.id, size: size, name: key.name))
    }
}
