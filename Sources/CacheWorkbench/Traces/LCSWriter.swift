import WorkbenchCore
import WorkbenchMetrics
/// Writes a trace as libCacheSim's `lcs` binary: by default in the PyPI release 0.3.5's 8 KiB
/// layout, version 3 (`LCSReader` has both layouts); any of that layout's versions 1–8 as its
/// traceConv writes them (`traceConvLCS.cpp`'s `_reverse_file`); `writeRepositoryLayout`
/// writes the repository's 1 KiB layout at aa0fc40. Version 3, the default, holds everything a
/// workbench request carries for libCacheSim — time, id, a 64-bit size and the op. Versions 1
/// and 2 hold 32-bit sizes (a larger one is refused, not cut) and version 1 no op (sets and
/// deletes read back as gets: `ConversionLosses` counts them); 4–8 are version 3's record
/// followed by 1, 2, 4, 8 or 16 u32 features, written 0 (the workbench has none). Tenant and TTL
/// are written 0; next access is the 1-based position of the object's next request, `INT64_MAX`
/// when none (traceConvLCS's values). The header's statistics hold what the workbench knows:
/// version 1 of the stat, requests, objects, requested and unique bytes (each object's first
/// size), first and last time, gets, sets and deletes (as n_read, n_write, n_delete), smallest
/// and largest size; the rest is 0, which lcs.h reserves for "not computed". Times are whole
/// seconds (u32): fractions are dropped and counted. The file appears whole or not at all,
/// created exclusively.
///
/// Complexity: O(n) time and memory (the next accesses need the whole trace).
public enum LCSWriter {
    public static let version = 3
    /// The 8 KiB layout's versions (lcs.h's `lcs_req_v1` … `lcs_req_v8`).
    public static let versions = 1...8

    /// Returns how many requests' times lost a fraction of a second.
    @discardableResult
    public static func write(_ requests: [Request], label: String, to path: String, version: Int = version) throws -> Int {
        guard versions.contains(version) else { throw WorkbenchError("--lcs-version must be 1 to 8 (lcs.h's record versions), not \(version)") }
        let recordSize = LCSReader.recordSizes[version]
        let nextAccess = NextAccess.libCacheSimPositions(of: requests.map(\.id), never: Int64.max)
        let (count, overflow) = requests.count.multipliedReportingOverflow(by: recordSize)
        guard !overflow, count <= Int.max - LCSReader.headerSize else { throw WorkbenchError("\(label): too many requests for one lcs file") }
        var bytes = [UInt8](repeating: 0, count: LCSReader.headerSize + count)
        var fractions = 0
        var firstSizes: [UInt64: Int] = [:]
        var counts = [Int](repeating: 0, count: Operation.allCases.count)
        var requestedBytes = 0, smallest = Int.max, largest = 0
        try bytes.withUnsafeMutableBytes { buffer in
            let base = buffer.baseAddress!
            for (index, request) in requests.enumerated() {
                guard request.time >= 0, request.time < 4_294_967_296 else {
                    throw WorkbenchError("\(label): request \(index + 1): time \(request.time) does not fit lcs's u32 seconds")
                }
                if version <= 2, request.size > Int(UInt32.max) {
                    throw WorkbenchError("\(label): request \(index + 1): size \(request.size) does not fit lcs version \(version)'s u32 size (version 3 holds 64 bits)")
                }
                if request.time.rounded(.down) != request.time { fractions += 1 }
                let record = base + LCSReader.headerSize + index * recordSize
                let op = UInt32(LibCacheSimOperation.code(of: request.operation)).littleEndian  // op:8 in the low byte, tenant:24 0
                record.storeBytes(of: UInt32(request.time).littleEndian, toByteOffset: 0, as: UInt32.self)
                record.storeBytes(of: request.id.littleEndian, toByteOffset: 4, as: UInt64.self)
                switch version {
                case 1:
                    record.storeBytes(of: UInt32(request.size).littleEndian, toByteOffset: 12, as: UInt32.self)
                    record.storeBytes(of: nextAccess[index].littleEndian, toByteOffset: 16, as: Int64.self)
                case 2:
                    record.storeBytes(of: UInt32(request.size).littleEndian, toByteOffset: 12, as: UInt32.self)
                    record.storeBytes(of: op, toByteOffset: 16, as: UInt32.self)
                    record.storeBytes(of: nextAccess[index].littleEndian, toByteOffset: 20, as: Int64.self)
                default:  // 3, and 4–8 with their features left 0
                    record.storeBytes(of: Int64(request.size).littleEndian, toByteOffset: 12, as: Int64.self)
                    record.storeBytes(of: op, toByteOffset: 20, as: UInt32.self)
                    record.storeBytes(of: nextAccess[index].littleEndian, toByteOffset: 28, as: Int64.self)
                }
                if firstSizes[request.id] == nil { firstSizes[request.id] = request.size }
                counts[Int(request.operation.rawValue)] += 1
                requestedBytes = requestedBytes.addingReportingOverflow(request.size).overflow ? Int.max : requestedBytes + request.size
                smallest = min(smallest, request.size)
                largest = max(largest, request.size)
            }
            let uniqueBytes = firstSizes.values.reduce(0) { $0.addingReportingOverflow($1).overflow ? Int.max : $0 + $1 }
            func put(_ value: Int64, at offset: Int) { base.storeBytes(of: value.littleEndian, toByteOffset: offset, as: Int64.self) }
            put(Int64(bitPattern: LCSReader.magic), at: 0)
            put(Int64(version), at: 8)
            // lcs_trace_stat_t from byte 16: version, n_req, n_obj, n_req_byte, n_obj_byte,
            // start_timestamp, end_timestamp, n_read, n_write, n_delete, smallest, largest.
            let stat: [Int] = [
                1, requests.count, firstSizes.count, requestedBytes, uniqueBytes,
                Int(requests.first?.time ?? 0), Int(requests.last?.time ?? 0),
                counts[Int(Operation.get.rawValue)], counts[Int(Operation.set.rawValue)], counts[Int(Operation.delete.rawValue)],
                requests.isEmpty ? 0 : smallest, largest,
            ]
            for (field, value) in stat.enumerated() { put(Int64(value), at: 16 + 8 * field) }
            put(Int64(bitPattern: LCSReader.magic), at: LCSReader.headerSize - 8)
        }
        try OutputFile.write(bytes, to: path)
        return fractions
    }

