import WorkbenchCore
import WorkbenchMetrics
/// Tencent's photo CDN trace (the QQ photo dataset): space-separated `timestamp photo-id
/// format size-spec returned-size hit-flag terminal response-ms`, the timestamp as
/// YYYYMMDDHHMMSS. One photo is stored in several formats and sizes, so the key is
/// `id.format.spec`; the size is the returned size; time is seconds since 1970 (read as UTC).
struct TencentPhotoFormat: LineFormat {
    let separator: UInt8? = nil

    mutating func header(_ fields: LineFields) throws(FieldParsing.Failure) -> Bool { false }

    func requests(_ fields: LineFields, keepKeyNames: Bool, into requests: inout [Request]) throws(FieldParsing.Failure) {
        guard fields.count == 8 else {
            throw FieldParsing.Failure("expected 8 fields (timestamp, photo id, format, spec, size, hit, terminal, ms), found \(fields.count)")
        }
        guard !fields[1].isEmpty, !fields[2].isEmpty, !fields[3].isEmpty else { throw FieldParsing.Failure("photo id, format and spec must not be empty") }
        let text = FieldParsing.text(fields[1]) + "." + FieldParsing.text(fields[2]) + "." + FieldParsing.text(fields[3])
        let key = KeyDigest.parse(text)
        requests.append(Request(time: try Self.seconds(fields[0]), id: key.id, size: try FieldParsing.size(fields[4], column: "returned size"),
                                name: keepKeyNames ? text : nil))
    }

    /// YYYYMMDDHHMMSS as seconds since 1970-01-01 00:00 UTC.
    static func seconds(_ bytes: UnsafeRawBufferPointer) throws(FieldParsing.Failure) -> Double {
        guard bytes.count == 14, let all = FieldParsing.wholeNumber(bytes) else {
            throw FieldParsing.Failure("timestamp \(FieldParsing.quote(bytes)) is not YYYYMMDDHHMMSS")
        }
        let (year, month, day) = (all / 10_000_000_000, all / 100_000_000 % 100, all / 1_000_000 % 100)
        let (hour, minute, second) = (all / 10_000 % 100, all / 100 % 100, all % 100)
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else {
            throw FieldParsing.Failure("timestamp \(FieldParsing.quote(bytes)) is not a valid date and time")
        }
        return Double(CivilTime.unixSeconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
    }
}
