import WorkbenchCore
import WorkbenchMetrics
/// Twitter's production cache traces (twitter/cache-trace): CSV rows `timestamp,
/// anonymized key, key size, value size, client id, operation, TTL`, no header. The
/// object's size is key size + value size; get/gets read, delete deletes, and the
/// writing commands (set, add, replace, cas, append, prepend, incr, decr) set.
struct TwitterFormat: LineFormat {
    let separator: UInt8? = 0x2C
    var carriesOperations: Bool { true }

    mutating func header(_ fields: LineFields) throws(FieldParsing.Failure) -> Bool { false }

    func requests(_ fields: LineFields, keepKeyNames: Bool, into requests: inout [Request]) throws(FieldParsing.Failure) {
        guard fields.count == 7 else {
            throw FieldParsing.Failure("expected 7 fields (timestamp, key, key size, value size, client id, operation, TTL), found \(fields.count)")
        }
        let key = try FieldParsing.key(fields[1], keepName: keepKeyNames)
        let size = try FieldParsing.size(fields[2], column: "key size") + FieldParsing.size(fields[3], column: "value size")
        guard size <= SizeLimits.largestObject else { throw FieldParsing.Failure("key size + value size (\(size)) is larger than the largest object accepted, 2^53 bytes") }
        guard let ttl = UInt32(FieldParsing.text(fields[6]).trimmingSpaces) else {
            throw FieldParsing.Failure("TTL \(FieldParsing.quote(fields[6])) is not whole seconds from 0 to 4294967295")
        }
        requests.append(Request(time: try FieldParsing.time(fields[0]), id: key.id, size: size,
                                operation: try Self.operation(fields[5]), name: key.name, ttl: ttl))
    }

    static func operation(_ bytes: UnsafeRawBufferPointer) throws(FieldParsing.Failure) -> Operation {
        switch FieldParsing.lowercasedText(bytes) {
        case "get", "gets": return .get
        case "set", "add", "replace", "cas", "append", "prepend", "incr", "decr": return .set
        case "delete": return .delete
        default: throw FieldParsing.Failure("operation \(FieldParsing.quote(bytes)) is not a memcached command")
        }
    }
}
