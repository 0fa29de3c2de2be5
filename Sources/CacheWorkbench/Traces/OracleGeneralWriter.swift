import WorkbenchCore
import WorkbenchMetrics
#if canImport(Glibc)
import Glibc
#endif

/// Writes a trace as libCacheSim's oracleGeneral binary (24-byte little-endian records:
/// u32 time, u64 id, u32 size, i64 next access = the 1-based position of the object's next
/// request, -1 when none, as libCacheSim's traceConv writes it). Next access needs the future, so it takes the whole trace in
/// memory. The file appears whole or not at all. `label` names the trace in errors.
public enum OracleGeneralWriter {
    public static func write(_ requests: [Request], label: String, to path: String) throws {
        let nextAccess = NextAccess.libCacheSimPositions(of: requests.map(\.id), never: -1)
        var bytes = [UInt8](repeating: 0, count: requests.count * 24)
        try bytes.withUnsafeMutableBytes { buffer in
            for (index, request) in requests.enumerated() {
                guard request.time >= 0, request.time < 4_294_967_296 else {
                    throw WorkbenchError("\(label): request \(index + 1): time \(request.time) does not fit oracleGeneral's u32 seconds")
                }
                guard request.size >= 0, request.size <= Int(UInt32.max) else {
                    throw WorkbenchError("\(label): request \(index + 1): size \(request.size) does not fit oracleGeneral's u32")
                }
                let record = buffer.baseAddress! + index * 24
                record.storeBytes(of: UInt32(request.time).littleEndian, as: UInt32.self)
                record.storeBytes(of: request.id.littleEndian, toByteOffset: 4, as: UInt64.self)
                record.storeBytes(of: UInt32(request.size).littleEndian, toByteOffset: 12, as: UInt32.self)
                record.storeBytes(of: nextAccess[index].littleEndian, toByteOffset: 16, as: Int64.self)
            }
        }
        try OutputFile.write(bytes, to: path)
    }
}
