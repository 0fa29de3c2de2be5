import WorkbenchCore
import WorkbenchMetrics
/// Wikimedia's 2019 upload (image) CDN trace: tab-separated `relative_unix,
/// hashed_path_query, image_type, response_size, time_firstbyte` with a header line; the
/// header's names place the columns (the order above when it has none).
struct WikimediaFormat: LineFormat {
    let separator: UInt8? = 0x09
    private var time = 0, key = 1, size = 3, columns = 5

    mutating func header(_ fields: LineFields) throws(FieldParsing.Failure) -> Bool {
        guard FieldParsing.isWord(fields[0]) else { return false }
        let names = (0..<fields.count).map { FieldParsing.lowercasedText(fields[$0]) }
        guard let time = names.firstIndex(of: "relative_unix"), let key = names.firstIndex(of: "hashed_path_query"),
              let size = names.firstIndex(of: "response_size") else {
            throw FieldParsing.Failure("header must name relative_unix, hashed_path_query and response_size (found \(names.joined(separator: ", ")))")
        }
        (self.time, self.key, self.size, columns) = (time, key, size, names.count)
        return true
    }

    func requests(_ fields: LineFields, keepKeyNames: Bool, into requests: inout [Request]) throws(FieldParsing.Failure) {
        guard fields.count == columns else { throw FieldParsing.Failure("expected \(columns) tab-separated fields, found \(fields.count)") }
        let key = try FieldParsing.key(fields[self.key], keepName: keepKeyNames)
        requests.append(Request(time: try FieldParsing.time(fields[time]), id: key.id, size: try FieldParsing.size(fields[size], column: "response_size"), name: key.name))
    }
}

/// The plain `time id size` form of webcachesim and LRB: space-separated, no header,
/// further fields ignored.
struct WebcachesimFormat: LineFormat {
    let separator: UInt8? = nil

    mutating func header(_ fields: LineFields) throws(FieldParsing.Failure) -> Bool { false }

    func requests(_ fields: LineFields, keepKeyNames: Bool, into requests: inout [Request]) throws(FieldParsing.Failure) {
        guard fields.count >= 3 else { throw FieldParsing.Failure("expected 'time id size', found \(fields.count) fields") }
        let key = try FieldParsing.key(fields[1], keepName: keepKeyNames)
        requests.append(Request(time: try FieldParsing.time(fields[0]), id: key.id, size: try FieldParsing.size(fields[2], column: "size"), name: key.name))
    }
}
