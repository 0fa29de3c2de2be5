import WorkbenchCore
import WorkbenchMetrics
/// Calendar date and time (UTC) to seconds since 1970 and back, with Howard Hinnant's
/// days-from-civil and civil-from-days algorithms (proleptic Gregorian; no Foundation
/// formatter per row).
enum CivilTime {
    static func unixSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let days = era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
        return days * 86_400 + hour * 3_600 + minute * 60 + second
    }

    struct Fields: Equatable {
        var year, month, day, hour, minute, second: Int
        /// 0 = Sunday.
        var weekday: Int
    }

    /// The UTC calendar fields of `seconds` since 1970 (whole seconds, floored).
    static func fields(unixSeconds seconds: Int) -> Fields {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = ((days % 7) + 11) % 7  // 1970-01-01 was a Thursday (4)
        return Fields(year: year, month: month, day: day, hour: secondOfDay / 3_600, minute: secondOfDay / 60 % 60,
                      second: secondOfDay % 60, weekday: weekday)
    }
}
