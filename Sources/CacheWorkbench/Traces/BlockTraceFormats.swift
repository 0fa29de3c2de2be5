import WorkbenchCore
import WorkbenchMetrics
/// The block traces eviction-policy papers were judged on. Every block is one request for
/// a 512-byte object (the traces' block size); `--ignore-obj-size` counts each as 1, so
/// capacities are in blocks as the papers give them. Times are the request's position.
///
/// ARC's `.lis` traces (Megiddo and Modha, FAST 2003): `start_block n_blocks ignored
/// request_no`, space-separated; a line stands for blocks start … start + n − 1, in order.
/// Fields 3 and 4 are not relied on (OLTP's request_no is 0 on every line).
struct ARCListFormat: LineFormat {
    let separator: UInt8? = nil
    /// Blocks per line at most: P6's largest is 128; far more means a corrupt line.
    static let largestRun = 1 << 20
    private var position = 0

    mutating func header(_ fields: LineFields) throws(FieldParsing.Failure) -> Bool { false }

    mutating func requests(_ fields: LineFields, keepKeyNames: Bool, into requests: inout [Request]) throws(FieldParsing.Failure) {
        guard fields.count >= 2 else { throw FieldParsing.Failure("expected 'start_block n_blocks …', found \(fields.count) field\(fields.count == 1 ? "" : "s")") }
        guard let start = FieldParsing.wholeNumber(fields[0]) else { throw FieldParsing.wholeNumberFailure(fields[0], column: "start_block") }
        let count = try FieldParsing.count(fields[1], column: "n_blocks", limit: Self.largestRun)
        guard count >= 1 else { throw FieldParsing.Failure("n_blocks is 0") }
        guard start <= Int.max - count else { throw FieldParsing.Failure("start_block + n_blocks is above 2^63") }
        for block in start..<(start + count) {
            requests.append(Request(time: Double(position), id: UInt64(block), size: 512))
            position += 1
        }
    }
}

/// LIRS-style traces (Jiang and Zhang, SIGMETRICS 2002): one block number per line, blank
/// lines and lines starting with `#` or `*` ignored.
struct LIRSFormat: LineFormat {
    let separator: UInt8? = nil
    private var position = 0

    mutating func header(_ fields: LineFields) throws(FieldParsing.Failure) -> Bool { false }

    mutating func requests(_ fields: LineFields, keepKeyNames: Bool, into requests: inout [Request]) throws(FieldParsing.Failure) {
        if let first = fields[0].first, first == UInt8(ascii: "#") || first == UInt8(ascii: "*") { return }
        guard fields.count == 1 else { throw FieldParsing.Failure("expected one block number, found \(fields.count) fields") }
        guard let block = KeyDigest.canonicalInteger(fields[0]) else {
            throw FieldParsing.Failure("block \(FieldParsing.quote(fields[0])) is not a whole number")
        }
        requests.append(Request(time: Double(position), id: block, size: 512))
        position += 1
    }
}
