import WorkbenchCore
import WorkbenchMetrics
/// libCacheSim's request operations (`req_op_e`, include/libCacheSim/enum.h: NOP 0, GET 1,
/// GETS 2, SET 3, ADD 4, CAS 5, REPLACE 6, APPEND 7, PREPEND 8, DELETE 9, INCR 10, DECR 11,
/// READ 12, WRITE 13, UPDATE 14, INVALID 255) as the workbench's three: the reads read,
/// every writing command sets, DELETE deletes. NOP and INVALID (what a reader leaves when
/// the trace did not say, and vscsi's other SCSI commands) are read as gets, as
/// libCacheSim's simulator replays every request (`cache_get_base`, cache/cache.c).
enum LibCacheSimOperation {
    static let get: UInt8 = 1, set: UInt8 = 3, delete: UInt8 = 9

    static func operation(code: UInt8) throws(FieldParsing.Failure) -> Operation {
        switch code {
        case 0, 1, 2, 12, 255: return .get
        case 3, 4, 5, 6, 7, 8, 10, 11, 13, 14: return .set
        case 9: return .delete
        default: throw FieldParsing.Failure("op code \(code) is not one of libCacheSim's (enum.h: 0–14 or 255)")
        }
    }

    /// The code written for an operation (`bench convert --to lcs`).
    static func code(of operation: Operation) -> UInt8 {
        switch operation {
        case .get: get
        case .set: set
        case .delete: delete
        }
    }
}
