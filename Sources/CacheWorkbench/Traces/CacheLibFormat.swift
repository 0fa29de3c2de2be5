import WorkbenchCore
import WorkbenchMetrics
/// Meta's CacheLib kvcache traces: CSV with a header naming the columns. `key`, `op` and
/// `size` are required; `op_time` (seconds), `key_size`, `op_count` and `ttl` optional. A
/// row with `op_count` N stands for N requests. Ops: GET… reads, SET… sets, DELETE…
/// deletes (CacheLib's variants such as GET_LEASE included).
struct CacheLibFormat: LineFormat {
    var carriesOperations: Bool { true }
    let separator: UInt8? = 0x2C
    private var key = 0, op = 1, size = 2, columns = 3
    private var time: Int?, count: Int?, ttl: Int?

    mutating func header(_ fields: LineFields) throws(FieldParsing.Failure) -> Bool {
        let names = (0..<fields.count).map { FieldParsing.lowercasedText(fields[$0]).trimmingSpaces }
        guard let key = names.firstIndex(of: "key"), let op = names.firstIndex(of: "op"), let size = names.firstIndex(of: "size") else {
            throw FieldParsing.Failure("a CacheLib trace starts with a header naming key, op and size (found \(names.joined(separator: ", ")))")
        }
        (self.key, self.op, self.size, columns) = (key, op, size, names.count)
        time = names.firstIndex(of: "op_time")
        count = names.firstIndex(of: "op_count")
        ttl = names.firstIndex(of: "ttl")
        return true
    }

    func requests(_ fields: LineFields, keepKeyNames: Bool, into requests: inout [Request]) throws(FieldParsing.Failure) {
        guard fields.count == columns else { throw FieldParsing.Failure("expected \(columns) fields as the header says, found \(fields.count)") }
        let key = try FieldParsing.key(fields[self.key], keepName: keepKeyNames)
        var seconds: UInt32 = 0
        if let ttl {
            guard let value = UInt32(FieldParsing.text(fields[ttl]).trimmingSpaces) else {
                throw FieldParsing.Failure("ttl \(FieldParsing.quote(fields[ttl])) is not whole seconds from 0 to 4294967295")
            }
            seconds = value
        }
        let request = Request(
            time: try time.map { column throws(FieldParsing.Failure) in try FieldParsing.time(fields[column]) } ?? 0,
            id: key.id, size: try FieldParsing.size(fields[size], column: "size"),
            operation: try Self.operation(fields[op]), name: key.name, ttl: seconds)
        let repeats = try count.map { column throws(FieldParsing.Failure) in
            try FieldParsing.count(fields[column], column: "op_count", limit: 1_000_000)
        } ?? 1
        for _ in 0..<repeats { requests.append(request) }
    }

    static func operation(_ bytes: UnsafeRawBufferPointer) throws(FieldParsing.Failure) -> Operation {
        let text = FieldParsing.lowercasedText(bytes)
        if text.hasPrefix("get") { return .get }
        if text.hasPrefix("set") { return .set }
        if text.hasPrefix("del") { return .delete }
        throw FieldParsing.Failure("op \(FieldParsing.quote(bytes)) is not GET, SET or DELETE")
    }
}
