import WorkbenchCore
import WorkbenchMetrics
/// libCacheSim's `vscsi` block traces (VMware vscsiStats captures), in either record
/// layout, detected as libCacheSim detects it (traceReader/customizedReader/vscsi.h,
/// `test_vscsi_version`): the first two records read as vscsi2 both have version 2 in the
/// high byte of `ver`, else read as vscsi1 both have version 1. Little-endian, naturally
/// aligned C structs:
///
/// - vscsi1, 32 bytes: `u32 sn, u32 len, u32 nSG, u16 cmd, u16 ver, u64 lbn, u64 ts`
/// - vscsi2, 40 bytes: `u16 cmd, u16 ver, u32 sn, u32 len, u32 nSG, u64 lbn, u64 ts, u64 rt`
///
/// A request is block `lbn` (the id) of `len` bytes at `ts` microseconds (kept to the
/// microsecond; libCacheSim truncates to whole seconds, which no count depends on). SCSI
/// READ(6/10/12/16) and the other read commands libCacheSim lists (8, 40, 45, 136, 168) are
/// gets, its write commands (42, 63, 138, 142, 154, 156, 170, 174) sets; any other command
/// is a get (libCacheSim marks it OP_INVALID and replays it as a read).
///
/// libCacheSim refuses a file shorter than two vscsi2 records (80 bytes); a vscsi1 file
/// of two records (64 to 79 bytes) is read here. Complexity: O(1) per record.
final class VSCSIReader: BinaryRecordReader {
    enum Layout: String { case vscsi1, vscsi2 }

    let layout: Layout
    let stream: BinaryRecordStream

    init(path: String) throws(TraceError) {
        stream = try BinaryRecordStream(path: path)
        let head = try stream.peek(80)
        guard let layout = Self.layout(head) else {
            throw TraceError(path: path, line: nil, reason: head.count < 64
                ? "byte 0: \(head.count) bytes, too short for vscsi: its layout is told from the first two records (64 bytes at least)"
                : "byte 0: neither vscsi layout: the first two records' version bytes are not both 2 (vscsi2, bytes 3 and 43) nor both 1 (vscsi1, bytes 15 and 47)")
        }
        self.layout = layout
        stream.recordSize = layout == .vscsi1 ? 32 : 40
    }

    /// The layout the first bytes show, or nil (`head` at least 64 bytes for vscsi1, 80
    /// for vscsi2; the version is the high byte of the little-endian `ver`).
    static func layout(_ head: [UInt8]) -> Layout? {
        if head.count >= 80, head[3] == 2, head[43] == 2 { return .vscsi2 }
        if head.count >= 64, head[15] == 1, head[47] == 1 { return .vscsi1 }
        return nil
    }

    var expectedCount: Int? { stream.totalBytes.map { $0 / stream.recordSize } }
    var carriesOperations: Bool { true }

    static let readCommands: Set<UInt16> = [8, 40, 45, 136, 168]
    static let writeCommands: Set<UInt16> = [42, 63, 138, 142, 154, 156, 170, 174]

    func append(to requests: inout [Request], limit: Int) throws -> Int {
        var added = 0
        let v2 = layout == .vscsi2
        while added < limit, let (base, records) = try stream.nextRecords(limit: limit - added) {
            for index in 0..<records {
                let record = base + index * stream.recordSize
                let command = UInt16(littleEndian: record.loadUnaligned(fromByteOffset: v2 ? 0 : 12, as: UInt16.self))
                let length = UInt32(littleEndian: record.loadUnaligned(fromByteOffset: v2 ? 8 : 4, as: UInt32.self))
                let block = UInt64(littleEndian: record.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
                let micros = UInt64(littleEndian: record.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
                requests.append(Request(time: Double(micros) / 1e6, id: block, size: Int(length),
                                        operation: Self.writeCommands.contains(command) ? .set : .get))
            }
            added += records
        }
        return added
    }
}
