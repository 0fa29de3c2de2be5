import WorkbenchCore
import WorkbenchMetrics
/// libCacheSim's plain `txt` traces (traceReader/generalReader/txt.c): one object id per
/// line, blank lines skipped. libCacheSim's reader sets nothing else, so every request is
/// 1 byte (`read_one_req` defaults obj_size to 1, traceReader/reader.c); the time here is
/// the line's position. A whole-number id is the id itself; other text is digested
/// (libCacheSim's `cachesim` parses ids as numbers: strtoull, so `0x1f` is 31 there and text
/// here).
struct LibCacheSimTextFormat: LineFormat {
    let separator: UInt8? = nil
    private var position = 0

    mutating func header(_ fields: LineFields) throws(FieldParsing.Failure) -> Bool { false }

    mutating func requests(_ fields: LineFields, keepKeyNames: Bool, into requests: inout [Request]) throws(FieldParsing.Failure) {
        guard fields.count == 1 else { throw FieldParsing.Failure("expected one object id, found \(fields.count) fields") }
        let key = try FieldParsing.key(fields[0], keepName: keepKeyNames)
        requests.append(Request(time: Double(position), id: key.id, size: 1, name: key.name))
        position += 1
    }
}