    /// Writes `requests` in libCacheSim aa0fc40's 1 KiB layout exactly as its only writer of
    /// that layout, `traceConv.cpp`'s `_reverse_file` (lines 189–228), fills it, but zeroed
    /// where it left stack bytes: format `<IQIQ` (u32 time, u64 id, u32 size, i64 next access,
    /// 24 bytes), field numbers time 1, id 2, size 3, next access 4, the counts (requests,
    /// objects, requested and unique bytes), `n_fields` 4, `item_size` 24. Next access is,
    /// as that writer computes it, the 1-based position of the object's next request, -1 when
    /// none. There is no op (sets and deletes are read back as gets: `ConversionLosses` counts
    /// them) and sizes are 32 bits: a larger size is refused, as oracleGeneral's. O(n).
    public static func writeRepositoryLayout(_ requests: [Request], label: String, to path: String) throws {
        let headerSize = LCSReader.repositoryHeaderSize
        let nextAccess = NextAccess.libCacheSimPositions(of: requests.map(\.id), never: -1)
        let (count, overflow) = requests.count.multipliedReportingOverflow(by: 24)
        guard !overflow, count <= Int.max - headerSize else { throw WorkbenchError("\(label): too many requests for one lcs file") }
        var bytes = [UInt8](repeating: 0, count: headerSize + count)
        var firstSizes: [UInt64: Int] = [:]
        var requestedBytes = 0
        try bytes.withUnsafeMutableBytes { buffer in
            let base = buffer.baseAddress!
            for (index, request) in requests.enumerated() {
                guard request.time >= 0, request.time < 4_294_967_296 else {
                    throw WorkbenchError("\(label): request \(index + 1): time \(request.time) does not fit lcs's u32 seconds")
                }
                guard request.size >= 0, request.size <= Int(UInt32.max) else {
                    throw WorkbenchError("\(label): request \(index + 1): size \(request.size) does not fit the u32 size of libCacheSim aa0fc40's lcs format <IQIQ")
                }
                let record = base + headerSize + index * 24
                record.storeBytes(of: UInt32(request.time).littleEndian, toByteOffset: 0, as: UInt32.self)
                record.storeBytes(of: request.id.littleEndian, toByteOffset: 4, as: UInt64.self)
                record.storeBytes(of: UInt32(request.size).littleEndian, toByteOffset: 12, as: UInt32.self)
                record.storeBytes(of: nextAccess[index].littleEndian, toByteOffset: 16, as: Int64.self)
                if firstSizes[request.id] == nil { firstSizes[request.id] = request.size }
                requestedBytes = requestedBytes.addingReportingOverflow(request.size).overflow ? Int.max : requestedBytes + request.size
            }
            let uniqueBytes = firstSizes.values.reduce(0) { $0.addingReportingOverflow($1).overflow ? Int.max : $0 + $1 }
            base.storeBytes(of: LCSReader.magic.littleEndian, toByteOffset: 0, as: UInt64.self)
            for (offset, byte) in "<IQIQ".utf8.enumerated() { base.storeBytes(of: byte, toByteOffset: 8 + offset, as: UInt8.self) }
            // obj_id_field, obj_size_field, time_field at 248–250; next_access_vtime_field at 252.
            for (offset, number) in [(248, 2), (249, 3), (250, 1), (252, 4)] { base.storeBytes(of: UInt8(number), toByteOffset: offset, as: UInt8.self) }
            for (field, value) in [requests.count, firstSizes.count, requestedBytes, uniqueBytes].enumerated() {
                base.storeBytes(of: Int64(value).littleEndian, toByteOffset: 488 + 8 * field, as: Int64.self)
            }
            base.storeBytes(of: UInt32(4).littleEndian, toByteOffset: 1000, as: UInt32.self)
            base.storeBytes(of: UInt32(24).littleEndian, toByteOffset: 1004, as: UInt32.self)
            base.storeBytes(of: LCSReader.magic.littleEndian, toByteOffset: headerSize - 8, as: UInt64.self)
        }
        try OutputFile.write(bytes, to: path)
    }
}
