import WorkbenchCore
import WorkbenchMetrics
/// Which CSV column holds which request field, decided from the first row: a header if
/// its first field is not a number, otherwise by column count.
struct CSVLayout: Equatable {
    var columnCount: Int
    var time: Int
    var key: Int
    var size: Int
    var width: Int?
    var height: Int?
    var op: Int?
    /// Seconds to live (`--use-ttl`), by header only.
    var ttl: Int? = nil
    var hasHeader: Bool

    /// Column names in order, for error messages.
    var columnNames: String {
        var names = [String](repeating: "?", count: columnCount)
        names[time] = "time"
        names[key] = "key"
        names[size] = "size"
        if let width { names[width] = "width" }
        if let height { names[height] = "height" }
        if let op { names[op] = "op" }
        if let ttl { names[ttl] = "ttl" }
        return names.joined(separator: ",")
    }

    /// Header aliases, lower-case. Other simulators' names map onto ours.
    static let aliases: [String: String] = [
        "time": "time", "timestamp": "time", "ts": "time", "clock_time": "time",
        "key": "key", "id": "key", "obj_id": "key", "object_id": "key", "url": "key",
        "size": "size", "obj_size": "size", "object_size": "size", "bytes": "size",
        "width": "width", "w": "width",
        "height": "height", "h": "height",
        "op": "op", "operation": "op",
        "ttl": "ttl",
    ]

    static func decide(firstRow fields: [UnsafeRawBufferPointer]) throws(FieldParsing.Failure) -> CSVLayout {
        let looksNumeric = (try? FieldParsing.time(fields[0])) != nil
        return looksNumeric ? try positional(count: fields.count) : try header(fields)
    }

    static func positional(count: Int) throws(FieldParsing.Failure) -> CSVLayout {
        switch count {
        case 3: return CSVLayout(columnCount: 3, time: 0, key: 1, size: 2, hasHeader: false)
        case 4: return CSVLayout(columnCount: 4, time: 0, key: 1, size: 2, op: 3, hasHeader: false)
        case 5: return CSVLayout(columnCount: 5, time: 0, key: 1, size: 2, width: 3, height: 4, hasHeader: false)
        case 6: return CSVLayout(columnCount: 6, time: 0, key: 1, size: 2, width: 3, height: 4, op: 5, hasHeader: false)
        default:
            throw FieldParsing.Failure(
                "found \(count) column\(count == 1 ? "" : "s") and no header; expected time,key,size[,width,height][,op] (3 to 6 columns)")
        }
    }

    static func header(_ fields: [UnsafeRawBufferPointer]) throws(FieldParsing.Failure) -> CSVLayout {
        var columns: [String: Int] = [:]
        for (index, field) in fields.enumerated() {
            let name = FieldParsing.text(field).trimmingSpaces.lowercased()
            guard let canonical = aliases[name] else {
                throw FieldParsing.Failure(
                    "the first row is not data (its time \(FieldParsing.quote(fields[0])) is not a number) so it must be a header, but column \(index + 1) \(FieldParsing.quote(field)) is not one of time, key, size, width, height, op, ttl")
            }
            if columns[canonical] != nil {
                throw FieldParsing.Failure("header names the \(canonical) column twice")
            }
            columns[canonical] = index
        }
        for required in ["time", "key", "size"] where columns[required] == nil {
            throw FieldParsing.Failure("header has no \(required) column (it needs time, key and size)")
        }
        if (columns["width"] == nil) != (columns["height"] == nil) {
            throw FieldParsing.Failure("header has \(columns["width"] == nil ? "height" : "width") without \(columns["width"] == nil ? "width" : "height")")
        }
        return CSVLayout(
            columnCount: fields.count, time: columns["time"]!, key: columns["key"]!, size: columns["size"]!,
            width: columns["width"], height: columns["height"], op: columns["op"], ttl: columns["ttl"], hasHeader: true)
    }
}
