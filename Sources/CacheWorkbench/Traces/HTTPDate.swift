import WorkbenchCore
import WorkbenchMetrics
/// HTTP dates (RFC 9110 §5.6.7), as seconds since 1970.
///
/// A recipient must accept three formats: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, the
/// one senders use), the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) and
/// asctime (`Sun Nov  6 08:49:37 1994`). swift-corelibs-foundation's URLCache reuse test
/// accepts only the first (HTTPURLProtocol.swift L249-254), so `imfOnly` models it.
/// Parsing is byte-wise, O(length), no Foundation formatter per response.
public enum HTTPDate {
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Seconds since 1970, or nil when `text` is none of the accepted formats.
    public static func seconds(_ text: String, imfOnly: Bool = false) -> Int? {
        // No date in any format is this long: a longer value is not one (cutting it to its
        // first 64 bytes would read a date followed by junk as that date).
        guard text.utf8.count <= 64 else { return nil }
        let bytes = Array(text.utf8)
        var tokens: [[UInt8]] = []
        var current: [UInt8] = []
        for byte in bytes {
            if byte == 32 || byte == 44 || byte == 45 && !imfOnly {  // space, comma, dash (RFC 850)
                if !current.isEmpty { tokens.append(current); current = [] }
            } else {
                current.append(byte)
            }
        }
        if !current.isEmpty { tokens.append(current) }
        func number(_ token: [UInt8], digits: ClosedRange<Int>) -> Int? {
            guard digits.contains(token.count), token.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            return token.reduce(0) { $0 * 10 + Int($1 - 48) }
        }
        func month(_ token: [UInt8]) -> Int? {
            guard token.count == 3 else { return nil }
            return months.firstIndex(of: String(decoding: token, as: UTF8.self).lowercased()).map { $0 + 1 }
        }
        func clock(_ token: [UInt8]) -> (Int, Int, Int)? {
            let parts = token.split(separator: 58, omittingEmptySubsequences: false)  // ':'
            guard parts.count == 3, let h = number(Array(parts[0]), digits: 2...2), let m = number(Array(parts[1]), digits: 2...2),
                  let s = number(Array(parts[2]), digits: 2...2), h < 24, m < 60, s < 61 else { return nil }
            return (h, m, s)
        }
        var fields: (year: Int, month: Int, day: Int, time: (Int, Int, Int))?
        // Weekday, day, month, year, time, GMT (IMF-fixdate and RFC 850).
        if tokens.count == 6, String(decoding: tokens[5], as: UTF8.self) == "GMT",
           let day = number(tokens[1], digits: imfOnly ? 2...2 : 1...2), let m = month(tokens[2]),
           var year = number(tokens[3], digits: imfOnly ? 4...4 : 2...4), let time = clock(tokens[4]) {
            if tokens[3].count == 2 { year += year < 70 ? 2000 : 1900 }  // RFC 850's two-digit year (RFC 9110 §5.6.7)
            if imfOnly, bytes.count != 29 { return nil }
            fields = (year, m, day, time)
        } else if !imfOnly, tokens.count == 5, let m = month(tokens[1]), let day = number(tokens[2], digits: 1...2),
                  let time = clock(tokens[3]), let year = number(tokens[4], digits: 4...4) {
            fields = (year, m, day, time)  // asctime
        }
        guard let fields, (1...31).contains(fields.day), fields.year >= 1900, fields.year <= 9999 else { return nil }
        return CivilTime.unixSeconds(year: fields.year, month: fields.month, day: fields.day,
                                     hour: fields.time.0, minute: fields.time.1, second: fields.time.2)
    }

    /// `seconds` as an IMF-fixdate (what a server sends).
    public static func format(_ seconds: Int) -> String {
        let f = CivilTime.fields(unixSeconds: seconds)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(weekdays[f.weekday]), \(two(f.day)) \(monthNames[f.month - 1]) \(f.year) \(two(f.hour)):\(two(f.minute)):\(two(f.second)) GMT"
    }
}
